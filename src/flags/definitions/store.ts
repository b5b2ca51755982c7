// Flag and cohort records in LMDB. Every write happens in one transaction with a bump of
// the project's definitions version, so a reader that sees an unchanged version has seen
// unchanged definitions (load.ts relies on it; /decide workers recompile when it moves).
import type { Store } from '../../store/env.js';
import type { StoredCohort, StoredFlag } from './types.js';

type Kind = 'flag' | 'cohort';

// Ids are global, as PostHog's are, so an id names one flag or cohort in any project.
function nextId(store: Store, kind: Kind): number {
  const n = (store.flagState.get(['seq', kind]) ?? 0) + 1;
  store.flagState.putSync(['seq', kind], n);
  return n;
}

function bumpVersion(store: Store, projectId: number): void {
  store.flagState.putSync(['version', projectId], definitionsVersion(store, projectId) + 1);
}

export function definitionsVersion(store: Store, projectId: number): number {
  return store.flagState.get(['version', projectId]) ?? 0;
}

function* range<T>(db: Store['flags'], projectId: number): Iterable<T> {
  for (const { value } of db.getRange({ start: [projectId, 0], end: [projectId + 1, 0] })) yield value as T;
}

// In id order, soft-deleted ones included.
export const projectFlags = (store: Store, projectId: number): StoredFlag[] => [...range<StoredFlag>(store.flags, projectId)];

export const flagById = (store: Store, projectId: number, id: number) => store.flags.get([projectId, id]) as StoredFlag | undefined;

export function insertFlag(store: Store, fields: Omit<StoredFlag, 'id'>): StoredFlag {
  return store.flags.transactionSync(() => {
    // PostHog frees a key for reuse by removing soft-deleted flags that hold it.
    for (const old of range<StoredFlag>(store.flags, fields.project_id)) {
      if (old.deleted && old.key === fields.key) store.flags.removeSync([old.project_id, old.id]);
    }
    const flag: StoredFlag = { id: nextId(store, 'flag'), ...fields };
    store.flags.putSync([flag.project_id, flag.id], flag);
    bumpVersion(store, flag.project_id);
    return flag;
  });
}

export function saveFlag(store: Store, flag: StoredFlag): void {
  store.flags.transactionSync(() => {
    store.flags.putSync([flag.project_id, flag.id], flag);
    bumpVersion(store, flag.project_id);
  });
}

export const projectCohorts = (store: Store, projectId: number): StoredCohort[] => [...range<StoredCohort>(store.cohorts, projectId)];

export const cohortById = (store: Store, projectId: number, id: number) => store.cohorts.get([projectId, id]) as StoredCohort | undefined;

// Static cohorts list their members by distinct id; adding one twice counts once.
function addMembers(store: Store, cohort: StoredCohort, distinctIds: readonly string[]): void {
  for (const distinctId of new Set(distinctIds)) {
    if (store.cohortMembers.get(['c', cohort.project_id, cohort.id, distinctId])) continue;
    store.cohortMembers.putSync(['c', cohort.project_id, cohort.id, distinctId], true);
    store.cohortMembers.putSync(['d', cohort.project_id, distinctId, cohort.id], true);
    cohort.member_count++;
  }
}

export function insertCohort(store: Store, fields: Omit<StoredCohort, 'id' | 'member_count'>, distinctIds: readonly string[] = []): StoredCohort {
  return store.cohorts.transactionSync(() => {
    const cohort: StoredCohort = { id: nextId(store, 'cohort'), ...fields, member_count: 0 };
    addMembers(store, cohort, distinctIds);
    store.cohorts.putSync([cohort.project_id, cohort.id], cohort);
    bumpVersion(store, cohort.project_id);
    return cohort;
  });
}

export function saveCohort(store: Store, cohort: StoredCohort, addDistinctIds: readonly string[] = []): StoredCohort {
  return store.cohorts.transactionSync(() => {
    const next = { ...cohort };
    addMembers(store, next, addDistinctIds);
    store.cohorts.putSync([next.project_id, next.id], next);
    bumpVersion(store, next.project_id);
    return next;
  });
}

/** The static cohorts any of these distinct ids belongs to (deleted cohorts included: the caller's definitions decide). */
export function staticCohortsOf(store: Store, projectId: number, distinctIds: readonly string[]): Set<number> {
  const out = new Set<number>();
  for (const distinctId of distinctIds) {
    for (const { key } of store.cohortMembers.getRange({ start: ['d', projectId, distinctId], end: ['d', projectId, distinctId, '\uffff'] })) {
      out.add(key[3] as number);
    }
  }
  return out;
}
