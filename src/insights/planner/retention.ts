// RetentionQuery → one statement. Cohorts are the periods of the date range, or without a
// date_from the last `totalIntervals` periods up to the one holding date_to (default today): a person belongs to a period's cohort when they did
// the target event in it (recurring) or did it for the first time ever in it (first time).
// Value k of a cohort counts its persons who did the returning event k periods later;
// value 0 is the cohort's size. Every row has totalIntervals values (PostHog's lookahead, also
// with a date range of another length), periods after the range 0.
import type { RetentionEntityValue, RetentionQuery, SeriesNode } from '../schemas.js';
import { breakdownOf, breakdownUsesPersons, BREAKDOWN_OTHER, refuseTrendsOnlyParts } from './breakdown.js';
import { cellBreakdownValue, type Cell, type CellActors } from './cells.js';
import { actorOf, eventsFrom, needsPersons, nodeUsesPersons, nodeWhere, queryPropertiesWhere, toNumber, type Plan, type PlanContext } from './context.js';
import { addIntervals, bucketId, isoWithOffset, localToUs, resolveRange, truncateLocal, zoneSegments, type Interval } from './dates.js';
import { QueryError } from './errors.js';
import { cohortValues, literal, retentionSelect, seriesEvent, writtenOrNone } from './hogql-text.js';
import { and, int, raw, sql, text, timestamp, type Sql } from './sql.js';
import { bucketSql, localUs } from './time-sql.js';

export interface RetentionRow {
  values: { count: number; label: string }[];
  label: string;
  date: string;
  breakdown_value: string | null;
}

export interface RetentionResult {
  results: RetentionRow[];
  dateFrom: string;
  dateTo: string;
}

const PERIODS: Record<string, Interval> = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' };
const ALL_USERS = '0';

// An entity as a series node: an action's (type or kind says so), or events of one name (its
// id; null: every event); without an id, the fallback's events (the target's default,
// $pageview; the returning entity's, the target's) with the entity's own properties.
function entityNode(entity: RetentionEntityValue | null | undefined, fallback: SeriesNode, attr: string): SeriesNode {
  if (entity === undefined || entity === null || entity.id === undefined) {
    const properties = entity?.properties;
    return fallback.kind === 'ActionsNode' ? { kind: 'ActionsNode', id: fallback.id, properties } : { event: fallback.event ?? null, properties };
  }
  if (entity.type === 'actions' || entity.kind === 'ActionsNode') {
    if (entity.id === null || !/^[1-9][0-9]{0,15}$/.test(String(entity.id))) throw new QueryError('An action entity needs the action\'s id', `${attr}.id`);
    return { kind: 'ActionsNode', id: String(entity.id), properties: entity.properties };
  }
  return { event: entity.id === null ? null : String(entity.id), properties: entity.properties };
}

// What makes two entities the same activity.
const identity = (node: SeriesNode) => [node.kind === 'ActionsNode' ? `action:${node.id}` : node.event ?? null, node.properties ?? null];

