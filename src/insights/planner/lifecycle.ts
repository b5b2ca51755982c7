// LifecycleQuery → one statement. Per person, the intervals with an event (one interval of
// look-back before the range, so activity just before it counts): an active interval is
// "new" when it is the person's first one here and the person was created in it,
// "returning" when the person was active in the interval before, "resurrecting" otherwise;
// the interval after an active one without activity is "dormant" (reported negative). With
// aggregation_group_type_index the actors are the events' groups of that type (events without
// one left out), created when their first $groupidentify was (the groups table's created_at,
// as PostHog's lifecycle runner reads group_N.created_at; a group never identified is never new).
import type { LifecycleQuery } from '../schemas.js';
import { actorOf, eventsFrom, needsPersons, nodeEntity, nodeName, nodeUsesPersons, nodeWhere, refuseSeriesMath, queryPropertiesWhere, scopeWhere, toNumber, type Plan, type PlanContext } from './context.js';
import { addIntervals, dayLabel, dayString, isoWithOffset, localToUs, resolveRange } from './dates.js';
import { lifecycleSelect, literal, seriesEvent, writtenOrNone } from './hogql-text.js';
import { and, int, raw, sql, text } from './sql.js';
import { bucketOfDay, type Cell, type CellActors } from './cells.js';
import { QueryError } from './errors.js';
import { bucketSql, localUs } from './time-sql.js';

export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

export interface LifecycleItem {
  action: { id: string | number | null; name: string; type: 'events' | 'actions'; order: 0; math: 'total' };
  data: number[];
  count: number;
  labels: string[];
  days: string[];
  label: string;
  status: LifecycleStatus;
}

export interface LifecycleResult {
  results: LifecycleItem[];
  dateFrom: string;
  dateTo: string;
}

// `s`: each (interval, status, person) of the range and the interval before it.
function lifecycleCore(query: LifecycleQuery, ctx: PlanContext) {
  refuseSeriesMath(query.series, 'lifecycle');
  const interval = query.interval ?? 'day';
  const range = resolveRange(query.dateRange, interval, ctx);
  const node = query.series[0];
  const first = range.buckets[0];
  const last = range.buckets[range.buckets.length - 1];
  const fromUs = localToUs(range.segments, addIntervals(first.localMs, interval, -1));
  const toUs = localToUs(range.segments, addIntervals(last.localMs, interval, 1));
  const persons = needsPersons(ctx, query.properties) || nodeUsesPersons(node, ctx);
  const bucketOf = (column: string) => bucketSql(localUs(raw(column), range.segments, fromUs, toUs), interval, ctx.weekStart);

  const groupType = query.aggregation_group_type_index ?? null;
  const actor = actorOf(query);
  const creations = groupType === null
    ? sql`persons p ON p.project = ${ctx.projectId} AND p.id = a.pid`
    : sql`groups p ON p.project = ${ctx.projectId} AND p.type_index = ${int(groupType)} AND p.key = a.pid`;
  const ctes = sql`act AS (SELECT DISTINCT ${actor.id} AS pid, ${bucketOf('e.timestamp')} AS b FROM ${eventsFrom(persons)} WHERE ${and([
    ...scopeWhere(ctx, fromUs, toUs), ...actor.where, ...nodeWhere(node, ctx, 'series.0'), ...queryPropertiesWhere(query.properties, ctx),
  ])}),
l AS (SELECT a.pid, a.b, lag(a.b) OVER w AS prev, lead(a.b) OVER w AS nxt, ${bucketOf('p.created_at')} AS cb
  FROM act a LEFT JOIN ${creations} WINDOW w AS (PARTITION BY a.pid ORDER BY a.b)),
s AS (SELECT b, CASE WHEN prev IS NULL AND cb = b THEN 'new' WHEN prev = b - 1 THEN 'returning' ELSE 'resurrecting' END AS status, pid FROM l
  UNION ALL SELECT b + 1 AS b, 'dormant' AS status, pid FROM l WHERE nxt IS NULL OR nxt > b + 1)`;
  return { interval, range, node, first, last, fromUs, toUs, ctes, groupType };
}

/** The persons behind a lifecycle bar: those of `status` at interval `day`. */
export function lifecycleActors(query: LifecycleQuery, ctx: PlanContext, cell: Cell): CellActors {
  const { interval, range, ctes, groupType } = lifecycleCore(query, ctx);
  if (cell.status === null) throw new QueryError('status is required: new, returning, resurrecting or dormant', 'source.status');
  if (cell.day === null) throw new QueryError('day is required: the interval whose actors to list', 'source.day');
  const bucket = bucketOfDay(range.buckets, cell.day, interval, ctx.weekStart, 'source.day');
  return {
    sql: sql`WITH ${ctes} SELECT DISTINCT pid::VARCHAR AS actor FROM s WHERE b = ${int(bucket.id)} AND status = ${text(cell.status)}`,
    groupType, eventCount: false, appearances: false,
  };
}

export function planLifecycle(query: LifecycleQuery, ctx: PlanContext): Plan<LifecycleResult> {
  const { interval, range, node, first, last, fromUs, toUs, ctes, groupType } = lifecycleCore(query, ctx);
  const statement = sql`WITH ${ctes}
SELECT b, status, count(DISTINCT pid) AS n FROM s WHERE b BETWEEN ${int(first.id)} AND ${int(last.id)} GROUP BY ALL`;

  // The first and last periods as HogQL values: instants for hours, local dates otherwise.
  const periodValue = (localMs: number) => (interval === 'hour'
    ? `toDateTime(${literal(new Date(localToUs(range.segments, localMs) / 1000).toISOString())})`
    : `toDate(${literal(new Date(localMs).toISOString().slice(0, 10))})`);
  return {
    statements: [statement],
    hogql: writtenOrNone(() => lifecycleSelect({
      event: seriesEvent(node), properties: [node.properties, node.fixedProperties, query.properties], fromUs, toUs, valueSets: ctx.valueSets,
      interval, weekStart: ctx.weekStart, first: periodValue(first.localMs), last: periodValue(last.localMs), actorGroup: groupType,
    })),
    shape([rows]) {
      const index = new Map(range.buckets.map((b, i) => [b.id, i]));
      const labels = range.buckets.map((b) => dayLabel(b.localMs, interval === 'hour'));
      const days = range.buckets.map((b) => dayString(b.localMs, interval));
      const name = nodeName(node, ctx);
      const results = LIFECYCLE_STATUSES.map((status) => {
        const data = range.buckets.map(() => 0);
        for (const r of rows) {
          if (r.status !== status) continue;
          const i = index.get(toNumber(r.b));
          if (i !== undefined) data[i] = status === 'dormant' ? -toNumber(r.n) : toNumber(r.n);
        }
        return {
          action: { ...nodeEntity(node), name, order: 0 as const, math: 'total' as const },
          data, count: data.reduce((a, b) => a + b, 0), labels, days, label: `${name} - ${status}`, status,
        };
      });
      return { results, dateFrom: isoWithOffset(range.fromLocal, range.segments), dateTo: isoWithOffset(range.toLocal, range.segments) };
    },
  };
}
