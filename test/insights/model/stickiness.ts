// Stickiness as PostHog states it: per series, the actors active in exactly n intervals of the
// range. The actor is the person, or with the series' math unique_group its group of
// math_group_type_index (events without one left out), as PostHog's stickiness runner
// (posthog/hogql_queries/insights/stickiness/stickiness_query_runner.py); its StickinessQuery
// has no aggregation_group_type_index. With math hogql the actor is the value of math_hogql
// (events without one left out: its count(DISTINCT) leaves NULL out).
import { seriesEvents, type Context, type Filter, type SeriesNode } from './match.js';
import { addDays, daysBetween, intervals, intervalStart, localDate, midnight, type Interval } from './time.js';

export interface StickinessQuery { series: SeriesNode[]; interval?: Interval; intervalCount?: number; dateRange: { date_from: string; date_to: string }; properties?: Filter[]; filterTestAccounts?: boolean }

/** Per series, per n = 1 … intervals: the actors active in exactly n intervals. */
export function stickiness(q: StickinessQuery, c: Context): Array<Array<Set<string>>> {
  const interval = q.interval ?? 'day';
  // intervalCount k (days): whole days back from date_to's end, k at a time (PostHog's age()).
  const k = q.intervalCount;
  if (k !== undefined && interval !== 'day') throw new Error('the model reads intervalCount with days');
  const days = intervals(q.dateRange.date_from, q.dateRange.date_to, interval).length;
  const total = k === undefined ? days : Math.ceil(days / k);
  const bucketOf = (ts: number) => (k === undefined ? intervalStart(localDate(ts, c.tz), interval) : String(Math.floor(daysBetween(localDate(ts, c.tz), q.dateRange.date_to) / k)));
  const start = midnight(q.dateRange.date_from, c.tz);
  const end = midnight(addDays(q.dateRange.date_to, 1), c.tz);
  return q.series.map((node) => {
    const active = new Map<string, Set<string>>();
    for (const e of seriesEvents(node, q, c)) {
      if (e.ts < start || e.ts >= end) continue;
      const p = node.math === 'unique_group' ? e.props[`$group_${node.math_group_type_index}`] as string | undefined
        : node.math === 'hogql' ? actorValue(c.hogql[node.math_hogql!](e, c.world)) : String(e.person);
      if (p === undefined) continue;
      if (!active.has(p)) active.set(p, new Set());
      active.get(p)!.add(bucketOf(e.ts));
    }
    return Array.from({ length: total }, (_, i) => new Set([...active].filter(([, days]) => days.size === i + 1).map(([p]) => p)));
  });
}

const actorValue = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
