// A subscription's schedule as PostHog's (an RFC 5545 recurrence rule, the subset its API
// sets: frequency, interval, count, until, weekdays, set position), evaluated in the
// project's time zone: the occurrences keep the start's wall-clock time (9:00 stays 9:00
// across daylight saving), as a reader of "every Monday at 9" expects. Pure.
import { instantOfLocal, offsetAt, offsetSegments } from '../time/zone.js';

export const FREQUENCIES = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface Rule {
  frequency: Frequency;
  interval: number;
  // ISO instants.
  start_date: string;
  until_date: string | null;
  count: number | null;
  byweekday: Weekday[] | null;
  // 1–4 or -1: which of the period's matching weekdays (only with byweekday).
  bysetpos: number | null;
}

const DAY = 86_400_000;
// Periods looked through before a rule is taken to have no further occurrence.
const MAX_PERIODS = 5000;

// Monday = 0 of a local-time day.
const weekdayOf = (localMs: number) => (new Date(localMs).getUTCDay() + 6) % 7;
const dayStart = (localMs: number) => Math.floor(localMs / DAY) * DAY;

function toLocal(ms: number, zone: string): number {
  return ms + offsetAt(zone, ms);
}

function toInstant(localMs: number, zone: string): number {
  return instantOfLocal(offsetSegments(zone, localMs - 2 * DAY, localMs + 2 * DAY), localMs);
}

// The candidate local times of period `k` (the k-th interval step from the start), sorted.
function periodDays(rule: Rule, startLocal: number, k: number): number[] {
  const start = new Date(startLocal);
  const timeOfDay = startLocal - dayStart(startLocal);
  const days = rule.byweekday && rule.byweekday.length > 0 ? new Set(rule.byweekday.map((d) => WEEKDAYS.indexOf(d))) : null;
  const step = rule.interval * k;
  let first: number;
  let last: number;
  switch (rule.frequency) {
    case 'daily': {
      const day = dayStart(startLocal) + step * DAY;
      return !days || days.has(weekdayOf(day)) ? [day + timeOfDay] : [];
    }
    case 'weekly': {
      if (!days) return [startLocal + step * 7 * DAY];
      first = dayStart(startLocal) - weekdayOf(startLocal) * DAY + step * 7 * DAY;
      last = first + 6 * DAY;
      break;
    }
    case 'monthly': {
      const y = start.getUTCFullYear();
      const m = start.getUTCMonth() + step;
      if (!days) {
        const day = Date.UTC(y, m, start.getUTCDate());
        // A month without the start's day (the 31st) has no occurrence, as dateutil's.
        return new Date(day).getUTCDate() === start.getUTCDate() ? [day + timeOfDay] : [];
      }
      first = Date.UTC(y, m, 1);
      last = Date.UTC(y, m + 1, 1) - DAY;
      break;
    }
    case 'yearly': {
      const y = start.getUTCFullYear() + step;
      if (!days) {
        const day = Date.UTC(y, start.getUTCMonth(), start.getUTCDate());
        return new Date(day).getUTCMonth() === start.getUTCMonth() ? [day + timeOfDay] : [];
      }
      first = Date.UTC(y, 0, 1);
      last = Date.UTC(y + 1, 0, 1) - DAY;
      break;
    }
  }
  const matching: number[] = [];
  for (let d = first; d <= last; d += DAY) if (days.has(weekdayOf(d))) matching.push(d + timeOfDay);
  if (rule.bysetpos === null || rule.bysetpos === 0) return matching;
  const at = rule.bysetpos > 0 ? rule.bysetpos - 1 : matching.length + rule.bysetpos;
  return at >= 0 && at < matching.length ? [matching[at]] : [];
}

// The first occurrence strictly after `after` (an instant, ms), or null when the rule has
// none left (its count or until reached, or none within MAX_PERIODS periods).
export function nextOccurrence(rule: Rule, after: number, zone: string): number | null {
  const startMs = Date.parse(rule.start_date);
  const untilMs = rule.until_date === null ? Infinity : Date.parse(rule.until_date);
  const startLocal = toLocal(startMs, zone);
  let seen = 0;
  for (let k = 0; k < MAX_PERIODS; k++) {
    for (const local of periodDays(rule, startLocal, k)) {
      if (local < startLocal) continue;
      const at = toInstant(local, zone);
      if (at > untilMs) return null;
      seen++;
      if (rule.count !== null && seen > rule.count) return null;
      if (at > after) return at;
    }
  }
  return null;
}

// PostHog's summary of a schedule: "sent every week", "sent every 2 months on the first Monday".
export function summary(rule: Pick<Rule, 'frequency' | 'interval' | 'byweekday' | 'bysetpos'>): string {
  const unit = { daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year' }[rule.frequency];
  if (!unit || !Number.isInteger(rule.interval) || rule.interval < 1) return 'sent on a schedule';
  let out = `sent every ${rule.interval > 1 ? `${rule.interval} ` : ''}${unit}${rule.interval > 1 ? 's' : ''}`;
  if (rule.byweekday && rule.byweekday.length > 0 && rule.bysetpos !== null) {
    const pos = { 1: 'first', 2: 'second', 3: 'third', 4: 'fourth', [-1]: 'last' }[rule.bysetpos];
    if (!pos) return 'sent on a schedule';
    const day = rule.byweekday.length === 1 ? rule.byweekday[0][0].toUpperCase() + rule.byweekday[0].slice(1) : 'day';
    out += ` on the ${pos} ${day}`;
  }
  return out;
}
