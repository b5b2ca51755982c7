// FunnelsQuery (steps) → one statement: per person, each step-1 event starts a try; the try
// reaches the furthest step whose event follows in order within the conversion window, each
// next step taken as early as possible (which can only help the later ones), found with
// DuckDB's ASOF join instead of a scan per try. The person counts at the furthest step any
// of their tries reached; conversion times come from the first try that reached it.
//   ordered    next step: the person's first matching event after the previous step's
//   strict     next step: the person's very next event, which must match
//   unordered  a try starts at any step event; it reaches as many distinct steps as have an
//              event at or after it within the window
// Exclusions (./funnel-exclusions.ts) disqualify tries as PostHog's funnels do: a try is
// dropped when the first exclusion event after its step `from` comes before its step `to`
// (or, without an event for that step, before step `from` plus the window; unordered:
// after the try's start and before its last step). The person's other tries still count.
import type { FunnelsQuery, SeriesNode } from '../schemas.js';
import { breakdownOf, breakdownUsesPersons, breakdownValueOf, breakdownValueSql, BREAKDOWN_NULL, BREAKDOWN_OTHER, compareBreakdownValues, refuseTrendsOnlyParts, type Breakdown } from './breakdown.js';
import { cellBreakdownValue, type Cell, type CellActors } from './cells.js';
import { actorOf, eventsFrom, needsPersons, nodeEntity, nodeName, nodeUsesPersons, nodeWhere, refuseSeriesMath, queryPropertiesWhere, scopeWhere, toNumber, type Plan, type PlanContext, type Row } from './context.js';
import { isoWithOffset, resolveRange, type Interval, type ResolvedRange } from './dates.js';
import { funnelExclusions, type Exclusion } from './funnel-exclusions.js';
import { funnelSelect, seriesEvent, writtenOrNone, type FunnelBreakdownText, type FunnelText } from './hogql-text.js';
import { QueryError } from './errors.js';
import { and, int, join, or, raw, sql, text, type Sql } from './sql.js';

export interface FunnelStep {
  action_id: string | number | null;
  name: string | null;
  custom_name: string | null;
  order: number;
  people: never[];
  count: number;
  type: 'events' | 'actions';
  average_conversion_time: number | null;
  median_conversion_time: number | null;
  breakdown?: string | number | string[];
  breakdown_value?: string | number | string[];
}

/** funnelVizType time_to_convert's answer (./time-to-convert.ts): a histogram of conversion times. */
export interface TimeToConvertResult {
  bins: [number, number][];
  average_conversion_time: number | null;
}

/** funnelVizType trends' answer (./funnel-trends.ts): a conversion rate per entrance period. */
export interface FunnelTrendsItem {
  count: number;
  data: number[];
  days: string[];
  labels: string[];
  breakdown_value?: string | number | string[];
}

export interface FunnelResult {
  results: FunnelStep[] | FunnelStep[][] | TimeToConvertResult | FunnelTrendsItem[];
  dateFrom: string;
  dateTo: string;
}

const UNIT_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800, month: 2_592_000 };

const stepCol = (k: number) => raw(`s${k}`);
const timeCol = (k: number) => raw(`t${k}`);
const ordCol = (k: number) => raw(`n${k}`);
const exclusionCol = (i: number) => raw(`x${i}`);

function stepCondition(node: SeriesNode, ctx: PlanContext, index: number): Sql {
  return and(nodeWhere(node, ctx, `series.${index}`));
}

/**
 * A person's breakdown value by attribution, from the funnel events that have one: the
 * first (first_touch), the last (last_touch), or the first of one step's events (step).
 * Values at one instant (an arrayJoin's elements of one event, say) are taken in their
 * order, least first: ClickHouse's argMin leaves them to its row order.
 */
function personValueSql(attribution: string, attributionStep: number): Sql {
  switch (attribution) {
    case 'last_touch':
      return raw('arg_max(bvr, (ts, bvr)) FILTER (WHERE bvr IS NOT NULL)');
    case 'step':
      return sql`arg_min(bvr, (ts, bvr)) FILTER (WHERE bvr IS NOT NULL AND ${stepCol(attributionStep)})`;
    default:
      return raw('arg_min(bvr, (ts, bvr)) FILTER (WHERE bvr IS NOT NULL)');
  }
}

/**
 * Strict: c0…c{n-1}, a try per step-1 event, each next step the person's very next event
 * (by number) when it matches.
 */
