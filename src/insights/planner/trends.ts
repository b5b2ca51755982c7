// TrendsQuery → one statement per series (and per period when comparing), shaped into
// PostHog's trends results: per series (× breakdown value × period) the data of each
// interval with its labels and days, or one aggregated_value for the "total value"
// displays; formulas combine the series afterwards.
import type { SeriesNode, TrendsQuery } from '../schemas.js';
import { breakdownOf, breakdownUsesPersons, breakdownValueOf, breakdownValueSql, BREAKDOWN_OTHER, compareBreakdownValues, foldedValueSql, type Breakdown } from './breakdown.js';
import { actorOf, eventsFrom, needsPersons, nodeEntity, nodeName, nodeUsesPersons, nodeWhere, queryPropertiesWhere, scopeWhere, toNumber, type Plan, type PlanContext, type Row } from './context.js';
import { bucketLabel, dayString, isoWithOffset, localToUs, previousRange, resolveRange, shiftedRange, type Interval, type ResolvedRange } from './dates.js';
import { QueryError } from './errors.js';
import { applyFormula, parseFormula } from './formula.js';
import { firstTimeBase, FIRST_TIME_MATHS } from './first-time.js';
import { rowExpression } from './hogql-row.js';
import { activeUsersSelect, cohortsPastLimit, cohortValues, literal, seriesEvent, seriesSelect, writtenOrNone } from './hogql-text.js';
import { propertyNumber, propertyText, type PropertySource } from './properties.js';
import { and, float, int, join, raw, sql, type Sql } from './sql.js';
import { bucketSql, localDay, localUs } from './time-sql.js';

const DAY_MS = 86_400_000;

/** Displays that show one number per series (PostHog's is_total_value). */
export const TOTAL_VALUE_DISPLAYS: ReadonlySet<string> = new Set(['BoldNumber', 'ActionsPie', 'ActionsTable', 'WorldMap', 'ActionsBarValue']);

export interface TrendsAction {
  days: string[];
  id: string | number | null;
  type: 'events' | 'actions';
  order: number;
  name: string;
  custom_name: string | null;
  math: string;
  math_property: string | null;
  math_hogql: string | null;
  math_group_type_index: number | null;
  properties: Record<string, never>;
}

export interface TrendsItem {
  data: number[];
  labels?: string[];
  days: string[];
  count: number;
  aggregated_value?: number;
  label: string;
  filter: Record<string, unknown>;
  action: TrendsAction | null;
  breakdown_value?: string | number | string[];
  compare?: boolean;
  compare_label?: 'current' | 'previous';
}

export interface TrendsResult {
  results: TrendsItem[];
  hasMore: boolean;
  dateFrom: string;
  dateTo: string;
}

const QUANTILES: Record<string, number> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 };
export const ACTIVE_WINDOW: Record<string, number> = { weekly_active: 7, monthly_active: 30 };

/** avg_count_per_actor → avg (and min, max, median, p75…p99); null for the other maths. */
export function countPerActor(math: string): string | null {
  const m = /^(avg|min|max|median|p75|p90|p95|p99)_count_per_actor$/.exec(math);
  return m ? m[1] : null;
}

export function mathOf(node: SeriesNode): string {
  return node.math ?? 'total';
}

// math unique_group counts the keys of one group type (its index, 0 to 4).
export function groupTypeIndex(node: SeriesNode, index: number): number {
  const n = node.math_group_type_index;
  if (n === null || n === undefined) throw new QueryError('Math "unique_group" needs a math_group_type_index', `series.${index}.math_group_type_index`);
  return n;
}

export function mathProperty(node: SeriesNode, index: number): { source: PropertySource; key: string } | null {
  const math = mathOf(node);
  if (!['sum', 'avg', 'min', 'max', ...Object.keys(QUANTILES)].includes(math)) return null;
  if (!node.math_property) throw new QueryError(`Math "${math}" needs a math_property`, `series.${index}.math_property`);
  return { source: node.math_property_type === 'person_properties' ? 'person' : 'event', key: node.math_property };
}

