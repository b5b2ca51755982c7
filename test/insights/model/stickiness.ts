// Stickiness as PostHog states it: per series, the actors active in exactly n intervals of the range.
import { seriesEvents, type Context, type Filter, type SeriesNode } from './match.js';
import { addDays, intervals, intervalStart, localDate, midnight, type Interval } from './time.js';

export interface StickinessQuery { series: SeriesNode[]; interval?: Interval; dateRange: { date_from: string; date_to: string }; properties?: Filter[]; filterTestAccounts?: boolean; aggregation_group_type_index?: number }

/** Per series, per n = 1 … intervals: the actors active in exactly n intervals. */
export function stickiness(q: StickinessQuery, c: Context): Array<Array<Set<string>>> {
  const interval = q.interval ?? 'day';
  const total = intervals(q.dateRange.date_from, q.dateRange.date_to, interval).length;
  const start = midnight(q.dateRange.date_from, c.tz);
  const end = midnight(addDays(q.dateRange.date_to, 1), c.tz);
  return q.series.map((node) => {
    const active = new Map<string, Set<string>>();
    for (const e of seriesEvents(node, q, c)) {
      if (e.ts < start || e.ts >= end) continue;
      // The person, or the event's group of aggregation_group_type_index (events without one left out).
      const p = q.aggregation_group_type_index === undefined ? String(e.person) : e.props[`$group_${q.aggregation_group_type_index}`] as string | undefined;
      if (p === undefined) continue;
      if (!active.has(p)) active.set(p, new Set());
      active.get(p)!.add(intervalStart(localDate(e.ts, c.tz), interval));
    }
    return Array.from({ length: total }, (_, i) => new Set([...active].filter(([, days]) => days.size === i + 1).map(([p]) => p)));
  });
}
