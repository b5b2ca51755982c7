// The flag as PostHog's API shows it. Cohort filters carry the cohort's name
// (`cohort_name`) as PostHog adds it; product links hedgerow does not have are empty.
import { type TenancyStore, userBasic } from '../../access/index.js';
import type { FlagFiltersDefinition } from '../types.js';
import { cohortIdOf } from '../definitions/cohort-refs.js';
import type { StoredCohort, StoredFlag } from '../definitions/types.js';

function withCohortNames(filters: FlagFiltersDefinition, cohorts: ReadonlyMap<number, StoredCohort>): FlagFiltersDefinition {
  if (!filters.groups?.some((g) => g.properties?.some((p) => p.type === 'cohort'))) return filters;
  const name = (value: unknown) => {
    const id = cohortIdOf(value);
    return (id === undefined ? undefined : cohorts.get(id)?.name) ?? null;
  };
  return {
    ...filters,
    groups: filters.groups.map((g) => ({
      ...g,
      properties: g.properties?.map((p) => (p.type === 'cohort' ? { ...p, cohort_name: name(p.value) } : p)),
    })),
  };
}

export function flagResponse(flag: StoredFlag, tenancy: TenancyStore, cohorts: ReadonlyMap<number, StoredCohort>) {
  const user = (id: number | null) => {
    const u = id === null ? undefined : tenancy.user(id);
    return u ? userBasic(u) : null;
  };
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters: withCohortNames(flag.filters, cohorts),
    deleted: flag.deleted,
    active: flag.active,
    created_by: user(flag.created_by),
    created_at: flag.created_at,
    updated_at: flag.updated_at,
    version: flag.version,
    last_modified_by: user(flag.last_modified_by),
    ensure_experience_continuity: flag.ensure_experience_continuity,
    experiment_set: [],
    surveys: [],
    features: [],
    tags: [],
    evaluation_tags: [],
    is_remote_configuration: false,
    has_encrypted_payloads: false,
    evaluation_runtime: flag.evaluation_runtime,
    bucketing_identifier: flag.bucketing_identifier,
  };
}