/** The aggregate over CTE `base` (columns pid, sid, x), or for the count-per-actor maths over `per` (c: an actor's events). */
function aggregateSql(math: string): Sql {
  const perActor = countPerActor(math);
  if (perActor !== null) return QUANTILES[perActor] === undefined ? raw(`coalesce(${perActor}(c), 0)`) : sql`coalesce(quantile_cont(c, ${float(QUANTILES[perActor])}), 0)`;
  switch (math) {
    case 'total': return raw('count(*)');
    case 'dau': return raw('count(DISTINCT pid)');
    case 'unique_session': return raw('count(DISTINCT sid)');
    // An event without a group of the type does not count (PostHog's $group_N is '' then).
    case 'unique_group': return raw("count(DISTINCT g) FILTER (WHERE g <> '')");
    case 'sum': return raw('coalesce(sum(x), 0)');
    case 'avg': return raw('coalesce(avg(x), 0)');
    case 'min': return raw('coalesce(min(x), 0)');
    case 'max': return raw('coalesce(max(x), 0)');
    default: return sql`coalesce(quantile_cont(x, ${float(QUANTILES[math])}), 0)`;
  }
}

export interface SeriesRun {
  node: SeriesNode;
  order: number;
  range: ResolvedRange;
  previous: boolean;
}

export function seriesWhere(query: TrendsQuery, run: SeriesRun, ctx: PlanContext, fromUs: number): Sql {
  return and([
    ...scopeWhere(ctx, fromUs, run.range.toUs),
    ...nodeWhere(run.node, ctx, `series.${run.order}`),
    ...queryPropertiesWhere(query.properties, ctx),
  ]);
}

