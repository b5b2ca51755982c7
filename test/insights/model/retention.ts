// Retention as PostHog states it: one cohort per interval of the range; first-time: the
// actors whose first target event ever falls in it, recurring: those with a target event in
// it; value 0 is the cohort, value k those of it with a returning event k intervals later,
// within the range up to date_to's end (posthog/hogql_queries/insights/retention_query_runner.py).
import { breakdownKeys, breakdownsOf, type TrendsQuery } from './trends.js';
import { NULL_VALUE, seriesEvents, type Context, type Filter } from './match.js';
import type { ModelEvent } from './world.js';
import { addDays, intervals, intervalStart, localDate, midnight, nextInterval, type Interval } from './time.js';

export interface Entity { id: string | number; type: 'events' | 'actions' }

export interface RetentionQuery {
  dateRange: { date_from: string; date_to: string };
  properties?: Filter[];
  filterTestAccounts?: boolean;
  aggregation_group_type_index?: number;
  breakdownFilter?: TrendsQuery['breakdownFilter'];
  retentionFilter: { period?: 'Day' | 'Week'; totalIntervals?: number; retentionType?: 'retention_first_time' | 'retention_recurring'; targetEntity?: Entity; returningEntity?: Entity };
}

export interface RetentionRowModel { date: string; breakdown?: string | number | string[]; values: Array<Set<string>> }

const node = (e: Entity | undefined) => (!e ? { event: '$pageview' } : e.type === 'actions' ? { kind: 'ActionsNode' as const, id: Number(e.id) } : { event: String(e.id) });

export function retention(q: RetentionQuery, c: Context): RetentionRowModel[] {
  const f = q.retentionFilter;
  const interval: Interval = f.period === 'Week' ? 'week' : 'day';
  const rows = intervals(q.dateRange.date_from, q.dateRange.date_to, interval);
  const end = midnight(addDays(q.dateRange.date_to, 1), c.tz);
  const bucket = (ms: number) => intervalStart(localDate(ms, c.tz), interval);
  const breakdowns = breakdownsOf(q);
  // With a breakdown each (person, value) is followed on its own over the events carrying the
  // value: its first target event, its cohorts and its returns (PostHog groups by both).
  // A missing value is "" in retention (not the null label trends and funnels use).
  // A cohort breakdown is one retention per cohort over its persons' events, the value the
  // cohort's id as text (PostHog's retention runner, a query per cohort breakdown).
  const keysOf = (e: ModelEvent) => breakdownKeys(e, breakdowns, false, c).map((k) => (k === NULL_VALUE ? '' : typeof k === 'number' ? String(k) : k)).map((key) => ({ key, id: JSON.stringify(key ?? null) }));
  // The actor: the person, or the event's group of aggregation_group_type_index (events without one left out).
  const actorOf = (e: ModelEvent) => (q.aggregation_group_type_index === undefined ? String(e.person) : e.props[`$group_${q.aggregation_group_type_index}`] as string | undefined);
  const targets = seriesEvents(node(f.targetEntity), q, c).filter(actorOf);
  const returns = seriesEvents(node(f.returningEntity), q, c).filter(actorOf);
  const first = new Map<string, number>();
  for (const e of targets) {
    for (const { id } of keysOf(e)) {
      const unit = `${actorOf(e)}|${id}`;
      if (!first.has(unit) || e.ts < first.get(unit)!) first.set(unit, e.ts);
    }
  }

  // breakdown → (cohort interval → members); (breakdown, interval) → who returned in it.
  const cohorts = new Map<string, { key: RetentionRowModel['breakdown']; members: Map<string, Set<string>> }>();
  for (const e of targets) {
    const row = bucket(e.ts);
    if (e.ts >= end || !rows.includes(row)) continue;
    for (const { key, id } of keysOf(e)) {
      if (f.retentionType !== 'retention_recurring' && first.get(`${actorOf(e)}|${id}`) !== e.ts) continue;
      if (!cohorts.has(id)) cohorts.set(id, { key, members: new Map(rows.map((r) => [r, new Set()])) });
      cohorts.get(id)!.members.get(row)!.add(actorOf(e)!);
    }
  }
  const returned = new Map<string, Set<string>>();
  for (const e of returns) {
    if (e.ts >= end) continue;
    for (const { id } of keysOf(e)) {
      const at = `${id}|${bucket(e.ts)}`;
      if (!returned.has(at)) returned.set(at, new Set());
      returned.get(at)!.add(actorOf(e)!);
    }
  }
  const out: RetentionRowModel[] = [];
  for (const [id, { key, members }] of cohorts) {
    rows.forEach((row, i) => {
      const cohort = members.get(row)!;
      // totalIntervals values a row (11 unless given); returns count only within the range.
      const values = [cohort];
      let at = row;
      for (let k = 1; k < (f.totalIntervals ?? 11); k++) {
        at = nextInterval(at, interval);
        values.push(i + k < rows.length ? new Set([...cohort].filter((p) => returned.get(`${id}|${at}`)?.has(p))) : new Set());
      }
      out.push({ date: row, breakdown: key, values });
    });
  }
  return out;
}
