// Lifecycle as PostHog states it, per interval of the range: new (active, and the person was
// created in it), returning (active in it and the one before), resurrecting (active, not in
// the one before, not new), dormant (active in the one before, not in it; counted negative).
// With aggregation_group_type_index the actor is the event's group of that type (events
// without one left out), new when the group was created (its first $groupidentify) in it.
import { seriesEvents, type Context, type Filter, type SeriesNode } from './match.js';
import { addDays, intervals, intervalStart, localDate, type Interval } from './time.js';

export interface LifecycleQuery { series: SeriesNode[]; interval?: Interval; dateRange: { date_from: string; date_to: string }; properties?: Filter[]; filterTestAccounts?: boolean; aggregation_group_type_index?: number }

export type Status = 'new' | 'returning' | 'resurrecting' | 'dormant';

export function lifecycle(q: LifecycleQuery, c: Context): { days: string[]; statuses: Record<Status, Array<Set<string>>> } {
  const interval = q.interval ?? 'day';
  if (interval !== 'day' && interval !== 'week') throw new Error('the model reads daily and weekly lifecycles');
  const days = intervals(q.dateRange.date_from, q.dateRange.date_to, interval);
  const groups = q.aggregation_group_type_index;
  const activeOn = new Map<string, Set<string>>();
  for (const e of seriesEvents(q.series[0], q, c)) {
    const actor = groups === undefined ? String(e.person) : e.props[`$group_${groups}`] as string | undefined;
    if (actor === undefined) continue;
    const d = intervalStart(localDate(e.ts, c.tz), interval);
    if (!activeOn.has(d)) activeOn.set(d, new Set());
    activeOn.get(d)!.add(actor);
  }
  const statuses: Record<Status, Array<Set<string>>> = { new: [], returning: [], resurrecting: [], dormant: [] };
  for (const d of days) {
    const now = activeOn.get(d) ?? new Set<string>();
    const before = activeOn.get(addDays(d, interval === 'week' ? -7 : -1)) ?? new Set<string>();
    const createdAt = (p: string) => (groups === undefined ? c.world.persons.get(Number(p))!.createdAt : c.world.groupCreatedAt.get(p)!);
    const created = (p: string) => intervalStart(localDate(createdAt(p), c.tz), interval) === d;
    statuses.new.push(new Set([...now].filter(created)));
    statuses.returning.push(new Set([...now].filter((p) => !created(p) && before.has(p))));
    statuses.resurrecting.push(new Set([...now].filter((p) => !created(p) && !before.has(p))));
    statuses.dormant.push(new Set([...before].filter((p) => !now.has(p))));
  }
  return { days, statuses };
}
