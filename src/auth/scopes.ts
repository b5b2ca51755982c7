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
  'query', 'export', 'hog_function', 'insight', 'feature_flag', 'person', 'group', 'cohort',
  'project', 'organization', 'organization_member', 'user', 'event_definition', 'property_definition',
] as const;

export const ALL_SCOPES = ['*'] as const;