function statementFor(query: TrendsQuery, run: SeriesRun, ctx: PlanContext, breakdown: Breakdown | null, totalValue: boolean): Sql {
  const { node, range } = run;
  const math = mathOf(node);
  const prop = mathProperty(node, run.order);
  const persons = needsPersons(ctx, query.properties) || nodeUsesPersons(node, ctx) || breakdownUsesPersons(breakdown) || prop?.source === 'person';
  const local = localUs(raw('e.timestamp'), range.segments, range.fromUs - 31 * DAY_MS * 1000, range.toUs);
  const window = ACTIVE_WINDOW[math];
  // Persons, or groups of aggregation_group_type_index's type, for the maths that count them.
  const actor = actorOf(query);

  if (window !== undefined) {
    // Active users: each activity day covers the windows ending on it and the next
    // window-1 days; per person the covered days are merged, and the count at a day is
    // the running sum of +1/-1 at the covered runs' edges (no per-day rescans).
    const firstDay = Math.floor(range.buckets[0].localMs / DAY_MS);
    const lastDay = Math.floor(range.toLocal / DAY_MS);
    const fromUs = localToUs(range.segments, (totalValue ? lastDay - window + 1 : firstDay - window + 1) * DAY_MS);
    const cols: Sql[] = [sql`${actor.id} AS pid`, sql`${localDay(local)} AS day`];
    if (breakdown) cols.push(sql`${breakdownValueSql(breakdown)} AS bv`);
    const base = sql`SELECT ${join(cols, ', ')} FROM ${eventsFrom(persons)} WHERE ${and([seriesWhere(query, run, ctx, fromUs), ...actor.where])}`;
    const bv = breakdown ? sql`, ${foldedValueSql(breakdown)} AS bv` : raw('');
    const part = breakdown ? raw(', bv') : raw('');
    if (totalValue) {
      return sql`WITH base AS (${base}) SELECT count(DISTINCT pid) AS v${bv} FROM base GROUP BY ALL`;
    }
    return sql`WITH base AS (${base}),
act AS (SELECT DISTINCT pid, day${bv} FROM base),
iv AS (SELECT day${part}, lag(day) OVER (PARTITION BY pid${part} ORDER BY day) AS prev FROM act),
deltas AS (SELECT greatest(day, coalesce(prev + ${int(window)}, day)) AS d, 1 AS v${part} FROM iv UNION ALL SELECT day + ${int(window)} AS d, -1 AS v${part} FROM iv),
daily AS (SELECT d${part}, sum(v) AS v FROM deltas GROUP BY ALL)
SELECT d${part}, sum(v) OVER (${breakdown ? raw('PARTITION BY bv ') : raw('')}ORDER BY d) AS active FROM daily`;
  }

  if (math === 'hogql') return hogqlMathStatement(query, run, ctx, breakdown, totalValue, persons, local);
  if (FIRST_TIME_MATHS.has(math)) {
    const b = totalValue ? raw('') : sql`${bucketSql(localUs(raw('t'), range.segments, range.fromUs - 31 * DAY_MS * 1000, range.toUs), range.interval, ctx.weekStart)} AS b, `;
    return sql`WITH first AS (${firstTimeBase(query, run, ctx)}) SELECT ${b}count(*) AS v FROM first GROUP BY ALL`;
  }

  const cols: Sql[] = [];
  if (!totalValue) cols.push(sql`${bucketSql(local, range.interval, ctx.weekStart)} AS b`);
  if (breakdown) cols.push(sql`${breakdownValueSql(breakdown)} AS bv`);
  const perActor = countPerActor(math) !== null;
  if (math === 'dau' || perActor) cols.push(sql`${actor.id} AS pid`);
  if (math === 'unique_session') cols.push(raw('e.session_id AS sid'));
  if (math === 'unique_group') cols.push(sql`${propertyText('event', `$group_${groupTypeIndex(node, run.order)}`)} AS g`);
  if (prop) cols.push(sql`${propertyNumber(prop.source, prop.key)} AS x`);
  if (cols.length === 0) cols.push(raw('1 AS one'));
  const counted = math === 'dau' || perActor ? actor.where : [];
  const base = sql`SELECT ${join(cols, ', ')} FROM ${eventsFrom(persons)} WHERE ${and([seriesWhere(query, run, ctx, range.fromUs), ...counted])}`;
  const select: Sql[] = [];
  if (!totalValue) select.push(raw('b'));
  if (breakdown) select.push(sql`${foldedValueSql(breakdown)} AS bv`);
  select.push(sql`${aggregateSql(math)} AS v`);
  if (perActor) {
    // Each actor's events per bucket (and value), then the aggregate over the actors.
    const keys = [...(totalValue ? [] : [raw('b')]), ...(breakdown ? [sql`${foldedValueSql(breakdown)} AS bv`] : [])];
    const per = sql`SELECT ${join([...keys, raw('pid'), raw('count(*) AS c')], ', ')} FROM base GROUP BY ALL`;
    const outer = [...(totalValue ? [] : [raw('b')]), ...(breakdown ? [raw('bv')] : []), sql`${aggregateSql(math)} AS v`];
    return sql`WITH base AS (${base}), per AS (${per}) SELECT ${join(outer, ', ')} FROM per GROUP BY ALL`;
  }
  return sql`WITH base AS (${base}) SELECT ${join(select, ', ')} FROM base GROUP BY ALL`;
}

/**
 * math "hogql": the series' own aggregate over each bucket's (and breakdown value's) events.
 * The scan keeps every column of the event as `e`, so the expression reads the row as the
 * compiler's events table; the person it reads (its properties, an action's person-property
 * steps, a cohort) is the person as the query finds it, joined as `p` over the scan.
 */
