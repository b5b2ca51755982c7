// Calendar arithmetic in a named time zone for the reference model: local dates of instants,
// local midnights of dates, and the intervals (day, week, month) PostHog buckets by.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(tz, f);
  }
  return f;
}

/** The wall-clock fields of an instant in tz, read back as if they were UTC. */
function wallMs(ms: number, tz: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** 'YYYY-MM-DD' of the instant in tz. */
export function localDate(ms: number, tz: string): string {
  return new Date(wallMs(ms, tz)).toISOString().slice(0, 10);
}

/** The instant a local date starts in tz (a day that starts in a DST gap starts at its first hour). */
export function midnight(date: string, tz: string): number {
  const wall = Date.parse(`${date}T00:00:00Z`);
  let guess = wall;
  for (let i = 0; i < 3; i++) guess = wall - (wallMs(guess, tz) - guess);
  return guess;
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function addMonths(date: string, months: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString().slice(0, 10);
}

export type Interval = 'day' | 'week' | 'month';

/** The start (a local date) of the interval a local date is in; weeks start on Sunday. */
export function intervalStart(date: string, interval: Interval): string {
  if (interval === 'day') return date;
  if (interval === 'month') return `${date.slice(0, 7)}-01`;
  return addDays(date, -new Date(`${date}T00:00:00Z`).getUTCDay());
}

export function nextInterval(start: string, interval: Interval): string {
  return interval === 'day' ? addDays(start, 1) : interval === 'week' ? addDays(start, 7) : addMonths(start, 1);
}

/** The interval starts from the one holding `from` through the one holding `to`. */
export function intervals(from: string, to: string, interval: Interval): string[] {
  const out: string[] = [];
  for (let d = intervalStart(from, interval); d <= to; d = nextInterval(d, interval)) out.push(d);
  return out;
}

/** Days between two local dates. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
