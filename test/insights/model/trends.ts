// Trends as PostHog states them: per series, per interval of the range (in the project's
// time zone), per breakdown value and per compared period, the series' math over the events
// in that interval; weekly and monthly active users look back 7 and 30 days from each day;
// first_time_for_user counts a person at their first event of the series ever. The cumulative
// display sums each line's values up to each point; smoothingIntervals n makes each point the
// floor of the mean of itself and up to n-1 points before it, line by line (each breakdown
// value's own), after cumulating (trends_query_builder.py's rolling average over total_array).
import { aggregateOf, sum } from './stats.js';
import { breakdownValues, seriesEvents, type Breakdown, type Context, type Filter, type SeriesNode } from './match.js';
import { addDays, daysBetween, intervals, intervalStart, localDate, midnight, type Interval } from './time.js';
import type { ModelEvent } from './world.js';

export interface TrendsQuery {
  series: SeriesNode[];
  interval?: Interval;
  dateRange: { date_from: string; date_to: string };
  properties?: Filter[];
  filterTestAccounts?: boolean;
  aggregation_group_type_index?: number;
  breakdownFilter?: { breakdown?: string | number[]; breakdown_type?: Breakdown['type']; breakdown_group_type_index?: number; breakdowns?: Breakdown[] };
  compareFilter?: { compare?: boolean; compare_to?: string };
  trendsFilter?: { formula?: string; display?: string; smoothingIntervals?: number };
}

export interface TrendsLine {
  order: number;
  compare?: 'current' | 'previous';
  breakdown?: string | number | string[];
  days: string[];
  data: number[];
  /** The actors of each interval (unique-actor maths), for the actors queries. */
  actors: Array<Set<string>>;
}

const ACTIVE: Record<string, number> = { weekly_active: 7, monthly_active: 30 };
const PER_ACTOR = /^(avg|min|max|median|p75|p90|p95|p99)_count_per_actor$/;
const TOTAL_DISPLAYS = new Set(['BoldNumber', 'ActionsTable', 'ActionsPie', 'WorldMap']);

export function breakdownsOf(q: { breakdownFilter?: TrendsQuery['breakdownFilter'] }): Breakdown[] {
  const f = q.breakdownFilter;
  if (!f) return [];
  if (f.breakdowns) return f.breakdowns.map((b) => ({ ...b, type: b.type ?? 'event' }));
  if (f.breakdown === undefined) return [];
  if (f.breakdown_type === 'cohort') return [{ property: 'cohort', type: 'cohort', ids: f.breakdown as number[] }];
  return [{ property: String(f.breakdown), type: f.breakdown_type ?? 'event', group_type_index: f.breakdown_group_type_index }];
}

/** An event's breakdown keys: one per value (cohorts: one per cohort), several breakdowns as a list. */
export function breakdownKeys(e: ModelEvent, breakdowns: Breakdown[], multi: boolean, c: Context): Array<string | number | string[] | undefined> {
  if (!breakdowns.length) return [undefined];
  if (!multi) return breakdownValues(e, breakdowns[0], c);
  return [breakdowns.map((b) => String(breakdownValues(e, b, c)[0]))];
}

