// Trends math first_time_for_user and first_matching_event_for_user (PostHog's): each person
// counts once, in the interval of their first event of the series' event (or action) up to
// the range's end, over all their history: first_time_for_user when that very event is in
// the range and meets the filters (the series' and the query's properties);
// first_matching_event_for_user when their first event that meets the filters is in the range.
import type { SeriesNode, TrendsQuery } from '../schemas.js';
import { eventsFrom, needsPersons, nodeEventWhere, nodePropertiesWhere, nodeUsesPersons, queryPropertiesWhere, type PlanContext } from './context.js';
import type { ResolvedRange } from './dates.js';
import { QueryError } from './errors.js';
import { and, raw, sql, timestamp, type Sql } from './sql.js';

export const FIRST_TIME_MATHS: ReadonlySet<string> = new Set(['first_time_for_user', 'first_matching_event_for_user']);

/** The range's start at the start of its first interval (PostHog's adjusted date_from). */
const startOf = (range: ResolvedRange) => Math.min(range.fromUs, range.buckets[0]?.startUs ?? range.fromUs);

/**
 * CTE body: per counted person (pid) the instant of the event that counts them (t), for a
 * run of the series. Refuses what it would not answer as PostHog does.
 */
// What this reads of a trends series' run (./trends.ts SeriesRun).
interface Run {
  node: SeriesNode;
  order: number;
  range: ResolvedRange;
}

export function firstTimeBase(query: TrendsQuery, run: Run, ctx: PlanContext): Sql {
  const attr = `series.${run.order}`;
  if (query.breakdownFilter?.breakdown != null || (query.breakdownFilter?.breakdowns?.length ?? 0) > 0) {
    throw new QueryError(`math "${run.node.math}" is not supported by hedgerow with a breakdown`, 'breakdownFilter');
  }
  if (query.aggregation_group_type_index !== null && query.aggregation_group_type_index !== undefined) {
    throw new QueryError(`math "${run.node.math}" counts persons: not supported with aggregation_group_type_index`, 'aggregation_group_type_index');
  }
  const event = nodeEventWhere(run.node, ctx, attr);
  const filters = and([...nodePropertiesWhere(run.node, ctx, attr), ...queryPropertiesWhere(query.properties, ctx)]);
  const persons = needsPersons(ctx, query.properties) || nodeUsesPersons(run.node, ctx);
  const first = run.node.math === 'first_matching_event_for_user' ? sql`min(e.timestamp) FILTER (WHERE ${filters})` : raw('min(e.timestamp)');
  const where = [sql`e.project = ${ctx.projectId}`, sql`e.timestamp < ${timestamp(run.range.toUs)}`, ...(event ? [event] : [])];
  return sql`SELECT e.person_id AS pid, ${first} AS t FROM ${eventsFrom(persons)} WHERE ${and(where)}
GROUP BY e.person_id HAVING ${first} = min(e.timestamp) FILTER (WHERE e.timestamp >= ${timestamp(startOf(run.range))} AND ${filters})`;
}
