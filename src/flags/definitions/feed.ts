// The local-evaluation feed body, as PostHog builds it for server SDKs: every undeleted
// flag (inactive ones too: SDKs must know a dependency is off rather than missing), the
// project's group types, and with `send_cohorts` the dynamic cohorts the flags need.
// Without it, single-cohort flags are rewritten into person filters and no cohorts are
// sent. Static cohorts never travel: membership is known only to the server. Pure.
import type { FlagFiltersDefinition, PropertyGroupDefinition } from '../types.js';
import { cohortsNeeded } from './cohort-refs.js';
import { withDependencyChains } from './dependencies.js';
import { expandSingleCohort } from './expansion.js';
import type { StoredCohort, StoredFlag } from './types.js';

export interface FeedFlag {
  id: number;
  team_id: number;
  name: string;
  key: string;
  filters: FlagFiltersDefinition;
  deleted: boolean;
  active: boolean;
  ensure_experience_continuity: boolean;
  has_encrypted_payloads: boolean;
  version: number;
  evaluation_runtime: string | null;
  bucketing_identifier: string | null;
  evaluation_tags: string[];
}

export interface FeedBody {
  flags: FeedFlag[];
  group_type_mapping: Record<string, string>;
  cohorts: Record<string, PropertyGroupDefinition>;
}

export interface FeedInput {
  /** The project's undeleted flags, in id order. */
  flags: readonly StoredFlag[];
  /** The project's undeleted cohorts by id. */
  cohorts: ReadonlyMap<number, StoredCohort>;
  groupTypeMapping: Record<string, string>;
  sendCohorts: boolean;
}

export function feedBody({ flags, cohorts, groupTypeMapping, sendCohorts }: FeedInput): FeedBody {
  const sent: Record<string, PropertyGroupDefinition> = {};
  const prepared = flags.map((flag) => {
    if (!sendCohorts) return { ...flag, filters: { ...flag.filters, groups: expandSingleCohort(flag.filters, cohorts) } };
    for (const id of cohortsNeeded(flag.filters, cohorts)) {
      const cohort = cohorts.get(id)!;
      if (!cohort.is_static) sent[String(id)] = cohort.filters.properties;
    }
    return flag;
  });
  return {
    flags: withDependencyChains(prepared).map((f) => ({
      id: f.id, team_id: f.project_id, name: f.name, key: f.key, filters: f.filters, deleted: f.deleted, active: f.active,
      ensure_experience_continuity: f.ensure_experience_continuity, has_encrypted_payloads: false, version: f.version,
      evaluation_runtime: f.evaluation_runtime, bucketing_identifier: f.bucketing_identifier, evaluation_tags: [],
    })),
    group_type_mapping: groupTypeMapping,
    cohorts: sent,
  };
}
