// The hog function list's filters and order (PostHog's HogFunctionViewSet): deleted ones
// never; `type` (comma list; all types without it), `enabled`, `id`, `created_by`, `search`
// (name or description, case-insensitive), `filters` (a JSON object the stored filters
// must contain, as Postgres' @> does) and `filter_groups` (a JSON list: the stored filters
// must contain one of its items; an empty list filters nothing); execution_order ascending with nulls last, then the
// most recently updated first.
import { errors } from '../../errors.js';
import type { HttpRequest } from '../../http/types.js';
import type { StoredHogFunction } from '../types.js';

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// JSONB containment: objects by key, arrays element by element (each wanted element in some held one).
export function contains(held: unknown, wanted: unknown): boolean {
  if (isDict(wanted)) return isDict(held) && Object.entries(wanted).every(([k, v]) => k in held && contains(held[k], v));
  if (Array.isArray(wanted)) return Array.isArray(held) && wanted.every((w) => held.some((h) => contains(h, w)));
  return held === wanted;
}

function booleanParam(raw: string | null): boolean | null {
  if (raw === null || raw === '') return null;
  if (['true', 'True', '1'].includes(raw)) return true;
  if (['false', 'False', '0'].includes(raw)) return false;
  return null;
}

function filtersParam(raw: string | null): Record<string, unknown> | null {
  if (raw === null || raw === '') return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isDict(parsed)) return parsed;
  } catch {
    // answered below
  }
  throw errors.validation('Invalid filters', 'filters');
}

// PostHog's reference gives no message for filter_groups that are not a JSON list: this one
// is worded like the `filters` one.
function filterGroupsParam(raw: string | null): unknown[] | null {
  if (raw === null || raw === '') return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (Array.isArray(parsed)) return parsed.length > 0 ? parsed : null;
  } catch {
    // answered below
  }
  throw errors.validation('Invalid filter_groups', 'filter_groups');
}

export function listOrder(a: StoredHogFunction, b: StoredHogFunction): number {
  if (a.execution_order !== b.execution_order) {
    if (a.execution_order === null) return 1;
    if (b.execution_order === null) return -1;
    return a.execution_order - b.execution_order;
  }
  return b.updated_at.localeCompare(a.updated_at);
}

/** The functions the list shows, in its order; `req` null: every function not deleted. */
export function functionList(req: HttpRequest | null, all: StoredHogFunction[]): StoredHogFunction[] {
  const q = req?.query;
  const types = (q?.get('type') ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  const enabled = booleanParam(q?.get('enabled') ?? null);
  const id = q?.get('id') || null;
  const createdBy = q?.get('created_by') || null;
  const search = q?.get('search')?.toLowerCase() || null;
  const filters = filtersParam(q?.get('filters') ?? null);
  const filterGroups = filterGroupsParam(q?.get('filter_groups') ?? null);
  return all.filter((fn) => {
    if (fn.deleted) return false;
    if (types.length > 0 && !types.includes(fn.type)) return false;
    if (enabled !== null && fn.enabled !== enabled) return false;
    if (id !== null && fn.id !== id) return false;
    if (createdBy !== null && String(fn.created_by) !== createdBy) return false;
    if (search !== null && !fn.name.toLowerCase().includes(search) && !fn.description.toLowerCase().includes(search)) return false;
    if (filters !== null && !contains(fn.filters ?? {}, filters)) return false;
    if (filterGroups !== null && !filterGroups.some((group) => contains(fn.filters ?? {}, group))) return false;
    return true;
  }).sort(listOrder);
}
