// Retention as PostHog states it: one cohort per interval of the range; first-time: the
// actors whose first target event ever falls in it, recurring: those with a target event in
// it; value 0 is the cohort, value k those of it with a returning event k intervals later,
// within the range (posthog/hogql_queries/insights/retention_query_runner.py).
import { breakdownKeys, breakdownsOf, type TrendsQuery } from './trends.js';
import { seriesEvents, type Context, type Filter } from './match.js';
import { addDays, intervals, intervalStart, localDate, midnight, nextInterval, type Interval } from './time.js';

export interface Entity { id: string | number; type: 'events' | 'actions' }

export interface RetentionQuery {
  dateRange: { date_from: string; date_to: string };
  properties?: Filter[];
  filterTestAccounts?: boolean;
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
  const targets = seriesEvents(node(f.targetEntity), q, c);
  const returns = seriesEvents(node(f.returningEntity), q, c);
  const first = new Map<number, number>();
  for (const e of targets) if (!first.has(e.person) || e.ts < first.get(e.person)!) first.set(e.person, e.ts);

  // (breakdown, cohort interval) → members; a person's returning intervals.
  const cohorts = new Map<string, { key: RetentionRowModel['breakdown']; members: Map<string, Set<string>> }>();
  for (const e of targets) {
    if (e.ts >= end || (f.retentionType !== 'retention_recurring' && first.get(e.person) !== e.ts)) continue;
    const row = bucket(e.ts);
    if (!rows.includes(row)) continue;
    for (const key of breakdownKeys(e, breakdowns, false, c)) {
      const id = JSON.stringify(key ?? null);
      if (!cohorts.has(id)) cohorts.set(id, { key, members: new Map(rows.map((r) => [r, new Set()])) });
      cohorts.get(id)!.members.get(row)!.add(String(e.person));
    }
  }
  const returned = new Map<string, Set<string>>();
  for (const e of returns) {
    if (e.ts >= end) continue;
    const b = bucket(e.ts);
    if (!returned.has(b)) returned.set(b, new Set());
    returned.get(b)!.add(String(e.person));
  }
  const out: RetentionRowModel[] = [];
  for (const { key, members } of cohorts.values()) {
    rows.forEach((row, i) => {
      const cohort = members.get(row)!;
      // totalIntervals values a row (11 unless given); returns count only within the range.
      const values = [cohort];
      let at = row;
      for (let k = 1; k < (f.totalIntervals ?? 11); k++) {
        at = nextInterval(at, interval);
        values.push(i + k < rows.length ? new Set([...cohort].filter((p) => returned.get(at)?.has(p))) : new Set());
      }
      out.push({ date: row, breakdown: key, values });
    });
  }
  return out;
}