function strictChain(steps: number): Sql {
  const ctes: Sql[] = [raw('c0 AS (SELECT pid, ts AS t0, n AS n0 FROM st0)')];
  for (let k = 1; k < steps; k++) {
    const carried = join(Array.from({ length: k }, (_, i) => sql`a.${timeCol(i)}`), ', ');
    ctes.push(sql`c${raw(String(k))} AS (SELECT a.pid, ${carried}, b.ts AS ${timeCol(k)}, b.n AS ${ordCol(k)} FROM c${raw(String(k - 1))} a LEFT JOIN st${raw(String(k))} b ON a.pid = b.pid AND b.n = a.${ordCol(k - 1)} + 1)`);
  }
  return join(ctes, ',\n');
}

/**
 * Ordered: a try per step-2 event, started at the latest step-1 event before it (the start
 * that leaves the most of the window), each later step the earliest matching event after
 * the previous one. Every chain of steps within the window is found this way, and there are
 * far fewer step-2 events than step-1 ones to start from (page views, say). With
 * `fromEntries`, a try per step-1 event instead: exclusions and the trends view's entrance
 * periods judge each try by its own start.
 */
function orderedChain(steps: number, fromEntries: boolean): Sql {
  const ctes: Sql[] = fromEntries
    ? [raw('c0 AS (SELECT pid, ts AS t0 FROM st0)'), raw('c1 AS (SELECT a.pid, a.t0, b.ts AS t1 FROM c0 a ASOF LEFT JOIN st1 b ON a.pid = b.pid AND b.ts > a.t0)')]
    : [raw('c1 AS (SELECT a.pid, b.ts AS t0, a.ts AS t1 FROM st1 a ASOF JOIN st0 b ON a.pid = b.pid AND a.ts > b.ts)')];
  for (let k = 2; k < steps; k++) {
    const carried = join(Array.from({ length: k }, (_, i) => sql`a.${timeCol(i)}`), ', ');
    ctes.push(sql`c${raw(String(k))} AS (SELECT a.pid, ${carried}, b.ts AS ${timeCol(k)} FROM c${raw(String(k - 1))} a ASOF LEFT JOIN st${raw(String(k))} b ON a.pid = b.pid AND b.ts > a.${timeCol(k - 1)})`);
  }
  return join(ctes, ',\n');
}

export interface FunnelCtes {
  /** Ending with `times` (pid, steps: the furthest step reached, a1…: step times) and, with a breakdown, `unit_value` (pid, bv). */
  ctes: Sql[];
  breakdown: Breakdown | null;
  allEvents: boolean;
  range: ResolvedRange;
  order: 'ordered' | 'strict' | 'unordered';
  windowUs: number;
  /** How a breakdown value is attributed to a person (with all_events: none, each value its own unit). */
  attribution: FunnelBreakdownText['attribution'];
  attributionStep: number;
}

export interface FunnelOptions {
  /** The trends view's interval: an hourly view's range starts at the hour, others at the day. */
  interval?: Interval;
  /** Every try keeps its start (t0), each step-1 event starting one (the trends view). */
  perEntry?: boolean;
}

/**
 * Ordered and strict: whether the try (columns of `a`) is disqualified, from the first
 * event of each exclusion after its step `from` (joined as x0, x1, …).
 */
function excludedSql(exclusions: Exclusion[], windowUs: number): Sql {
  return or(exclusions.map((x, i) => {
    const at = raw(`x${i}.ts`);
    return sql`coalesce(${at} < coalesce(a.${timeCol(x.to)}, a.${timeCol(x.from)} + ${int(windowUs)}), FALSE)`;
  }));
}