// The cohorts and returns as CTEs (target, cohort: pid and its period c, ret: pid and a
// period b it returned in), and what the plan and the actors' cell need of the range.
function retentionCore(query: RetentionQuery, ctx: PlanContext) {
  const f = query.retentionFilter;
  const periodName = f.period ?? 'Day';
  const interval = PERIODS[periodName];
  const firstTime = (f.retentionType ?? 'retention_first_time') === 'retention_first_time';

  // With a date_from, the cohorts are the periods of the date range (PostHog's rows, one per
  // interval in it); without one, the last totalIntervals periods up to date_to's.
  let firstStart: number;
  let lastStart: number;
  let total: number;
  // Events count up to date_to's end (PostHog's timestamp < date_to), not to the end of the
  // week or month holding it.
  let rangeEnd = Infinity;
  // Values per cohort: the periods looked ahead (totalIntervals), whatever the range's length.
  const lookahead = f.totalIntervals ?? 11;
  if (query.dateRange?.date_from) {
    const range = resolveRange(query.dateRange, interval, ctx);
    if (range.buckets.length === 0) throw new QueryError('dateRange.date_from is after dateRange.date_to', 'dateRange.date_from');
    firstStart = range.buckets[0].localMs;
    lastStart = range.buckets[range.buckets.length - 1].localMs;
    total = range.buckets.length;
    rangeEnd = range.toLocal + 1;
  } else {
    const anchor = resolveRange({ date_to: query.dateRange?.date_to, explicitDate: query.dateRange?.explicitDate }, interval, ctx);
    lastStart = truncateLocal(anchor.toLocal, interval, ctx.weekStart);
    total = lookahead;
    firstStart = addIntervals(lastStart, interval, -(total - 1));
  }
  const endLocal = Math.min(addIntervals(lastStart, interval, 1), rangeEnd);
  const earliest = firstTime ? Math.min(ctx.firstEventMs ?? firstStart, firstStart) : firstStart;
  const segments = zoneSegments(ctx, earliest - 86_400_000, endLocal + 86_400_000);
  const startUs = localToUs(segments, firstStart);
  const endUs = localToUs(segments, endLocal);
  const starts = Array.from({ length: total }, (_, i) => addIntervals(firstStart, interval, i));
  const firstId = bucketId(firstStart, interval, ctx.weekStart);
  const lastId = bucketId(lastStart, interval, ctx.weekStart);

  const target = entityNode(f.targetEntity, { event: '$pageview' }, 'retentionFilter.targetEntity');
  const returning = entityNode(f.returningEntity, target, 'retentionFilter.returningEntity');
  const breakdown = breakdownOf(query.breakdownFilter, ctx);
  if (breakdown && breakdown.parts.length > 1) throw new QueryError('Retention breaks down by one property', 'breakdownFilter.breakdowns');
  refuseTrendsOnlyParts(breakdown);
  const persons = needsPersons(ctx, query.properties) || nodeUsesPersons(target, ctx) || nodeUsesPersons(returning, ctx) || breakdownUsesPersons(breakdown);
  // With a breakdown, PostHog follows each (person, value) on its own, over the events that
  // carry the value (a missing one is ""): the pair is the unit counted.
  // A cohort breakdown is PostHog's retention run once per cohort over its persons' events,
  // the value the cohort's id: an event is followed once for each listed cohort its person
  // is in (the breakdown's list unnested, in an inner select).
  const byCohort = breakdown?.source === 'cohort';
  const value = !breakdown ? null : byCohort ? raw('bv') : sql`coalesce(${breakdown.text}, '')`;
  const actor = actorOf(query);
  const unit = value ? sql`${byCohort ? raw('a') : actor.id}::VARCHAR || chr(31) || ${value}` : actor.id;
  const bv = value ? raw(', bv') : raw('');
  const local = localUs(raw('e.timestamp'), segments, firstTime ? (ctx.firstEventMs ?? firstStart) * 1000 - 86_400_000_000 : startUs, endUs);
  const bucket = bucketSql(local, interval, ctx.weekStart);
  // `every`: one row per event (to count them), not per person and period.
  const scan = (node: SeriesNode, attr: string, fromUs: number | null, every = false): Sql => {
    const where = and([
      sql`e.project = ${ctx.projectId}`,
      ...(fromUs === null ? [] : [sql`e.timestamp >= ${timestamp(fromUs)}`]),
      sql`e.timestamp < ${timestamp(endUs)}`,
      ...actor.where,
      ...nodeWhere(node, ctx, attr),
      ...queryPropertiesWhere(query.properties, ctx),
    ]);
    const distinct = every ? raw('') : raw('DISTINCT ');
    if (byCohort) return sql`SELECT ${distinct}${unit} AS pid, b, bv FROM (SELECT ${actor.id} AS a, ${bucket} AS b, ${breakdown!.text} AS bv FROM ${eventsFrom(persons)} WHERE ${where})`;
    return sql`SELECT ${distinct}${unit} AS pid, ${bucket} AS b${value ? sql`, ${value} AS bv` : raw('')} FROM ${eventsFrom(persons)} WHERE ${where}`;
  };

  const cohort = firstTime
    ? sql`SELECT pid, min(b) AS c${value ? raw(', any_value(bv) AS bv') : raw('')} FROM target GROUP BY pid HAVING min(b) BETWEEN ${int(firstId)} AND ${int(lastId)}`
    : sql`SELECT pid, b AS c${bv} FROM target WHERE b BETWEEN ${int(firstId)} AND ${int(lastId)}`;
  // The returning activity is the target's when both name the same events (recurring: the
  // very rows; first time: those of the range).
  const same = JSON.stringify(identity(target)) === JSON.stringify(identity(returning));
  // minimumOccurrences: a period counts as a return only with that many returning events in it.
  const minimum = f.minimumOccurrences ?? 1;
  const ret = minimum > 1
    ? sql`SELECT pid, b FROM (${scan(returning, 'retentionFilter.returningEntity', startUs, true)}) GROUP BY pid, b HAVING count(*) >= ${int(minimum)}`
    : same
      ? (firstTime ? sql`SELECT pid, b FROM target WHERE b >= ${int(firstId)}` : raw('SELECT pid, b FROM target'))
      : scan(returning, 'retentionFilter.returningEntity', startUs);
  // (pid, c) and (pid, b) are distinct pairs, so each joined row is one person returning.
  const coBv = value ? raw(', co.bv') : raw('');
  const joinRet = sql`JOIN ret r ON r.pid = co.pid AND r.b > co.c AND r.b < co.c + ${int(lookahead)}`;
  const joined = sql`FROM cohort co ${joinRet}`;
  const ctes = sql`target AS MATERIALIZED (${scan(target, 'retentionFilter.targetEntity', firstTime ? null : startUs)}),
cohort AS MATERIALIZED (${cohort}),
ret AS (${ret})`;
  return { f, periodName, interval, firstTime, lookahead, total, firstStart, lastStart, endLocal, segments, startUs, endUs, starts, target, returning, breakdown, value, bv, coBv, joined, joinRet, ctes, minimum };
}

