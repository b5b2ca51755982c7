// Why a flag came out as it did, with PostHog's wording. When several conditions fail for
// different reasons the most informative one is reported: a higher rank wins, and on a
// tie the later condition.

import type { FlagReason, ReasonCode } from './types.js';

export const enum Rank {
  NoGroupType = 1,
  NoConditionMatch = 2,
  OutOfRolloutBound = 3,
  ConditionMatch = 4,
}

const DESCRIPTIONS: Readonly<Record<ReasonCode, string>> = {
  super_condition_value: 'Super condition value',
  holdout_condition_value: 'Holdout condition value',
  condition_match: 'Matched condition set',
  out_of_rollout_bound: 'Out of rollout bound',
  no_condition_match: 'No matching condition set',
  no_group_type: 'No group type',
  flag_disabled: 'Feature flag is disabled',
  missing_dependency: 'Flag cannot be evaluated due to missing dependency',
  dependency_not_found_cohort: 'Cohort dependency not found',
  dependency_cycle_cohort: 'Cohort dependency cycle detected',
  hash_key_override_error: 'Failed to fetch hash key override for experience continuity',
};

const GROUPS_NOT_EVALUATED =
  'No matching condition set (group conditions were not evaluated because no group type was provided)';

export function reason(code: ReasonCode, conditionIndex: number | null): FlagReason {
  const description =
    code === 'condition_match' ? `Matched condition set ${(conditionIndex ?? 0) + 1}` : DESCRIPTIONS[code];
  return Object.freeze({ code, condition_index: conditionIndex, description });
}

/** no_condition_match when person conditions failed and group conditions could not run. */
export function groupsNotEvaluated(conditionIndex: number | null): FlagReason {
  return Object.freeze({ code: 'no_condition_match', condition_index: conditionIndex, description: GROUPS_NOT_EVALUATED });
}

const RANK_CODES: Readonly<Record<Rank, ReasonCode>> = {
  [Rank.NoGroupType]: 'no_group_type',
  [Rank.NoConditionMatch]: 'no_condition_match',
  [Rank.OutOfRolloutBound]: 'out_of_rollout_bound',
  [Rank.ConditionMatch]: 'condition_match',
};

/** Every reason a condition can end with, built once so evaluation allocates none. */
export interface ConditionReasons {
  readonly byRank: readonly FlagReason[];
  readonly groupsNotEvaluated: FlagReason;
}

export function conditionReasons(conditionIndex: number | null): ConditionReasons {
  const byRank: FlagReason[] = [];
  for (const rank of [Rank.NoGroupType, Rank.NoConditionMatch, Rank.OutOfRolloutBound, Rank.ConditionMatch]) {
    byRank[rank] = reason(RANK_CODES[rank], conditionIndex);
  }
  return { byRank, groupsNotEvaluated: groupsNotEvaluated(conditionIndex) };
}
