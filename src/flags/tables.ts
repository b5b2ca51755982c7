// Feature flags' and cohorts' tables (./definitions/ reads and writes them).
import { table, type Tables } from '../store/index.js';

export const flagsTables = {
  // Feature flags and cohorts, [project_id, id] → record: a project's are one key range.
  flags: table<unknown, [number, number]>('flags'),
  cohorts: table<unknown, [number, number]>('cohorts'),
  // Static cohort membership both ways: ['d', project_id, distinct_id, cohort_id] and
  // ['c', project_id, cohort_id, distinct_id] → true.
  cohortMembers: table<true, (string | number)[]>('cohort_members'),
  // ['seq', kind] id sequences and ['version', project_id] flag definitions versions.
  flagState: table<number, (string | number)[]>('flag_state'),
};

export type FlagsTables = Tables<typeof flagsTables>;
