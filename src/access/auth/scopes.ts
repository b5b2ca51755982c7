// Personal API key scopes: `object:read|write`, write implies read, `*` is all.

export type Access = 'read' | 'write';

export function accessFor(method: string): Access {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

export function hasScope(granted: readonly string[], object: string, access: Access): boolean {
  for (const s of granted) {
    if (s === '*') return true;
    if (s === `${object}:write`) return true;
    if (access === 'read' && s === `${object}:read`) return true;
  }
  return false;
}

// Every scope object a personal API key can name.
export const SCOPE_OBJECTS = [
  'query', 'action', 'export', 'hog_function', 'insight', 'dashboard', 'subscription', 'integration', 'feature_flag', 'person', 'group', 'cohort',
  'project', 'organization', 'organization_member', 'user', 'event_definition', 'property_definition',
] as const;

export const ALL_SCOPES = ['*'] as const;

// A key's scopes as given on the command line: `*`, or `object:read|write` items.
export function parseScopes(list: string): string[] {
  const items = list.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new Error('--scopes needs at least one scope');
  for (const item of items) {
    if (item === '*') continue;
    const [object, access, extra] = item.split(':');
    if (extra !== undefined || (access !== 'read' && access !== 'write') || !(SCOPE_OBJECTS as readonly string[]).includes(object)) {
      throw new Error(`unknown scope "${item}": use * or object:read|write with object one of ${SCOPE_OBJECTS.join(', ')}`);
    }
  }
  return items.includes('*') ? ['*'] : [...new Set(items)];
}