function hogqlMathStatement(query: TrendsQuery, run: SeriesRun, ctx: PlanContext, breakdown: Breakdown | null, totalValue: boolean, joinPersons: boolean, local: Sql): Sql {
  const attr = `series.${run.order}.math_hogql`;
  const source = run.node.math_hogql ?? '';
  const { expr, persons } = rowExpression(ctx, source, attr);
  if (expr.aggregate === null) throw new QueryError(`math_hogql must aggregate the events, e.g. avg(properties.$screen_width): ${source}`, attr);
  const cols: Sql[] = [raw('e.*')];
  if (!totalValue) cols.push(sql`${bucketSql(local, run.range.interval, ctx.weekStart)} AS b`);
  if (breakdown) cols.push(sql`${breakdownValueSql(breakdown)} AS bv`);
  const base = sql`SELECT ${join(cols, ', ')} FROM ${eventsFrom(joinPersons)} WHERE ${seriesWhere(query, run, ctx, run.range.fromUs)}`;
  const select: Sql[] = [];
  if (!totalValue) select.push(raw('e.b'));
  if (breakdown) select.push(sql`${foldedValueSql(breakdown)} AS bv`);
  // The expression's value as a number (PostHog's series values are numbers; NULL: no value, 0).
  select.push(sql`coalesce(TRY_CAST(${expr.sql} AS DOUBLE), 0) AS v`);
  const from = persons ? raw('base e LEFT JOIN persons p ON p.project = e.project AND p.id = e.person_id') : raw('base e');
  return sql`WITH base AS (${base}) SELECT ${join(select, ', ')} FROM ${from} GROUP BY ALL`;
}

// Distinct keys of a group type, an event without one ('' in $group_N) not counted.
const groupKeys = (n: number) => `uniqIf($group_${n}, $group_${n} != '')`;

/** A series' aggregate as HogQL (`actorGroup`: the query counts groups of that type where it counts persons); null for the active-user maths, written whole by activeUsersSelect. */
function aggregateText(node: SeriesNode, order: number, prop: { source: PropertySource; key: string } | null, actorGroup: number | null): string | null {
  const math = mathOf(node);
  const x = prop ? `toFloat(${prop.source === 'person' ? 'person.' : ''}properties[${literal(prop.key)}])` : '';
  switch (math) {
    case 'total': return 'count()';
    case 'dau': return actorGroup === null ? 'count(DISTINCT person_id)' : groupKeys(actorGroup);
    case 'unique_group': return groupKeys(groupTypeIndex(node, order));
    case 'unique_session': return 'count(DISTINCT $session_id)';
    case 'sum': case 'avg': case 'min': case 'max': return `coalesce(${math}(${x}), 0)`;
    case 'hogql': return `coalesce(toFloat(${node.math_hogql ?? ''}), 0)`;
    default: return QUANTILES[math] !== undefined ? `coalesce(quantile(${QUANTILES[math]})(${x}), 0)` : null;
  }
}

/** One series' (and period's, and cohort's) SELECT; undefined when no text says its math yet. */
function seriesText(query: TrendsQuery, run: SeriesRun, ctx: PlanContext, breakdown: Breakdown | null, totalValue: boolean, cohort: string | undefined): string | undefined {
  const actorGroup = query.aggregation_group_type_index ?? null;
  const { range } = run;
  const common = {
    event: seriesEvent(run.node), properties: [run.node.properties, run.node.fixedProperties, query.properties],
    fromUs: range.fromUs, toUs: range.toUs, interval: totalValue ? null : range.interval, weekStart: ctx.weekStart,
    breakdown, valueSets: ctx.valueSets, cohort,
  };
  const window = ACTIVE_WINDOW[mathOf(run.node)];
  if (window !== undefined) {
    // As the planner: active on a period's day or the window - 1 days before it; a total
    // value, over the range's last window days. Groups are actors where the query counts them.
    const firstDay = Math.floor(range.buckets[0].localMs / DAY_MS);
    const lastDay = Math.floor(range.toLocal / DAY_MS);
    const first = range.interval === 'hour' && !totalValue
      ? `toDateTime(${literal(new Date(localToUs(range.segments, range.buckets[0].localMs) / 1000).toISOString())})`
      : `toDate(${literal(new Date(range.buckets[0].localMs).toISOString().slice(0, 10))})`;
    const grouped = actorGroup === null ? null : `$group_${actorGroup}`;
    return activeUsersSelect({
      ...common, window, actor: grouped ?? 'person_id', first, periods: range.buckets.length,
      properties: grouped === null ? common.properties : [...common.properties, [{ type: 'hogql', key: `${grouped} != ''` }]],
      fromUs: localToUs(range.segments, ((totalValue ? lastDay : firstDay) - window + 1) * DAY_MS),
    });
  }
  const aggregate = aggregateText(run.node, run.order, mathProperty(run.node, run.order), actorGroup);
  return aggregate === null ? undefined : seriesSelect({ ...common, aggregate });
}