/**
 * The actors of one cohort (`interval`: its row), of one breakdown value when given, each
 * with the periods they came back in (0, the cohort's own, first): those with k among
 * their appearances are the ones counted in the row's value k.
 */
export function retentionActors(query: RetentionQuery, ctx: PlanContext, cell: Cell): CellActors {
  const { starts, interval, breakdown, value, joinRet, ctes } = retentionCore(query, ctx);
  if (cell.interval === null) throw new QueryError('interval is required: the cohort (row) whose actors to list', 'source.interval');
  const start = starts[cell.interval];
  if (start === undefined) throw new QueryError(`interval must be 0 to ${starts.length - 1}: the insight's cohorts`, 'source.interval');
  const where: Sql[] = [sql`co.c = ${int(bucketId(start, interval, ctx.weekStart))}`];
  const given = cellBreakdownValue(breakdown, cell.breakdown, 'source.breakdown');
  const asked = breakdown?.source === 'cohort' && given === ALL_USERS ? 'all' : given;
  if (asked === BREAKDOWN_OTHER) {
    // The values past breakdown_limit by cohort sizes summed, as the result folds them.
    where.push(sql`co.bv NOT IN (SELECT bv FROM cohort GROUP BY bv ORDER BY count(*) DESC, bv LIMIT ${int(breakdown!.limit)})`);
  } else if (asked !== null) {
    where.push(sql`co.bv = ${text(asked)}`);
  }
  // With a breakdown the unit followed is "actor chr(31) value".
  const actor = value ? raw('split_part(co.pid, chr(31), 1)') : raw('co.pid::VARCHAR');
  return {
    sql: sql`WITH ${ctes}
SELECT ${actor} AS actor, list_concat([0], list_sort(list_distinct(list(r.b - co.c)))) AS appearances
FROM cohort co LEFT ${joinRet} WHERE ${and(where)} GROUP BY ALL`,
    groupType: query.aggregation_group_type_index ?? null, eventCount: false, appearances: true,
  };
}

