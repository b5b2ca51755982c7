// Reading flag and cohort records in LMDB; they are written through the management write
// path (./commands.ts), each write with a bump of the project's definitions version.
import type { FlagsTables } from '../tables.js';
import type { StoredCohort, StoredFlag } from './types.js';

export function definitionsVersion(store: FlagsTables, projectId: number): number {
  return store.flagState.get(['version', projectId]) ?? 0;
}

function* range<T>(db: FlagsTables['flags'], projectId: number): Iterable<T> {
  for (const { value } of db.getRange({ start: [projectId, 0], end: [projectId + 1, 0] })) yield value as T;
}

// A project's flags in id order, read lazily.
export const projectFlagsRange = (store: FlagsTables, projectId: number): Iterable<StoredFlag> => range<StoredFlag>(store.flags, projectId);

// In id order, soft-deleted ones included.
export const projectFlags = (store: FlagsTables, projectId: number): StoredFlag[] => [...range<StoredFlag>(store.flags, projectId)];

export const flagById = (store: FlagsTables, projectId: number, id: number) => store.flags.get([projectId, id]) as StoredFlag | undefined;

export const projectCohorts = (store: FlagsTables, projectId: number): StoredCohort[] => [...range<StoredCohort>(store.cohorts, projectId)];

export const cohortById = (store: FlagsTables, projectId: number, id: number) => store.cohorts.get([projectId, id]) as StoredCohort | undefined;

/** A static cohort's members (distinct ids), in key order. */
export function staticCohortMembers(store: FlagsTables, projectId: number, cohortId: number): string[] {
  const out: string[] = [];
  for (const { key } of store.cohortMembers.getRange({ start: ['c', projectId, cohortId], end: ['c', projectId, cohortId, '\uffff'] })) out.push(key[3] as string);
  return out;
}

/** The static cohorts any of these distinct ids belongs to (deleted cohorts included: the caller's definitions decide). */
export function staticCohortsOf(store: FlagsTables, projectId: number, distinctIds: readonly string[]): Set<number> {
  const out = new Set<number>();
  for (const distinctId of distinctIds) {
    for (const { key } of store.cohortMembers.getRange({ start: ['d', projectId, distinctId], end: ['d', projectId, distinctId, '\uffff'] })) {
      out.add(key[3] as number);
    }
  }
  return out;
}
