// Flag and cohort writes as commands (src/state/, docs/decisions/0015). Every write bumps
// the project's definitions version in its transaction, so a reader that sees an unchanged
// version has seen unchanged definitions (load.ts relies on it; /decide workers recompile
// when it moves). Ids are sequences the applier assigns, global as PostHog's are, so an id
// names one flag or cohort in any project.
import type { FlagsTables } from '../tables.js';
import { commandsOn, type StateWrites } from '../../state/index.js';
import { definitionsVersion, projectFlagsRange } from './store.js';
import type { StoredCohort, StoredFlag } from './types.js';

// The flag and cohort commands apply to the flags' tables.
const defineCommand = commandsOn<FlagsTables>();

type Kind = 'flag' | 'cohort';

function nextId(store: FlagsTables, kind: Kind): number {
  const n = (store.flagState.get(['seq', kind]) ?? 0) + 1;
  store.flagState.put(['seq', kind], n);
  return n;
}

function bumpVersion(store: FlagsTables, projectId: number): void {
  store.flagState.put(['version', projectId], definitionsVersion(store, projectId) + 1);
}

export const insertFlagCommand = defineCommand('flags.insert_flag', (store, fields: Omit<StoredFlag, 'id'>): StoredFlag => {
  // PostHog frees a key for reuse by removing soft-deleted flags that hold it.
  for (const old of projectFlagsRange(store, fields.project_id)) {
    if (old.deleted && old.key === fields.key) store.flags.remove([old.project_id, old.id]);
  }
  const flag: StoredFlag = { id: nextId(store, 'flag'), ...fields };
  store.flags.put([flag.project_id, flag.id], flag);
  bumpVersion(store, flag.project_id);
  return flag;
});

export const saveFlagCommand = defineCommand('flags.save_flag', (store, flag: StoredFlag): void => {
  store.flags.put([flag.project_id, flag.id], flag);
  bumpVersion(store, flag.project_id);
});

// Static cohorts list their members by distinct id; adding one twice counts once.
function addMembers(store: FlagsTables, cohort: StoredCohort, distinctIds: readonly string[]): void {
  for (const distinctId of new Set(distinctIds)) {
    if (store.cohortMembers.get(['c', cohort.project_id, cohort.id, distinctId])) continue;
    store.cohortMembers.put(['c', cohort.project_id, cohort.id, distinctId], true);
    store.cohortMembers.put(['d', cohort.project_id, distinctId, cohort.id], true);
    cohort.member_count++;
  }
}

export interface NewCohort {
  fields: Omit<StoredCohort, 'id' | 'member_count'>;
  distinct_ids: string[];
}

export const insertCohortCommand = defineCommand('flags.insert_cohort', (store, { fields, distinct_ids }: NewCohort): StoredCohort => {
  const cohort: StoredCohort = { id: nextId(store, 'cohort'), ...fields, member_count: 0 };
  addMembers(store, cohort, distinct_ids);
  store.cohorts.put([cohort.project_id, cohort.id], cohort);
  bumpVersion(store, cohort.project_id);
  return cohort;
});

export interface CohortSave {
  cohort: StoredCohort;
  add_distinct_ids: string[];
}

export const saveCohortCommand = defineCommand('flags.save_cohort', (store, { cohort, add_distinct_ids }: CohortSave): StoredCohort => {
  const next = { ...cohort };
  addMembers(store, next, add_distinct_ids);
  store.cohorts.put([next.project_id, next.id], next);
  bumpVersion(store, next.project_id);
  return next;
});

export interface CohortCalculation {
  project_id: number;
  id: number;
  /** The filters calculated (JSON): a cohort whose filters changed since stays due. */
  filters: string;
  /** Members, or null when the calculation failed. */
  count: number | null;
  at: string;
}

// A calculation's outcome. Not a definition: flags read no count, so the definitions version
// stays (the /decide workers do not recompile for it).
export const cohortCalculatedCommand = defineCommand('flags.cohort_calculated', (store, c: CohortCalculation): void => {
  const cohort = store.cohorts.get([c.project_id, c.id]) as StoredCohort | undefined;
  if (!cohort || cohort.deleted || cohort.is_static) return;
  const next: StoredCohort = { ...cohort };
  if (c.count === null) next.errors_calculating = (cohort.errors_calculating ?? 0) + 1;
  else Object.assign(next, { count: c.count, last_calculation: c.at, errors_calculating: 0 });
  if (JSON.stringify(cohort.filters) === c.filters) next.is_calculating = false;
  store.cohorts.put([next.project_id, next.id], next);
});

export const flagCommands = [insertFlagCommand, saveFlagCommand, insertCohortCommand, saveCohortCommand, cohortCalculatedCommand];

export const insertFlag = (writes: StateWrites, fields: Omit<StoredFlag, 'id'>) => writes.submit(insertFlagCommand, fields);
export const saveFlag = (writes: StateWrites, flag: StoredFlag) => writes.submit(saveFlagCommand, flag);
export const insertCohort = (writes: StateWrites, fields: Omit<StoredCohort, 'id' | 'member_count'>, distinctIds: readonly string[] = []) =>
  writes.submit(insertCohortCommand, { fields, distinct_ids: [...distinctIds] });
export const saveCohort = (writes: StateWrites, cohort: StoredCohort, addDistinctIds: readonly string[] = []) =>
  writes.submit(saveCohortCommand, { cohort, add_distinct_ids: [...addDistinctIds] });
export const recordCohortCalculation = (writes: StateWrites, calculation: CohortCalculation) => writes.submit(cohortCalculatedCommand, calculation);
