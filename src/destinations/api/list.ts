// The hog function list's filters and order (PostHog's HogFunctionViewSet): deleted ones
// never; `type` (comma list; all types without it), `enabled`, `id`, `created_by`, `search`
// (name or description, case-insensitive), and `filters` (JSON) with `filter_groups` (a
// JSON list of more): the stored filters must contain, as Postgres' @> does, one of them
// (empty ones ignored); execution_order ascending with nulls last, then the
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

// Python's falsy JSON: PostHog skips such groups.
const falsy = (v: unknown) => v === null || v === false || v === 0 || v === '' ||
  (Array.isArray(v) && v.length === 0) || (isDict(v) && Object.keys(v).length === 0);

function parsed(raw: string, attr: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw errors.validation(`Invalid ${attr}`, attr);
  }
}

// `filter_groups` (a JSON list) and `filters` (any JSON) together: the objects of which a
// function's filters must contain one (PostHog ORs them); null when nothing filters.
function containmentGroups(q: URLSearchParams | undefined): unknown[] | null {
  const groups: unknown[] = [];
  const rawGroups = q?.get('filter_groups');
  if (rawGroups) {
    const list = parsed(rawGroups, 'filter_groups');
    if (!Array.isArray(list)) throw errors.validation('Invalid filter_groups', 'filter_groups');
    groups.push(...list);
  }
  const rawFilters = q?.get('filters');
  if (rawFilters) groups.push(parsed(rawFilters, 'filters'));
  const active = groups.filter((g) => !falsy(g));
  return active.length > 0 ? active : null;
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
  const groups = containmentGroups(q);
  return all.filter((fn) => {
    if (fn.deleted) return false;
    if (types.length > 0 && !types.includes(fn.type)) return false;
    if (enabled !== null && fn.enabled !== enabled) return false;
    if (id !== null && fn.id !== id) return false;
    if (createdBy !== null && String(fn.created_by) !== createdBy) return false;
    if (search !== null && !fn.name.toLowerCase().includes(search) && !fn.description.toLowerCase().includes(search)) return false;
    if (groups !== null && !groups.some((group) => contains(fn.filters ?? {}, group))) return false;
    return true;
  }).sort(listOrder);
}