/** The trends query as HogQL: each series' (and period's) SELECT, joined by UNION ALL as PostHog's; a cohort breakdown's, one per cohort. */
function trendsText(query: TrendsQuery, runs: SeriesRun[], ctx: PlanContext, breakdown: Breakdown | null, totalValue: boolean): string | undefined {
  // Cohorts within the limit: a SELECT per cohort, as PostHog's; past it, one over the events once per cohort, folded as other values.
  const cohorts = breakdown?.source === 'cohort' && !cohortsPastLimit(breakdown) ? cohortValues(breakdown) : [undefined];
  const selects: string[] = [];
  for (const run of runs) {
    for (const cohort of cohorts) {
      const text = seriesText(query, run, ctx, cohort === undefined ? breakdown : null, totalValue, cohort);
      if (text === undefined) return undefined;
      selects.push(text);
    }
  }
  return selects.join(' UNION ALL ');
}

/** Per breakdown value (or '' without one): the series' data over the run's buckets. */
function dataByValue(rows: Row[], run: SeriesRun, math: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const series = (value: string) => {
    let data = out.get(value);
    if (data === undefined) out.set(value, (data = run.range.buckets.map(() => 0)));
    return data;
  };
  if (ACTIVE_WINDOW[math] !== undefined) {
    const runs = new Map<string, { d: number; active: number }[]>();
    for (const r of rows) {
      const value = r.bv === undefined ? '' : String(r.bv);
      let list = runs.get(value);
      if (list === undefined) runs.set(value, (list = []));
      list.push({ d: toNumber(r.d), active: toNumber(r.active) });
    }
    for (const [value, list] of runs) {
      list.sort((a, b) => a.d - b.d);
      const data = series(value);
      run.range.buckets.forEach((bucket, i) => {
        const day = Math.floor(bucket.localMs / DAY_MS);
        let found = 0;
        for (const point of list) {
          if (point.d <= day) found = point.active;
          else break;
        }
        data[i] = found;
      });
    }
    return out;
  }
  const index = new Map(run.range.buckets.map((b, i) => [b.id, i]));
  for (const r of rows) {
    const i = index.get(toNumber(r.b));
    if (i === undefined) continue;
    series(r.bv === undefined ? '' : String(r.bv))[i] = toNumber(r.v);
  }
  return out;
}

function filterObject(query: TrendsQuery, range: ResolvedRange): Record<string, unknown> {
  const filter: Record<string, unknown> = {
    insight: 'TRENDS',
    properties: query.properties ?? undefined,
    filter_test_accounts: query.filterTestAccounts ?? undefined,
    date_to: isoWithOffset(range.toLocal, range.segments),
    date_from: isoWithOffset(range.fromLocal, range.segments),
    entity_type: 'events',
    interval: query.interval ?? 'day',
    ...(query.trendsFilter ?? {}),
    ...(query.breakdownFilter ?? {}),
  };
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== null && v !== undefined));
}

function actionOf(node: SeriesNode, order: number, days: string[], ctx: PlanContext): TrendsAction {
  return {
    days, ...nodeEntity(node), order, name: nodeName(node, ctx), custom_name: node.custom_name ?? null,
    math: mathOf(node), math_property: node.math_property ?? null, math_hogql: node.math_hogql ?? null, math_group_type_index: node.math_group_type_index ?? null, properties: {},
  };
}

