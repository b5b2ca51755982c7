// StickinessQuery → per series (and period when comparing) one statement: how many persons
// did the event in exactly 1, 2, … n of the range's n intervals (with stickinessCriteria:
// in intervals where they did it at least, at most or exactly that many times). A series with
// math unique_group counts its groups of math_group_type_index instead (events without one
// left out), as PostHog's stickiness runner does; its StickinessQuery has no
// aggregation_group_type_index; with math hogql the values of its math_hogql. With
// intervalCount, spans of that many days counted back from date_to. computedAs "cumulative" makes bar n those active in n
// intervals or more (its count still the actors counted once).
import type { SeriesNode, StickinessQuery } from '../schemas.js';
import { actorOf, eventsFrom, type Actor, needsPersons, nodeEntity, nodeName, nodeUsesPersons, nodeWhere, refuseSeriesMath, queryPropertiesWhere, scopeWhere, toNumber, type Plan, type PlanContext } from './context.js';
import { isoWithOffset, previousRange, resolveRange, shiftedRange, type ResolvedRange } from './dates.js';
import { seriesEvent, stickinessSelect, writtenOrNone, type StickinessActor, type StickinessSpans } from './hogql-text.js';
import { and, int, raw, sql, type Sql } from './sql.js';
import type { Cell, CellActors } from './cells.js';
import { QueryError } from './errors.js';
import { bucketSql, localUs, US_PER_DAY } from './time-sql.js';
import { groupTypeIndex } from './trends.js';
import { rowExpression } from './hogql-row.js';

export interface StickinessItem {
  count: number;
  data: number[];
  days: number[];
  label: string;
  labels: string[];
  action: { order: number; type: 'events' | 'actions'; name: string; id: string | number | null };
  compare?: boolean;
  compare_label?: 'current' | 'previous';
}

export interface StickinessResult {
  results: StickinessItem[];
  dateFrom: string;
  dateTo: string;
}

const CRITERIA_OPERATORS = { gte: '>=', lte: '<=', exact: '=' } as const;

interface Run { node: SeriesNode; order: number; range: ResolvedRange; previous: boolean }

function runsOf(query: StickinessQuery, ctx: PlanContext): Run[] {
  const range = resolveRange(query.dateRange, query.interval ?? 'day', ctx);
  const runs: Run[] = query.series.map((node, order) => ({ node, order, range, previous: false }));
  if (query.compareFilter?.compare === true) {
    const compareTo = query.compareFilter?.compare_to;
    const prev = compareTo ? shiftedRange(range, compareTo, ctx) : previousRange(range, ctx);
    runs.push(...query.series.map((node, order) => ({ node, order, range: prev, previous: true })));
  }
  return runs;
}

// intervalCount k (days only): PostHog counts whole days back from date_to (ClickHouse's
// age) and groups them k at a time, so bar n is n such k-day spans, ceil(days / k) of them.
// Other intervals keep the calendar's (their age differs from it): refused unless 1.
function intervalCountOf(query: StickinessQuery): number | null {
  const k = query.intervalCount;
  if (k === null || k === undefined) return null;
  if ((query.interval ?? 'day') !== 'day') {
    if (k === 1) return null;
    throw new QueryError('intervalCount is supported by hedgerow with the day interval', 'intervalCount');
  }
  return k;
}

// intervalCount's spans as the text says them: whole local days back from the range's end
// (undefined without intervalCount).
function spansOf(query: StickinessQuery, range: ResolvedRange): StickinessSpans | undefined {
  const k = intervalCountOf(query);
  if (k === null) return undefined;
  const dayMs = US_PER_DAY / 1000;
  return { days: k, lastDay: new Date(range.toLocal).toISOString().slice(0, 10), endMs: ((range.toLocal % dayMs) + dayMs) % dayMs };
}

/** How many bars a run has: its intervals, or its spans of intervalCount days. */
function barsOf(query: StickinessQuery, range: ResolvedRange): number {
  const k = intervalCountOf(query);
  return k === null ? range.buckets.length : Math.ceil(range.buckets.length / k);
}

/** The group type a series counts (math unique_group), or null for persons. */
function seriesGroupType(node: SeriesNode, order: number): number | null {
  return node.math === 'unique_group' ? groupTypeIndex(node, order) : null;
}

// What a series counts: persons, its groups (math unique_group), or with math hogql the
// values of its math_hogql over the events (PostHog aggregates by that expression; events
// without a value are not counted, as its count(DISTINCT) leaves NULL out).
function seriesActor(node: SeriesNode, order: number, ctx: PlanContext): { actor: Actor; persons: boolean } {
  if (node.math !== 'hogql') return { actor: actorOf({ aggregation_group_type_index: seriesGroupType(node, order) }), persons: false };
  const attr = `series.${order}.math_hogql`;
  const { expr, persons } = rowExpression(ctx, node.math_hogql ?? '', attr);
  if (expr.aggregate !== null) throw new QueryError(`math_hogql in stickiness is the value actors are told apart by, not an aggregate: ${node.math_hogql ?? ''}`, attr);
  return { actor: { id: sql`(${expr.sql})::VARCHAR`, where: [sql`(${expr.sql}) IS NOT NULL`] }, persons };
}

const SERIES_MATHS = ['unique_group', 'hogql'];

// The same, as the HogQL text says it.
function stickinessActor(node: SeriesNode, order: number): StickinessActor {
  if (node.math === 'hogql') return { kind: 'hogql', expression: node.math_hogql ?? '' };
  const group = seriesGroupType(node, order);
  return group === null ? { kind: 'person' } : { kind: 'group', index: group };
}

