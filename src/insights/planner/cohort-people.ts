// The query's cohorts as HogQL reads them (`IN COHORT`, inCohort, the cohort_people table):
// each cohort's members worked out when the query runs (planner/properties.ts
// cohortMembersSql), from the project's own persons and events.
import type { HogQLCohorts } from './hogql/expr.js';
import { cohortMembersSql, type PropertyContext } from './properties.js';
import { int, join, raw, sql } from './sql.js';

export function hogqlCohorts(ctx: PropertyContext): HogQLCohorts {
  const byName = (name: string) => [...ctx.cohorts.values()].find((c) => c.name === name);
  return {
    members(ref) {
      const cohort = typeof ref === 'number' ? ctx.cohorts.get(ref) : byName(ref);
      return cohort === undefined ? null : cohortMembersSql(cohort.id, ctx, `cohort ${cohort.id}`);
    },
    people() {
      const parts = [...ctx.cohorts.keys()].sort((a, b) => a - b)
        .map((id) => sql`SELECT ${int(id)}::INTEGER AS cohort_id, m.person_id FROM (${cohortMembersSql(id, ctx, `cohort ${id}`)}) m`);
      return parts.length === 0 ? raw('SELECT NULL::INTEGER AS cohort_id, NULL::UUID AS person_id WHERE FALSE') : join(parts, ' UNION ALL ');
    },
  };
}