export function funnelCtes(query: FunnelsQuery, ctx: PlanContext, options: FunnelOptions = {}): FunnelCtes {
  const f = query.funnelsFilter ?? {};
  const steps = query.series.length;
  if (steps < 2) throw new QueryError('A funnel needs at least two steps', 'series');
  refuseSeriesMath(query.series, 'funnels');
  const order = f.funnelOrderType ?? 'ordered';
  const windowUs = (f.funnelWindowInterval ?? 14) * UNIT_SECONDS[f.funnelWindowIntervalUnit ?? 'day'] * 1_000_000;
  const range = resolveRange(query.dateRange, options.interval === 'hour' ? 'hour' : 'day', ctx);
  const exclusions = funnelExclusions(query, order);
  const breakdown = breakdownOf(query.breakdownFilter, ctx);
  refuseTrendsOnlyParts(breakdown);
  // A cohort breakdown: a person in several cohorts goes through the funnel once in each.
  const attribution = breakdown?.source === 'cohort' ? 'all_events' : f.breakdownAttributionType ?? 'first_touch';
  const attributionStep = f.breakdownAttributionValue ?? 0;
  if (attribution === 'step' && attributionStep >= steps) throw new QueryError('breakdownAttributionValue names no step', 'funnelsFilter.breakdownAttributionValue');

  const persons = needsPersons(ctx, query.properties) || [...query.series, ...exclusions.map((x) => x.node)].some((s) => nodeUsesPersons(s, ctx)) || breakdownUsesPersons(breakdown);
  const conditions = query.series.map((node, k) => stepCondition(node, ctx, k));
  const excluding = exclusions.map((x) => and(nodeWhere(x.node, ctx, x.attr)));
  const actor = actorOf(query);
  const cols: Sql[] = [sql`${actor.id} AS pid`, raw('epoch_us(e.timestamp) AS ts')];
  conditions.forEach((c, k) => cols.push(sql`coalesce(${c}, FALSE) AS ${stepCol(k)}`));
  excluding.forEach((c, i) => cols.push(sql`coalesce(${c}, FALSE) AS ${exclusionCol(i)}`));
  // Several properties: their JSON list (each absent one as the null label), never null itself.
  if (breakdown) cols.push(sql`${breakdown.multiple ? breakdownValueSql(breakdown) : breakdown.text} AS bvr`);
  const where = [...scopeWhere(ctx, range.fromUs, range.toUs), ...queryPropertiesWhere(query.properties, ctx), ...actor.where];
  // Strict funnels number every event of the person; the others only the step events.
  if (order !== 'strict') where.push(or([...conditions, ...excluding]));
  const ctes: Sql[] = [sql`ev0 AS (SELECT ${join(cols, ', ')} FROM ${eventsFrom(persons)} WHERE ${and(where)})`];

  if (breakdown) {
    if (attribution === 'all_events') {
      ctes.push(sql`ev1 AS (SELECT * EXCLUDE (bvr), coalesce(bvr, ${text(BREAKDOWN_NULL)}) AS bv FROM ev0)`);
      ctes.push(sql`top AS (SELECT bv FROM ev1 WHERE s0 GROUP BY bv ORDER BY count(DISTINCT pid) DESC, bv LIMIT ${int(breakdown.limit)})`);
    } else {
      // A person's value comes from step events, never from an exclusion's.
      const stepsOnly = exclusions.length > 0 ? sql` WHERE ${or(conditions.map((_, k) => stepCol(k)))}` : raw('');
      ctes.push(sql`pbv AS (SELECT pid, ${personValueSql(attribution, attributionStep)} AS bv FROM ev0${stepsOnly} GROUP BY pid)`);
      ctes.push(sql`ev1 AS (SELECT ev0.* EXCLUDE (bvr), coalesce(pbv.bv, ${text(BREAKDOWN_NULL)}) AS bv FROM ev0 JOIN pbv USING (pid))`);
      ctes.push(sql`top AS (SELECT coalesce(bv, ${text(BREAKDOWN_NULL)}) AS bv FROM pbv GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT ${int(breakdown.limit)})`);
    }
    ctes.push(sql`ev AS (SELECT * EXCLUDE (bv), CASE WHEN bv IN (SELECT bv FROM top) THEN bv ELSE ${text(BREAKDOWN_OTHER)} END AS bv FROM ev1)`);
  } else {
    ctes.push(raw('ev AS (SELECT * FROM ev0)'));
  }
  // A funnel is computed per person, or with all_events attribution per (person, value):
  // that pair then gets one key so every join below stays on one column.
  const key = breakdown && attribution === 'all_events' ? raw("e0.pid::VARCHAR || '|' || e0.bv") : raw('e0.pid');
  const stepList = join([...conditions.map((_, k) => stepCol(k)), ...excluding.map((_, i) => exclusionCol(i))], ', ');
  const value = breakdown ? raw(', bv') : raw('');
  if (order === 'strict') {
    // Strict funnels number the person's events; at one instant, earlier steps first.
    const ties = join(conditions.map((_, k) => sql`${stepCol(k)} DESC`), ', ');
    ctes.push(sql`ord AS (SELECT ${key} AS pid, ts, ${stepList}${value}, row_number() OVER (PARTITION BY ${key} ORDER BY ts, ${ties}) AS n FROM ev e0)`);
  } else {
    ctes.push(sql`ord AS (SELECT ${key} AS pid, ts, ${stepList}${value} FROM ev e0)`);
  }
  const numbered = order === 'strict' ? raw(', n') : raw('');
  for (let k = 0; k < steps; k++) ctes.push(sql`st${raw(String(k))} AS (SELECT pid, ts${numbered} FROM ord WHERE ${stepCol(k)})`);
  excluding.forEach((_, i) => ctes.push(sql`sx${raw(String(i))} AS (SELECT pid, ts FROM ord WHERE ${exclusionCol(i)})`));

  if (order === 'unordered') {
    ctes.push(sql`anchors AS (SELECT pid, ts AS t FROM ord WHERE ${or(conditions.map((_, k) => stepCol(k)))})`);
    let from = raw('anchors a');
    const hits: Sql[] = [];
    for (let k = 0; k < steps; k++) {
      const j = raw(`j${k}`);
      from = sql`${from} ASOF LEFT JOIN st${raw(String(k))} ${j} ON a.pid = ${j}.pid AND ${j}.ts >= a.t`;
      hits.push(sql`CASE WHEN ${j}.ts - a.t <= ${int(windowUs)} THEN ${j}.ts END`);
    }
    // Exclusions span the whole funnel here: from the try's start to its last step (every
    // step found, in or out of the window) or, missing one, to the end of the window.
    let excluded = raw('');
    if (exclusions.length > 0) {
      const found = join(Array.from({ length: steps }, (_, k) => raw(`j${k}.ts`)), ', ');
      const end = sql`CASE WHEN ${and(Array.from({ length: steps }, (_, k) => sql`j${raw(String(k))}.ts IS NOT NULL`))} THEN greatest(${found}) ELSE a.t + ${int(windowUs)} END`;
      exclusions.forEach((_, i) => { from = sql`${from} ASOF LEFT JOIN sx${raw(String(i))} x${raw(String(i))} ON a.pid = x${raw(String(i))}.pid AND x${raw(String(i))}.ts > a.t`; });
      excluded = sql`, ${or(exclusions.map((_, i) => sql`coalesce(x${raw(String(i))}.ts < ${end}, FALSE)`))} AS excluded`;
    }
    ctes.push(sql`hit AS (SELECT a.pid, list_sort(list_filter([${join(hits, ', ')}], x -> x IS NOT NULL)) AS times${excluded} FROM ${from})`);
    const kept = exclusions.length > 0 ? raw(' WHERE NOT excluded') : raw('');
    ctes.push(sql`tries AS (SELECT pid, len(times) AS steps, ${join(Array.from({ length: steps }, (_, k) => sql`times[${raw(String(k + 1))}] AS ${timeCol(k)}`), ', ')} FROM hit${kept})`);
  } else {
    const fromEntries = order === 'ordered' && (options.perEntry === true || exclusions.length > 0);
    ctes.push(order === 'strict' ? strictChain(steps) : orderedChain(steps, fromEntries));
    let last = raw(`c${steps - 1}`);
    if (exclusions.length > 0) {
      let from = sql`${last} a`;
      exclusions.forEach((x, i) => { from = sql`${from} ASOF LEFT JOIN sx${raw(String(i))} x${raw(String(i))} ON a.pid = x${raw(String(i))}.pid AND x${raw(String(i))}.ts > a.${timeCol(x.from)}`; });
      ctes.push(sql`kept AS (SELECT a.* FROM ${from} WHERE NOT (${excludedSql(exclusions, windowUs)}))`);
      last = raw('kept');
    }
    const reached = Array.from({ length: steps - 1 }, (_, i) => sql`coalesce(${timeCol(i + 1)} - t0 <= ${int(windowUs)}, FALSE)::INTEGER`);
    const times = join(Array.from({ length: steps }, (_, k) => timeCol(k)), ', ');
    const chained = sql`SELECT pid, 1 + ${join(reached, ' + ')} AS steps, ${times} FROM ${last}`;
    // Ordered tries from step 2 on: a person with a step-1 event has at least that, timed
    // from their first step-1 event, as PostHog's funnel keeps the first try to reach a step
    // (funnel-udf's max_step moves only to a further step), which paths around step 1 read.
    const entered = order === 'strict' || fromEntries ? raw('') : sql` UNION ALL SELECT pid, 1 AS steps, min(ts) AS t0, ${join(Array.from({ length: steps - 1 }, () => raw('NULL')), ', ')} FROM st0 GROUP BY pid`;
    ctes.push(sql`tries AS (${chained}${entered})`);
  }

  // Whole seconds between two steps, as ClickHouse's dateDiff('second').
  const secs = (k: number) => sql`(${timeCol(k)} // 1000000 - ${timeCol(k - 1)} // 1000000)`;
  const later = Array.from({ length: steps - 1 }, (_, i) => i + 1);
  // One path per person, as PostHog: the try that first reached the person's furthest step
  // (when one event completes several, the latest started, whose steps PostHog's walk holds
  // then; of those, the one with the earliest steps, which PostHog's walk keeps as it takes
  // a later step event only for a later start); its step-to-step times are averaged and
  // their interpolated median taken across persons.
  const stepTimes = join(Array.from({ length: steps }, (_, k) => timeCol(k)), ', ');
  // Tries that tie on both (a middle step met by several events) are told apart by their
  // middle steps, earliest first, as a path keeps the first time it reached a step: without
  // it the same query over the same events could average other times.
  const middle = Array.from({ length: steps - 2 }, (_, i) => sql`${timeCol(i + 1)} ASC NULLS LAST`);
  const pathOrder = sql`list_value(${stepTimes})[t.steps], t0 DESC${middle.length ? sql`, ${join(middle, ', ')}` : raw('')}`;
  ctes.push(raw('best AS (SELECT pid, max(steps) AS steps FROM tries GROUP BY pid)'));
  ctes.push(sql`first_path AS (SELECT t.*, row_number() OVER (PARTITION BY t.pid ORDER BY ${pathOrder}) AS rn FROM tries t JOIN best b ON b.pid = t.pid AND b.steps = t.steps)`);
  ctes.push(sql`times AS (SELECT pid, steps${later.length ? raw(', ') : raw('')}${join(later.map((k) => sql`CASE WHEN steps > ${int(k)} THEN ${secs(k)} END AS a${raw(String(k))}`), ', ')} FROM first_path WHERE rn = 1)`);
  if (breakdown) ctes.push(raw('unit_value AS (SELECT pid, any_value(bv) AS bv FROM ord GROUP BY pid)'));
  const attributed = attribution === 'last_touch' || attribution === 'step' || attribution === 'all_events' ? attribution : 'first_touch';
  return { ctes, breakdown, allEvents: breakdown !== null && attribution === 'all_events', range, order, windowUs, attribution: attributed, attributionStep };
}