export function planTrends(query: TrendsQuery, ctx: PlanContext): Plan<TrendsResult> {
  const display = query.trendsFilter?.display ?? 'ActionsLineGraph';
  const totalValue = TOTAL_VALUE_DISPLAYS.has(display);
  const interval: Interval = totalValue ? 'day' : (query.interval ?? 'day');
  const range = resolveRange(query.dateRange, interval, ctx);
  const breakdown = breakdownOf(query.breakdownFilter, ctx);
  const compare = query.compareFilter?.compare === true && query.dateRange?.date_from !== 'all';
  const formulas = formulaList(query);
  // PostHog's moving average runs over each line's values: every breakdown value's own, and
  // the cumulative display's running totals (trends_query_builder.py smooths total_array).
  // Known difference: the "other" line (values past breakdown_limit) is smoothed as one,
  // where PostHog sums its values' smoothed lines (floors taken before the sum).
  const smoothing = query.trendsFilter?.smoothingIntervals ?? 1;
  const parsedFormulas = formulas.map((f) => ({ node: parseFormula(f.formula, query.series.length), ...f }));

  const runs: SeriesRun[] = query.series.map((node, order) => ({ node, order, range, previous: false }));
  if (compare) {
    const compareTo = query.compareFilter?.compare_to;
    const prev = compareTo ? shiftedRange(range, compareTo, ctx) : previousRange(range, ctx);
    runs.push(...query.series.map((node, order) => ({ node, order, range: prev, previous: true })));
  }
  const statements = runs.map((run) => statementFor(query, run, ctx, breakdown, totalValue));

  return {
    statements,
    hogql: writtenOrNone(() => trendsText(query, runs, ctx, breakdown, totalValue)),
    shape(results) {
      const items: TrendsItem[][] = runs.map((run, k) => {
        const math = mathOf(run.node);
        const days = run.range.buckets.map((b) => dayString(b.localMs, interval));
        const labels = run.range.buckets.map((b) => bucketLabel(b.localMs, run.range, ctx.weekStart));
        const base = (value: string): TrendsItem => {
          const item: TrendsItem = {
            data: [], days, count: 0, label: nodeName(run.node, ctx), filter: filterObject(query, range), action: actionOf(run.node, run.order, days, ctx),
          };
          if (compare) {
            item.compare = true;
            item.compare_label = run.previous ? 'previous' : 'current';
          }
          if (breakdown) {
            item.breakdown_value = breakdownValueOf(breakdown, value);
            // Several properties: their values joined with "::", as PostHog labels them.
            const shown = breakdown.labels?.get(value) ?? (Array.isArray(item.breakdown_value) ? item.breakdown_value.join('::') : String(item.breakdown_value));
            item.label = query.series.length > 1 ? `${item.label} - ${shown}` : shown;
          }
          return item;
        };
        if (totalValue) {
          const rows = results[k];
          const list = (breakdown ? rows : rows.length > 0 ? rows : [{ v: 0 }]).map((r) => {
            const item = base(breakdown ? String(r.bv) : '');
            item.aggregated_value = toNumber(r.v);
            return item;
          });
          return breakdown ? sortByValue(list, (i) => i.aggregated_value ?? 0) : list;
        }
        const byValue = dataByValue(results[k], run, math);
        if (!breakdown && byValue.size === 0) byValue.set('', run.range.buckets.map(() => 0));
        const list = [...byValue].map(([value, data]) => {
          const item = base(value);
          if (display === 'ActionsLineGraphCumulative') {
            let sum = 0;
            const cumulated = data.map((v) => (sum += v));
            item.data = smoothing > 1 ? smoothed(cumulated, smoothing) : cumulated;
            item.count = item.data.length ? item.data[item.data.length - 1] : 0;
          } else {
            item.data = smoothing > 1 ? smoothed(data, smoothing) : data;
            item.count = item.data.reduce((a, b) => a + b, 0);
          }
          item.labels = labels;
          return item;
        });
        return breakdown ? sortByValue(list, (i) => i.count) : list;
      });

      let flat = parsedFormulas.length > 0 ? formulaItems(items, runs, parsedFormulas, compare, !!breakdown, totalValue) : items.flat();
      const hasMore = breakdown !== null && flat.some((i) => valueOf(i) === BREAKDOWN_OTHER);
      if (breakdown?.hideOther) flat = flat.filter((i) => valueOf(i) !== BREAKDOWN_OTHER);
      return { results: flat, hasMore, dateFrom: isoWithOffset(range.fromLocal, range.segments), dateTo: isoWithOffset(range.toLocal, range.segments) };
    },
  };
}

