// The cohort as PostHog's API shows it. A dynamic cohort's count, last calculation, errors
// and whether it is calculating are the insights domain's (src/insights/cohorts/); a static
// cohort's count is its members.
import { type TenancyStore, userBasic } from '../../access/index.js';
import type { StoredCohort } from '../definitions/types.js';

export function cohortResponse(c: StoredCohort, tenancy: TenancyStore) {
  const creator = c.created_by === null ? undefined : tenancy.user(c.created_by);
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    groups: [],
    deleted: c.deleted,
    filters: c.filters,
    query: null,
    is_calculating: c.is_calculating ?? false,
    created_by: creator ? userBasic(creator) : null,
    created_at: c.created_at,
    last_calculation: c.last_calculation ?? null,
    errors_calculating: c.errors_calculating ?? 0,
    count: c.is_static ? c.member_count : c.count ?? null,
    is_static: c.is_static,
    experiment_set: [],
  };
}