// `active` (actor, interval) and `act` (actor, n: intervals they were active in) of a run.
function activeCtes(query: StickinessQuery, { node, order, range: r }: Run, ctx: PlanContext): Sql {
  // An interval counts for a person when they did the event in it (PostHog's count() > 0),
  // or with stickinessCriteria a number of times that meets it.
  const criteria = query.stickinessFilter?.stickinessCriteria;
  const having = criteria ? sql`count(*) ${raw(CRITERIA_OPERATORS[criteria.operator])} ${int(criteria.value)}` : raw('count(*) > 0');
  const { actor, persons: actorPersons } = seriesActor(node, order, ctx);
  const persons = actorPersons || needsPersons(ctx, query.properties) || nodeUsesPersons(node, ctx);
  const local = localUs(raw('e.timestamp'), r.segments, r.fromUs, r.toUs);
  const k = intervalCountOf(query);
  const bucket = k === null ? bucketSql(local, query.interval ?? 'day', ctx.weekStart) : sql`(${int(Math.round(r.toLocal * 1000))} - ${local}) // ${int(US_PER_DAY)} // ${int(k)}`;
  return sql`active AS (SELECT ${actor.id} AS pid, ${bucket} AS b, count(*) AS events FROM ${eventsFrom(persons)} WHERE ${and([
    ...scopeWhere(ctx, r.fromUs, r.toUs), ...actor.where, ...nodeWhere(node, ctx, `series.${order}`), ...queryPropertiesWhere(query.properties, ctx),
  ])} GROUP BY pid, b HAVING ${having}),
act AS (SELECT pid, count(*) AS n, sum(events) AS events FROM active GROUP BY pid)`;
}

const isCumulative = (query: StickinessQuery) => query.stickinessFilter?.computedAs === 'cumulative';

/**
 * The persons behind a stickiness bar: those active in exactly `day` of the range's
 * intervals (cumulative: `day` or more), for one series and period; each with the events
 * of theirs it counted.
 */
export function stickinessActors(query: StickinessQuery, ctx: PlanContext, cell: Cell): CellActors {
  refuseSeriesMath(query.series, 'stickiness', SERIES_MATHS);
  if (cell.series >= query.series.length) throw new QueryError(`series ${cell.series} is not one of the insight's ${query.series.length}`, 'source.series');
  if (cell.previous && query.compareFilter?.compare !== true) throw new QueryError('The insight does not compare periods', 'source.compare');
  const run = runsOf(query, ctx).find((r) => r.order === cell.series && r.previous === cell.previous)!;
  // Its values are neither persons nor groups: nothing to list them as.
  if (run.node.math === 'hogql') throw new QueryError('The actors of a series with math "hogql" are its expression\'s values, not persons or groups', 'source.series');
  const day = typeof cell.day === 'string' && /^[0-9]+$/.test(cell.day) ? Number(cell.day) : cell.day;
  const bars = barsOf(query, run.range);
  if (typeof day !== 'number' || day < 1 || day > bars) {
    throw new QueryError(`day must be the number of intervals, 1 to ${bars}`, 'source.day');
  }
  return {
    sql: sql`WITH ${activeCtes(query, run, ctx)} SELECT pid::VARCHAR AS actor, events AS event_count FROM act WHERE n ${raw(isCumulative(query) ? '>=' : '=')} ${int(day)}`,
    groupType: seriesGroupType(run.node, run.order), eventCount: true, appearances: false,
  };
}

export function planStickiness(query: StickinessQuery, ctx: PlanContext): Plan<StickinessResult> {
  refuseSeriesMath(query.series, 'stickiness', SERIES_MATHS);
  const interval = query.interval ?? 'day';
  const runs = runsOf(query, ctx);
  const range = runs[0].range;
  const compare = query.compareFilter?.compare === true;
  const criteria = query.stickinessFilter?.stickinessCriteria;
  const statements = runs.map((run) => sql`WITH ${activeCtes(query, run, ctx)}
SELECT n, count(*) AS persons FROM act GROUP BY n`);
  const counted = criteria ? `count() ${CRITERIA_OPERATORS[criteria.operator]} ${criteria.value}` : 'count() > 0';
  return {
    statements,
    hogql: writtenOrNone(() => runs.map(({ node, order, range: r }) => stickinessSelect({
      event: seriesEvent(node), properties: [node.properties, node.fixedProperties, query.properties], fromUs: r.fromUs, toUs: r.toUs,
      valueSets: ctx.valueSets, interval, weekStart: ctx.weekStart, counted, actor: stickinessActor(node, order), spans: spansOf(query, r),
    })).join(' UNION ALL ')),
    shape(results) {
      const items = runs.map((run, k) => {
        const size = barsOf(query, run.range);
        const data = new Array<number>(size).fill(0);
        for (const r of results[k]) {
          const n = toNumber(r.n);
          if (n >= 1 && n <= size) data[n - 1] = toNumber(r.persons);
        }
        const days = Array.from({ length: size }, (_, i) => i + 1);
        const name = nodeName(run.node, ctx);
        const cumulative = isCumulative(query);
        const shown = cumulative ? data.map((_, i) => data.slice(i).reduce((a, b) => a + b, 0)) : data;
        const item: StickinessItem = {
          count: data.reduce((a, b) => a + b, 0), data: shown, days, label: name,
          labels: days.map((d) => `${d} ${interval}${d === 1 ? '' : 's'}${cumulative ? ' or more' : ''}`),
          action: { order: run.order, ...nodeEntity(run.node), name },
        };
        if (compare) {
          item.compare = true;
          item.compare_label = run.previous ? 'previous' : 'current';
        }
        return item;
      });
      return { results: items, dateFrom: isoWithOffset(range.fromLocal, range.segments), dateTo: isoWithOffset(range.toLocal, range.segments) };
    },
  };
}