/** PostHog's smoothing: each point the floor of the mean of itself and the n-1 points before it in the range. */
function smoothed(data: number[], n: number): number[] {
  return data.map((_, i) => {
    const window = data.slice(Math.max(0, i - n + 1), i + 1);
    return Math.floor(window.reduce((a, b) => a + b, 0) / window.length);
  });
}

/** An item's breakdown value as one string: several values as their JSON list, any "other" as other. */
function valueOf(item: TrendsItem): string {
  const v = item.breakdown_value;
  if (!Array.isArray(v)) return v === undefined ? '' : String(v);
  if (v.length === 1) return v[0];
  return v.includes(BREAKDOWN_OTHER) ? BREAKDOWN_OTHER : JSON.stringify(v);
}

function sortByValue(items: TrendsItem[], total: (i: TrendsItem) => number): TrendsItem[] {
  return items.sort((a, b) => compareBreakdownValues({ value: valueOf(a), total: total(a) }, { value: valueOf(b), total: total(b) }));
}

function formulaList(query: TrendsQuery): { formula: string; custom_name: string | null }[] {
  const f = query.trendsFilter;
  if (f?.formulaNodes?.length) return f.formulaNodes.map((n) => ({ formula: n.formula, custom_name: n.custom_name ?? null }));
  if (f?.formulas?.length) return f.formulas.map((formula) => ({ formula, custom_name: null }));
  if (f?.formula) return [{ formula: f.formula, custom_name: null }];
  return [];
}

/**
 * Formula results: one item per formula (× breakdown value × period), computed from the
 * series' items of the same breakdown value and period (a missing one counts as zeros).
 */
function formulaItems(
  items: TrendsItem[][], runs: SeriesRun[], formulas: { node: ReturnType<typeof parseFormula>; formula: string; custom_name: string | null }[],
  compare: boolean, breakdown: boolean, totalValue: boolean,
): TrendsItem[] {
  const out: TrendsItem[] = [];
  const periods = compare ? [false, true] : [false];
  for (const formula of formulas) {
    for (const previous of periods) {
      const seriesItems = runs.map((run, k) => ({ run, list: items[k] })).filter((x) => x.run.previous === previous);
      const values = breakdown ? [...new Set(seriesItems.flatMap((x) => x.list.map(valueOf)))] : [''];
      const group: TrendsItem[] = [];
      for (const value of values) {
        const matched = seriesItems.map((x) => x.list.find((i) => valueOf(i) === value));
        const template = matched.find((m) => m !== undefined)!;
        const item: TrendsItem = { ...template, action: null, label: formula.custom_name ?? `Formula (${formula.formula})` };
        if (totalValue) {
          const v = applyFormula(formula.node, matched.map((m) => [m?.aggregated_value ?? 0]));
          item.aggregated_value = v[0];
          item.count = 0;
          item.data = [];
        } else {
          const length = template.data.length;
          item.data = applyFormula(formula.node, matched.map((m) => m?.data ?? new Array(length).fill(0)));
          item.count = item.data.reduce((a, b) => a + b, 0);
        }
        group.push(item);
      }
      out.push(...(breakdown ? sortByValue(group, (i) => (totalValue ? (i.aggregated_value ?? 0) : i.count)) : group));
    }
  }
  return out;
}
