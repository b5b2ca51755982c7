// The functions that run on a project's events, as the pipeline holds them: enabled, not
// deleted destinations (or transformations) in execution order (nulls last, then oldest first). A lookup reads
// the project's functions version (one LMDB read) once per event-loop turn, so a change
// made through the API applies from the next batch on, and the deliveries' many lookups of
// a turn cost one read.
import type { DestinationsTables } from '../tables.js';
import { hogFunctionsVersion, projectHogFunctions } from '../store.js';
import type { StoredHogFunction } from '../types.js';
import { namedEvents } from './event-names.js';
import { offPeriodsMs } from '../off-periods.js';
import { runnable, type RunnableFunction } from './runnable.js';

export interface ActiveFunction {
  stored: StoredHogFunction;
  run: RunnableFunction;
  // The event names its filters let through, or null for any (./event-names.ts).
  names: ReadonlySet<string> | null;
  // When it was off (../off-periods.ts), flat epoch ms; null when never.
  off: number[] | null;
}

export interface FunctionCache {
  active(projectId: number): ActiveFunction[];
  // Any stored function of the project (deleted and disabled ones included), current.
  find(projectId: number, id: string): StoredHogFunction | undefined;
  // Whether the project has a transformation stored, in any state (deleted ones included):
  // its events may have been transformed when the event store applied them.
  transforms(projectId: number): boolean;
}

export function activeFunction(stored: StoredHogFunction): ActiveFunction {
  return { stored, run: runnable(stored), names: namedEvents(stored.filters), off: offPeriodsMs(stored) };
}

export function byExecutionOrder(a: StoredHogFunction, b: StoredHogFunction): number {
  const ao = a.execution_order ?? Number.POSITIVE_INFINITY;
  const bo = b.execution_order ?? Number.POSITIVE_INFINITY;
  if (ao !== bo) return ao < bo ? -1 : 1;
  return a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);
}

// `type`: the functions it holds (destinations for the pipeline, transformations for the event store).
export function createFunctionCache(store: DestinationsTables, type = 'destination'): FunctionCache {
  type Entry = { version: number; all: Map<string, StoredHogFunction>; active: ActiveFunction[]; transforms: boolean };
  const projects = new Map<number, Entry>();
  // Projects whose version was read this turn.
  const checked = new Set<number>();
  function load(projectId: number): Entry {
    const cached = projects.get(projectId);
    if (cached && checked.has(projectId)) return cached;
    if (checked.size === 0) setImmediate(() => checked.clear());
    checked.add(projectId);
    const version = hogFunctionsVersion(store, projectId);
    if (cached && cached.version === version) return cached;
    const all = projectHogFunctions(store, projectId);
    const entry = {
      version,
      all: new Map(all.map((f) => [f.id, f])),
      active: all.filter((f) => f.enabled && !f.deleted && f.type === type && Array.isArray(f.bytecode))
        .sort(byExecutionOrder)
        .map(activeFunction),
      transforms: all.some((f) => f.type === 'transformation'),
    };
    projects.set(projectId, entry);
    return entry;
  }
  return {
    active: (projectId) => load(projectId).active,
    find: (projectId, id) => load(projectId).all.get(id),
    transforms: (projectId) => load(projectId).transforms,
  };
}