/** The funnel as hogql-text.ts writes it, from what funnelCtes resolved. */
export function funnelText(query: FunnelsQuery, ctx: PlanContext, c: Pick<FunnelCtes, 'range' | 'order' | 'windowUs' | 'breakdown' | 'attribution' | 'attributionStep'>): FunnelText {
  const node = (n: SeriesNode) => ({ event: seriesEvent(n), properties: [n.properties, n.fixedProperties] });
  return {
    steps: query.series.map(node),
    exclusions: funnelExclusions(query, c.order).map((x) => ({ ...node(x.node), from: x.from, to: x.to })),
    properties: query.properties, fromUs: c.range.fromUs, toUs: c.range.toUs, windowSeconds: c.windowUs / 1_000_000, valueSets: ctx.valueSets,
    order: c.order, breakdown: c.breakdown ? { breakdown: c.breakdown, attribution: c.attribution, step: c.attributionStep } : null,
    actorGroup: query.aggregation_group_type_index ?? null,
  };
}

/**
 * The actors behind a funnel step (funnelStep k: those who reached step k; -k: those who
 * reached step k-1 and not k), of one breakdown value when given: the persons (or groups)
 * counted in the step's count.
 */
export function funnelActors(query: FunnelsQuery, ctx: PlanContext, cell: Cell): CellActors {
  const steps = query.series.length;
  const k = cell.funnelStep;
  const trends = cell.funnelTrends;
  if (trends && (trends.entrance !== null || trends.dropOff !== null)) {
    throw new QueryError('funnelTrendsEntrancePeriodStart and funnelTrendsDropOff name a point of the trends view (funnelVizType trends)', trends.entrance !== null ? 'source.funnelTrendsEntrancePeriodStart' : 'source.funnelTrendsDropOff');
  }
  if (k === null) throw new QueryError('funnelStep is required: the step whose actors to list (negative: who dropped off there)', 'source.funnelStep');
  if (k === 0 || Math.abs(k) > steps || k === -1) throw new QueryError(`funnelStep must be 1 to ${steps}, or -2 to -${steps} for who dropped off there`, 'source.funnelStep');
  const { ctes, breakdown, allEvents } = funnelCtes(query, ctx);
  const where: Sql[] = [k > 0 ? sql`x.steps >= ${int(k)}` : sql`x.steps = ${int(-k - 1)}`];
  return unitsAsActors(query, cell, { ctes, breakdown, allEvents }, 'times', where);
}