export function trends(q: TrendsQuery, c: Context): TrendsLine[] {
  const interval = q.interval ?? 'day';
  const breakdowns = breakdownsOf(q);
  const multi = (q.breakdownFilter?.breakdowns?.length ?? 0) > 0;
  const periods: Array<{ from: string; to: string; label?: 'current' | 'previous' }> = [{ from: q.dateRange.date_from, to: q.dateRange.date_to }];
  if (q.compareFilter?.compare) {
    const shift = q.compareFilter.compare_to ? shiftDays(q.compareFilter.compare_to) : daysBetween(q.dateRange.date_from, q.dateRange.date_to) + 1;
    periods[0].label = 'current';
    periods.push({ from: addDays(q.dateRange.date_from, -shift), to: addDays(q.dateRange.date_to, -shift), label: 'previous' });
  }
  const total = TOTAL_DISPLAYS.has(q.trendsFilter?.display ?? '');
  const lines: TrendsLine[] = [];
  q.series.forEach((node, order) => {
    const math = node.math ?? 'total';
    const actorOf = (e: ModelEvent): string | null => {
      const index = math === 'unique_group' ? node.math_group_type_index! : q.aggregation_group_type_index;
      if (index === undefined) return String(e.person);
      const key = e.props[`$group_${index}`];
      return typeof key === 'string' ? key : null;
    };
    const matched = seriesEvents(node, q, c);
    // first_time_for_user: each person's first event of the series' event, ever.
    const firsts = math === 'first_time_for_user' ? firstEvents(node, c) : null;
    for (const period of periods) {
      const days = total ? [period.from] : intervals(period.from, period.to, interval);
      // The range starts at the start of its first interval (PostHog's date_from_with_adjusted_start_of_interval).
      const start = midnight(intervalStart(period.from, interval), c.tz);
      const end = midnight(addDays(period.to, 1), c.tz);
      const cells = new Map<string, { key: TrendsLine['breakdown']; events: ModelEvent[][] }>();
      const cell = (key: TrendsLine['breakdown']) => {
        const id = JSON.stringify(key ?? null);
        let found = cells.get(id);
        if (!found) cells.set(id, (found = { key, events: days.map(() => []) }));
        return found;
      };
      if (!breakdowns.length) cell(undefined);
      const bucketOf = (ms: number) => (total ? 0 : days.indexOf(intervalStart(localDate(ms, c.tz), interval)));
      for (const e of firsts ?? matched) {
        if (firsts && !matched.includes(e)) continue;
        const inRange = e.ts >= start && e.ts < end;
        const active = ACTIVE[math];
        if (!inRange && !(active && e.ts < end && e.ts >= midnight(addDays(period.from, -active), c.tz))) continue;
        for (const key of breakdownKeys(e, breakdowns, multi, c)) {
          const target = cell(key);
          if (active && !total) {
            // Counted on each day whose window (that day and the ones before it) holds the event.
            const day = localDate(e.ts, c.tz);
            days.forEach((d, i) => { if (day <= d && day > addDays(d, -active)) target.events[i].push(e); });
          } else if (inRange) target.events[bucketOf(e.ts)].push(e);
        }
      }
      for (const { key, events } of cells.values()) {
        const actors = events.map((es) => new Set(es.map(actorOf).filter((a): a is string => a !== null)));
        let data = events.map((es, i) => value(math, node, es, actors[i], actorOf, c));
        if (q.trendsFilter?.display === 'ActionsLineGraphCumulative') data = data.map((_, i) => sum(data.slice(0, i + 1)));
        const n = q.trendsFilter?.smoothingIntervals ?? 1;
        if (n > 1 && !total) data = data.map((_, i) => Math.floor(sum(data.slice(Math.max(0, i - n + 1), i + 1)) / Math.min(n, i + 1)));
        lines.push({ order, compare: period.label, breakdown: key, days, data, actors });
      }
    }
  });
  return lines;
}

function value(math: string, node: SeriesNode, es: ModelEvent[], actors: Set<string>, actorOf: (e: ModelEvent) => string | null, c: Context): number {
  if (math === 'total' || math === 'first_time_for_user') return es.length;
  if (math === 'dau' || math === 'unique_group' || math in ACTIVE) return actors.size;
  if (math === 'hogql') return c.hogqlMath[node.math_hogql!](es);
  const perActor = PER_ACTOR.exec(math);
  if (perActor) {
    const counts = new Map<string, number>();
    for (const e of es) {
      const a = actorOf(e);
      if (a !== null) counts.set(a, (counts.get(a) ?? 0) + 1);
    }
    return aggregateOf(perActor[1], [...counts.values()]);
  }
  const xs = es.map((e) => e.props[node.math_property!]).filter((v) => typeof v === 'number' || (typeof v === 'string' && v !== '' && !Number.isNaN(Number(v)))).map(Number);
  return aggregateOf(math, xs);
}

function firstEvents(node: SeriesNode, c: Context): ModelEvent[] {
  const first = new Map<number, ModelEvent>();
  for (const e of seriesEvents({ ...node, properties: [] }, {}, c)) {
    const seen = first.get(e.person);
    if (!seen || e.ts < seen.ts) first.set(e.person, e);
  }
  return [...first.values()];
}

/** compare_to's shift in days: -Nd, -Nw (and -Nm, -Ny not used by the corpus). */
function shiftDays(compareTo: string): number {
  const m = /^-(\d+)([dw])$/.exec(compareTo);
  if (!m) throw new Error(`the model reads compare_to -Nd or -Nw, not ${compareTo}`);
  return Number(m[1]) * (m[2] === 'w' ? 7 : 1);
}

/** A formula over the series (letters A, B, …), interval by interval. */
export function formula(expression: string, lines: TrendsLine[]): number[] {
  const letters = lines.map((_, i) => String.fromCharCode(65 + i));
  const f = new Function(...letters, `return ${expression};`) as (...xs: number[]) => number;
  return lines[0].data.map((_, i) => {
    const v = f(...lines.map((l) => l.data[i]));
    return Number.isFinite(v) ? v : 0;
  });
}