export function planRetention(query: RetentionQuery, ctx: PlanContext): Plan<RetentionResult> {
  const { f, periodName, interval, firstTime, lookahead, firstStart, lastStart, endLocal, segments, startUs, endUs, starts, target, returning, breakdown, value, bv, coBv, joined, ctes, minimum } = retentionCore(query, ctx);
  const returns = sql`SELECT co.c, r.b - co.c AS k, count(*) AS n${coBv} ${joined} GROUP BY ALL`;
  // Cumulative (PostHog's): a person counts in every period up to their furthest return.
  const cumulativeReturns = sql`SELECT c, t.k, count(*) AS n${bv} FROM (SELECT co.pid, co.c, max(r.b - co.c) AS m${coBv} ${joined} GROUP BY ALL) x, range(1, ${int(lookahead)}) t(k) WHERE t.k <= x.m GROUP BY ALL`;
  const statement = sql`WITH ${ctes}
SELECT c, 0 AS k, count(*) AS n${bv} FROM cohort GROUP BY ALL
UNION ALL
${f.cumulative ? cumulativeReturns : returns}`;

  // The first and last cohort periods as HogQL values: instants for hours, local dates otherwise.
  const periodValue = (localMs: number) => (interval === 'hour'
    ? `toDateTime(${literal(new Date(localToUs(segments, localMs) / 1000).toISOString())})`
    : `toDate(${literal(new Date(localMs).toISOString().slice(0, 10))})`);
  // Groups of a type where the query counts them: the event's key of that type, events without one left out.
  const groupType = query.aggregation_group_type_index ?? null;
  const actor = groupType === null ? 'person_id' : `$group_${groupType}`;
  const properties = (node: typeof target) => [node.properties, query.properties, ...(groupType === null ? [] : [[{ type: 'hogql', key: `${actor} != ''` }]])];
  return {
    statements: [statement],
    hogql: writtenOrNone(() => retentionSelect({
      // First time: the target's whole history (from the project's first event) decides the cohort.
      target: { event: seriesEvent(target), properties: properties(target), fromUs: firstTime ? (ctx.firstEventMs ?? firstStart) * 1000 - 86_400_000_000 : startUs, toUs: endUs, valueSets: ctx.valueSets },
      returning: { event: seriesEvent(returning), properties: properties(returning), fromUs: startUs, toUs: endUs, valueSets: ctx.valueSets, minimum },
      firstTime, interval, weekStart: ctx.weekStart, first: periodValue(firstStart), last: periodValue(lastStart), lookahead, cumulative: f.cumulative === true,
      breakdown: breakdown === null ? null : { breakdown, cohorts: breakdown.source === 'cohort' ? cohortValues(breakdown) : null }, actor,
    })),
    shape([rows]) {
      // Per breakdown value (one '' without a breakdown): cohort and period → persons.
      const counts = new Map<string, Map<string, number>>();
      const add = (v: string, key: string, n: number) => {
        let m = counts.get(v);
        if (m === undefined) counts.set(v, (m = new Map()));
        m.set(key, (m.get(key) ?? 0) + n);
      };
      for (const r of rows) add(value ? String(r.bv) : '', `${toNumber(r.c)}:${toNumber(r.k)}`, toNumber(r.n));
      const rowsOf = (m: Map<string, number> | undefined, breakdownValue: string | null): RetentionRow[] => starts.map((start, i) => {
        const id = bucketId(start, interval, ctx.weekStart);
        return {
          values: Array.from({ length: lookahead }, (_, k) => ({ count: m?.get(`${id}:${k}`) ?? 0, label: `${periodName} ${k}` })),
          label: `${periodName} ${i}`,
          date: isoWithOffset(start, segments),
          breakdown_value: breakdownValue,
        };
      });
      let results: RetentionRow[];
      if (!breakdown) {
        results = rowsOf(counts.get(''), null);
      } else {
        // PostHog's order: values by cohort sizes summed (larger first, then by value), the
        // top breakdown_limit kept and the others summed into "other", last.
        const totals = [...counts].map(([v, m]) => ({ v, total: [...m].reduce((sum, [key, n]) => (key.endsWith(':0') ? sum + n : sum), 0) }));
        totals.sort((a, b) => b.total - a.total || (a.v < b.v ? -1 : a.v > b.v ? 1 : 0));
        const kept = totals.slice(0, breakdown.limit);
        const others = totals.slice(breakdown.limit);
        // A cohort's value is its id as text; all users' is PostHog's ALL_USERS_COHORT_ID, 0.
        const shown = (v: string) => (breakdown.source === 'cohort' && v === 'all' ? ALL_USERS : v);
        results = kept.flatMap(({ v }) => rowsOf(counts.get(v), shown(v)));
        if (others.length > 0) {
          const merged = new Map<string, number>();
          for (const { v } of others) for (const [key, n] of counts.get(v)!) merged.set(key, (merged.get(key) ?? 0) + n);
          results.push(...rowsOf(merged, BREAKDOWN_OTHER));
        }
      }
      return { results, dateFrom: isoWithOffset(firstStart, segments), dateTo: isoWithOffset(endLocal, segments) };
    },
  };
}