/**
 * The actors among a funnel's units (rows of `table`, one per person, or per person and
 * value with all_events attribution) that meet `where` and the cell's breakdown value:
 * the steps view's and the trends view's actors alike.
 */
export function unitsAsActors(
  query: FunnelsQuery, cell: Cell, units: { ctes: Sql[]; breakdown: Breakdown | null; allEvents: boolean }, table: 'times' | 'entered', where: Sql[],
): CellActors {
  const { ctes, breakdown, allEvents } = units;
  const value = cellBreakdownValue(breakdown, cell.breakdown, 'source.funnelStepBreakdown');
  if (value !== null) where.push(sql`u.bv = ${text(value)}`);
  // With all_events attribution a person is followed per value: the unit is "person|value".
  const actor = allEvents ? raw('left(x.pid, length(x.pid) - length(u.bv) - 1)') : raw('x.pid::VARCHAR');
  return {
    sql: sql`WITH ${join(ctes, ',\n')}
SELECT DISTINCT ${actor} AS actor FROM ${raw(table)} x${breakdown ? raw(' JOIN unit_value u ON u.pid = x.pid') : raw('')} WHERE ${and(where)}`,
    groupType: query.aggregation_group_type_index ?? null, eventCount: false, appearances: false,
  };
}

export function planFunnel(query: FunnelsQuery, ctx: PlanContext): Plan<FunnelResult> {
  const steps = query.series.length;
  const { ctes, breakdown, range, order, windowUs, attribution, attributionStep } = funnelCtes(query, ctx);
  const later = Array.from({ length: steps - 1 }, (_, i) => i + 1);
  const finalCols: Sql[] = [];
  for (let k = 0; k < steps; k++) finalCols.push(sql`count(*) FILTER (WHERE x.steps >= ${int(k + 1)}) AS c${raw(String(k))}`);
  for (const k of later) finalCols.push(sql`avg(x.a${raw(String(k))}) AS avg${raw(String(k))}, quantile_cont(x.a${raw(String(k))}, 0.5) AS med${raw(String(k))}`);
  let source = raw('times x');
  if (breakdown) source = raw('times x JOIN unit_value u ON u.pid = x.pid');
  const statement = sql`WITH ${join(ctes, ',\n')}
SELECT ${breakdown ? raw('u.bv, ') : raw('')}${join(finalCols, ', ')} FROM ${source}${breakdown ? raw(' GROUP BY u.bv') : raw('')}`;

  return {
    statements: [statement],
    hogql: writtenOrNone(() => funnelSelect(funnelText(query, ctx, { range, order, windowUs, breakdown, attribution, attributionStep }))),
    shape([rows]) {
      const stepsOf = (row: Row | undefined, value?: string): FunnelStep[] =>
        query.series.map((node, k) => {
          const entity = nodeEntity(node);
          const step: FunnelStep = {
            action_id: entity.id, name: entity.type === 'actions' ? nodeName(node, ctx) : entity.id as string | null, custom_name: node.custom_name ?? null,
            order: k, people: [], count: row ? toNumber(row[`c${k}`]) : 0, type: entity.type,
            average_conversion_time: k === 0 || !row || row[`avg${k}`] === null ? null : toNumber(row[`avg${k}`]),
            median_conversion_time: k === 0 || !row || row[`med${k}`] === null ? null : toNumber(row[`med${k}`]),
          };
          if (value !== undefined && breakdown) {
            const v = breakdownValueOf(breakdown, value);
            step.breakdown = v;
            step.breakdown_value = v;
          }
          return step;
        });
      const dates = { dateFrom: isoWithOffset(range.fromLocal, range.segments), dateTo: isoWithOffset(range.toLocal, range.segments) };
      if (!breakdown) return { results: stepsOf(rows[0]), ...dates };
      const lists = rows
        .map((r) => ({ value: String(r.bv), total: toNumber(r.c0), row: r }))
        .sort(compareBreakdownValues)
        .map((x) => stepsOf(x.row, x.value));
      return { results: lists, ...dates };
    },
  };
}

