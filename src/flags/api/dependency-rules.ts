// PostHog's rules for flag dependencies ("type": "flag" filters, which name the flag
// depended on by id): references must be ids of active flags, no flag may reach itself,
// and a flag others depend on can be neither deleted nor disabled, nor enabled while one
// it depends on is off. Pure over the project's flags.
import { errors } from '../../errors.js';
import type { FlagFiltersDefinition } from '../types.js';
import type { StoredFlag } from '../definitions/types.js';

const dependencyRefs = (filters: FlagFiltersDefinition): unknown[] =>
  (filters.groups ?? []).flatMap((g) => (g.properties ?? []).filter((p) => p.type === 'flag').map((p) => p.key));

// Python's int() of a JSON value, or undefined.
function asInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : undefined;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number(v);
  return undefined;
}

const live = (flags: readonly StoredFlag[]) => flags.filter((f) => !f.deleted);

/** The key of the active flag a reference names. */
function referencedKey(ref: unknown, flags: readonly StoredFlag[]): string {
  const id = asInt(ref);
  if (id === undefined) {
    throw errors.validation(`Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${String(ref)}'`, 'filters');
  }
  const flag = live(flags).find((f) => f.id === id);
  if (!flag) throw errors.validation(`Flag dependency references non-existent flag with ID ${id}`, 'filters');
  if (!flag.active) {
    throw errors.validation(`Cannot create dependency on disabled flag '${flag.key}' (ID: ${id}). Flag dependencies must reference active flags only.`, 'filters');
  }
  return flag.key;
}

// Python skips falsy references.
const isFalsy = (r: unknown) => r === undefined || r === null || r === '' || r === 0 || r === false;

const dependencyKeys = (filters: FlagFiltersDefinition, flags: readonly StoredFlag[]) =>
  new Set(dependencyRefs(filters).filter((r) => !isFalsy(r)).map((r) => referencedKey(r, flags)));

/** References resolve to active flags and the flag being written does not reach itself. */
export function checkDependencies(flagKey: string | undefined, filters: FlagFiltersDefinition, flags: readonly StoredFlag[]): void {
  if (!flagKey) return;
  const deps = dependencyKeys(filters, flags);
  if (deps.has(flagKey)) throw errors.validation(`Feature flag '${flagKey}' cannot depend on itself`, 'filters');
  const visit = (key: string, path: string[]): void => {
    const at = path.indexOf(key);
    if (at !== -1) {
      throw errors.validation(`Circular dependency detected: ${[...path.slice(at), key].join(' → ')}`, 'filters');
    }
    const flag = live(flags).find((f) => f.key === key);
    if (flag) for (const dep of dependencyKeys(flag.filters, flags)) visit(dep, [...path, key]);
  };
  for (const dep of deps) visit(dep, [flagKey]);
}

function named(flags: readonly StoredFlag[]): string {
  const names = flags.slice(0, 5).map((f) => `${f.key} (ID: ${f.id})`);
  if (flags.length > 5) names.push(`and ${flags.length - 5} more`);
  return names.join(', ');
}

const byKey = (a: StoredFlag, b: StoredFlag) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function dependents(flag: StoredFlag, flags: readonly StoredFlag[]): StoredFlag[] {
  return live(flags)
    .filter((f) => f.active && f.id !== flag.id && dependencyRefs(f.filters).some((r) => String(r) === String(flag.id)))
    .sort(byKey);
}

/** The checks of an update that deletes, disables or enables a flag; raised as errors without a field. */
export function checkStateChange(flag: StoredFlag, next: { deleted?: boolean; active?: boolean }, flags: readonly StoredFlag[]): void {
  if (next.deleted === true) {
    const d = dependents(flag, flags);
    if (d.length > 0) {
      throw errors.validation(`Cannot delete this feature flag because other flags depend on it: ${named(d)}. Please update or delete the dependent flags first.`, null);
    }
  }
  if (next.active === false && flag.active) {
    const d = dependents(flag, flags);
    if (d.length > 0) {
      throw errors.validation(`Cannot disable this feature flag because other flags depend on it: ${named(d)}. Please update or disable the dependent flags first.`, null);
    }
  }
  if (next.active === true && !flag.active) {
    const ids = new Set(dependencyRefs(flag.filters).map(asInt));
    const off = live(flags).filter((f) => ids.has(f.id) && !f.active).sort(byKey);
    if (off.length > 0) {
      throw errors.validation(`Cannot enable this feature flag because it depends on disabled flags: ${named(off)}. Please enable the dependency flags first.`, null);
    }
  }
}
