// Date ranges the way PostHog's QueryDateRange reads them, in the project's time zone.
// All calendar arithmetic runs on local wall-clock time ("local ms": the wall clock read as
// if it were UTC), as Python's aware datetimes do; instants come from the zone's offset
// segments (src/time/zone.ts) only at the edges.
//
//   date_from  "-7d", "-24h", "-1m", "mStart", "dStart", "yStart", "all", an ISO date or
//              date-time (project time zone unless it carries an offset); default: 7 days
//              before today's start
//   date_to    same forms; default now; rounded up to the end of its day (hour interval:
//              of its hour, when relative)
import { civilFromDays } from '../../time/civil.js';
import { instantOfLocal, offsetAt, offsetSegments, segmentOffset, type OffsetSegment } from '../../time/zone.js';
import { QueryError } from './errors.js';

export type Interval = 'hour' | 'day' | 'week' | 'month';
export const INTERVALS: readonly Interval[] = ['hour', 'day', 'week', 'month'];

const HOUR = 3600_000;
const DAY = 86_400_000;

export interface TimeContext {
  /** IANA zone of the project. */
  zone: string;
  /** 0: weeks start on Sunday (PostHog's default), 1: on Monday. */
  weekStart: 0 | 1;
  nowMs: number;
  /** The project's first event (for date_from "all"); null when it has none. */
  firstEventMs: number | null;
}

export interface DateRangeInput {
  date_from?: string | null;
  date_to?: string | null;
  explicitDate?: boolean | null;
}

interface Parsed {
  localMs: number;
  relative: boolean;
  hoursDelta: boolean;
}

const RELATIVE = /^-?(\d+)?([hdwmqysHDWMQY])(Start|End)?$/;
const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?$/;

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

/** dateutil's relativedelta subtraction: absolute fields first, then months/years, then the rest. */
function relativeBack(localMs: number, kind: string, n: number, position: string | undefined): { ms: number; hours: boolean } {
  const d = new Date(localMs);
  let y = d.getUTCFullYear();
  let mo = d.getUTCMonth();
  let day = d.getUTCDate();
  let h = d.getUTCHours();
  let mi = d.getUTCMinutes();
  let s = d.getUTCSeconds();
  let ms = d.getUTCMilliseconds();
  let backMonths = 0;
  let backMs = 0;
  const start = position === 'Start';
  const end = position === 'End';
  switch (kind) {
    case 'h':
      backMs = n * HOUR;
      if (start) [mi, s, ms] = [0, 0, 0];
      if (end) [mi, s, ms] = [59, 59, 999];
      break;
    case 'd':
      backMs = n * DAY;
      if (start) [h, mi, s, ms] = [0, 0, 0, 0];
      if (end) [h, mi, s, ms] = [23, 59, 59, 999];
      break;
    case 'w':
      backMs = n * 7 * DAY;
      break;
    case 'm':
      backMonths = n;
      if (start) day = 1;
      if (end) day = 31;
      break;
    case 'q':
      backMs = n * 13 * 7 * DAY;
      break;
    case 'y':
      backMonths = 12 * n;
      if (start) [mo, day] = [0, 1];
      if (end) day = 31;
      break;
    case 'M':
      backMs = n * 60_000;
      break;
    case 's':
      backMs = n * 1000;
      break;
    default:
      throw new QueryError(`Unknown relative date unit "${kind}"`, 'dateRange');
  }
  day = Math.min(day, daysInMonth(y, mo));
  const months = y * 12 + mo - backMonths;
  y = Math.floor(months / 12);
  mo = months - y * 12;
  day = Math.min(day, daysInMonth(y, mo));
  return { ms: Date.UTC(y, mo, day, h, mi, s, ms) - backMs, hours: kind === 'h' };
}

function parseDate(text: string, zone: string, nowLocal: number, attr: string): Parsed {
  const rel = RELATIVE.exec(text);
  if (rel) {
    const r = relativeBack(nowLocal, rel[2], rel[1] === undefined ? 0 : Number(rel[1]), rel[3]);
    return { localMs: r.ms, relative: true, hoursDelta: r.hours };
  }
  const date = ISO_DATE.exec(text);
  if (date) {
    const ms = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    if (Number.isNaN(ms) || new Date(ms).getUTCDate() !== Number(date[3])) throw new QueryError(`Invalid date "${text}"`, attr);
    return { localMs: ms, relative: false, hoursDelta: false };
  }
  const dt = ISO_DATETIME.exec(text);
  if (dt) {
    const frac = dt[7] === undefined ? 0 : Math.floor(Number(`0.${dt[7]}`) * 1000);
    const wall = Date.UTC(Number(dt[1]), Number(dt[2]) - 1, Number(dt[3]), Number(dt[4]), Number(dt[5]), Number(dt[6] ?? 0), frac);
    if (Number.isNaN(wall)) throw new QueryError(`Invalid date "${text}"`, attr);
    if (dt[8] === undefined) return { localMs: wall, relative: false, hoursDelta: false };
    // An explicit offset: the instant, shown in the project's zone.
    const instant = dt[8] === 'Z' ? wall : wall - offsetMinutes(dt[8]) * 60_000;
    return { localMs: instant + offsetAt(zone, instant), relative: false, hoursDelta: false };
  }
  throw new QueryError(`Invalid date "${text}"`, attr);
}

function offsetMinutes(text: string): number {
  const sign = text[0] === '-' ? -1 : 1;
  const digits = text.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
}

/** An instant (ms) from a relative ("-24h") or absolute date string, in the project's zone. */
export function parseInstant(textValue: string, ctx: TimeContext, attr: string): number {
  const parsed = parseDate(textValue, ctx.zone, localNow(ctx), attr);
  return instantOfLocal(zoneSegments(ctx, parsed.localMs, parsed.localMs), parsed.localMs);
}

/** Local ms → the start of its interval (weeks on the project's week start). */
export function truncateLocal(localMs: number, interval: Interval, weekStart: 0 | 1): number {
  switch (interval) {
    case 'hour':
      return Math.floor(localMs / HOUR) * HOUR;
    case 'day':
      return Math.floor(localMs / DAY) * DAY;
    case 'week': {
      const day = Math.floor(localMs / DAY);
      return (day - mod(day + 4 - weekStart, 7)) * DAY;
    }
    case 'month': {
      const d = new Date(localMs);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    }
  }
}

export function addIntervals(localMs: number, interval: Interval, n: number): number {
  switch (interval) {
    case 'hour':
      return localMs + n * HOUR;
    case 'day':
      return localMs + n * DAY;
    case 'week':
      return localMs + n * 7 * DAY;
    case 'month': {
      const d = new Date(localMs);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1, d.getUTCHours(), d.getUTCMinutes());
    }
  }
}

export function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

/** The integer id the SQL side computes for a bucket starting at local ms (see timeExprs). */
export function bucketId(localStartMs: number, interval: Interval, weekStart: 0 | 1): number {
  switch (interval) {
    case 'hour':
      return Math.floor(localStartMs / HOUR);
    case 'day':
      return Math.floor(localStartMs / DAY);
    case 'week':
      return Math.floor((Math.floor(localStartMs / DAY) + weekOffset(weekStart)) / 7);
    case 'month': {
      const d = new Date(localStartMs);
      return d.getUTCFullYear() * 12 + d.getUTCMonth();
    }
  }
}

/** c such that floor((day + c) / 7) numbers weeks starting on `weekStart` (1970-01-01 was a Thursday). */
export function weekOffset(weekStart: 0 | 1): number {
  return mod(4 - weekStart, 7);
}

export interface Bucket {
  id: number;
  /** Start, local ms. */
  localMs: number;
  /** Start, as an instant (µs since the epoch). */
  startUs: number;
}

export interface ResolvedRange {
  interval: Interval;
  /** Local ms of date_from and of date_to (inclusive, to the µs as PostHog: …59.999999). */
  fromLocal: number;
  toLocal: number;
  /** Events counted: fromUs <= timestamp < toUs (instants, µs). */
  fromUs: number;
  toUs: number;
  buckets: Bucket[];
  segments: readonly OffsetSegment[];
}

const SEGMENT_MARGIN = 62 * DAY;

export function zoneSegments(ctx: TimeContext, fromMs: number, toMs: number): OffsetSegment[] {
  return offsetSegments(ctx.zone, fromMs - SEGMENT_MARGIN, toMs + SEGMENT_MARGIN);
}

/** The now of the context in local ms. */
export function localNow(ctx: TimeContext): number {
  return ctx.nowMs + offsetAt(ctx.zone, ctx.nowMs);
}

/** Local ms → instant µs, through the segments. */
export function localToUs(segments: readonly OffsetSegment[], localMs: number): number {
  return instantOfLocal(segments, localMs) * 1000;
}

/** Builds the buckets from the start of `fromLocal`'s interval while start <= toLocal. */
export function bucketsBetween(fromLocal: number, toLocal: number, interval: Interval, weekStart: 0 | 1, segments: readonly OffsetSegment[]): Bucket[] {
  const out: Bucket[] = [];
  for (let at = truncateLocal(fromLocal, interval, weekStart); at <= toLocal; at = addIntervals(at, interval, 1)) {
    out.push({ id: bucketId(at, interval, weekStart), localMs: at, startUs: localToUs(segments, at) });
    if (out.length > 10_000) throw new QueryError('The date range holds more than 10000 intervals; pick a larger interval', 'interval');
  }
  return out;
}

/**
 * Resolves a dateRange for a trends-like query: PostHog's date_from, date_to, the start of
 * the filtered range (date_from truncated to its interval unless the range is relative
 * to the hour) and the buckets.
 */
export function resolveRange(input: DateRangeInput | null | undefined, interval: Interval, ctx: TimeContext): ResolvedRange {
  const nowLocal = localNow(ctx);
  const explicit = input?.explicitDate === true;

  let toLocal: number;
  let toRelative = true;
  if (input?.date_to) {
    const parsed = parseDate(input.date_to, ctx.zone, nowLocal, 'dateRange.date_to');
    toLocal = parsed.relative ? (parsed.hoursDelta ? truncateLocal(parsed.localMs, 'hour', 0) : truncateLocal(parsed.localMs, 'day', 0)) : parsed.localMs;
    toRelative = parsed.relative;
  } else {
    toLocal = nowLocal;
  }
  let toUsInclusiveExtra = 0;
  if (!explicit) {
    if (interval !== 'hour') {
      toLocal = truncateLocal(toLocal, 'day', 0) + DAY - 1;
      toUsInclusiveExtra = 999;
    } else if (toRelative) {
      toLocal = truncateLocal(toLocal, 'hour', 0) + HOUR - 1;
      toUsInclusiveExtra = 999;
    }
  }

  let fromLocal: number;
  let fromRelative: boolean;
  let fromHours = false;
  const fromText = input?.date_from ?? null;
  if (fromText === 'all') {
    const first = ctx.firstEventMs;
    fromLocal = first === null ? truncateLocal(nowLocal, 'day', 0) : first + offsetAt(ctx.zone, first);
    fromRelative = true;
  } else if (fromText) {
    const parsed = parseDate(fromText, ctx.zone, nowLocal, 'dateRange.date_from');
    // A relative date_from starts its hour (hours back) or else its day, as PostHog truncates it.
    fromLocal = parsed.relative ? truncateLocal(parsed.localMs, parsed.hoursDelta ? 'hour' : 'day', 0) : parsed.localMs;
    fromRelative = parsed.relative;
    fromHours = parsed.hoursDelta;
  } else {
    fromLocal = truncateLocal(nowLocal, 'day', 0) - 7 * DAY;
    fromRelative = false;
  }

  const startOfInterval = !explicit && !(fromRelative && (interval === 'hour' || (interval === 'day' && fromHours)));
  const filterFromLocal = startOfInterval ? truncateLocal(fromLocal, interval, ctx.weekStart) : fromLocal;

  const segments = zoneSegments(ctx, Math.min(filterFromLocal, toLocal) - DAY, Math.max(toLocal, filterFromLocal) + DAY);
  const buckets = bucketsBetween(fromLocal, toLocal, interval, ctx.weekStart, segments);
  return {
    interval,
    fromLocal,
    toLocal,
    fromUs: localToUs(segments, filterFromLocal),
    toUs: localToUs(segments, toLocal) + toUsInclusiveExtra + 1,
    buckets,
    segments,
  };
}

/** The range of the same number of buckets just before `range` (compare to previous period). */
export function previousRange(range: ResolvedRange, ctx: TimeContext): ResolvedRange {
  const n = range.buckets.length;
  const firstLocal = addIntervals(range.buckets[0].localMs, range.interval, -n);
  const lastLocal = addIntervals(range.buckets[0].localMs, range.interval, -1);
  const segments = zoneSegments(ctx, firstLocal - DAY, range.fromLocal + DAY);
  const buckets = bucketsBetween(firstLocal, lastLocal, range.interval, ctx.weekStart, segments);
  const span = range.toLocal - range.fromLocal;
  return {
    interval: range.interval,
    fromLocal: range.fromLocal - span,
    toLocal: range.fromLocal,
    fromUs: buckets[0].startUs,
    toUs: range.buckets[0].startUs,
    buckets,
    segments,
  };
}

/**
 * compareFilter.compare_to: the period starting `compareTo` (a relative date, "-1y", "-4w")
 * before the range's date_from and as long as the range, with buckets of its own.
 */
export function shiftedRange(range: ResolvedRange, compareTo: string, ctx: TimeContext): ResolvedRange {
  const rel = RELATIVE.exec(compareTo);
  if (!rel) throw new QueryError(`compare_to must be a relative date such as -1y or -4w, not "${compareTo}"`, 'compareFilter.compare_to');
  const fromLocal = relativeBack(range.fromLocal, rel[2], rel[1] === undefined ? 0 : Number(rel[1]), rel[3]).ms;
  const toLocal = fromLocal + (range.toLocal - range.fromLocal);
  const segments = zoneSegments(ctx, fromLocal - DAY, toLocal + DAY);
  const buckets = bucketsBetween(fromLocal, toLocal, range.interval, ctx.weekStart, segments);
  // The same edges as the range's: from its interval's start when the range starts at its
  // first bucket, through date_to's last microsecond.
  const fromStart = range.buckets.length > 0 && range.fromUs === range.buckets[0].startUs;
  const toExtra = range.toUs - localToUs(range.segments, range.toLocal);
  return {
    interval: range.interval,
    fromLocal,
    toLocal,
    fromUs: fromStart && buckets.length > 0 ? buckets[0].startUs : localToUs(segments, fromLocal),
    toUs: localToUs(segments, toLocal) + toExtra,
    buckets,
    segments,
  };
}

// ---- formatting (PostHog's strftime patterns) ----

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

function parts(localMs: number) {
  const days = Math.floor(localMs / DAY);
  const c = civilFromDays(days);
  const inDay = localMs - days * DAY;
  return { ...c, hour: Math.floor(inDay / HOUR), minute: Math.floor((inDay % HOUR) / 60_000), second: Math.floor((inDay % 60_000) / 1000) };
}

/** "%Y-%m-%d" (hour: "%Y-%m-%d %H:%M:%S"). */
export function dayString(localMs: number, interval: Interval): string {
  const p = parts(localMs);
  const date = `${p.year}-${pad(p.month)}-${pad(p.day)}`;
  return interval === 'hour' ? `${date} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` : date;
}

/** "%-d-%b-%Y", with " %H:%M" when asked. */
export function dayLabel(localMs: number, withTime = false): string {
  const p = parts(localMs);
  const date = `${p.day}-${MONTHS[p.month - 1]}-${p.year}`;
  return withTime ? `${date} ${pad(p.hour)}:${pad(p.minute)}` : date;
}

/** Trends labels: day "5-Jan-2024", hour "5-Jan 14:00", month "Jan 2024", week a clamped range. */
export function bucketLabel(localMs: number, range: Pick<ResolvedRange, 'interval' | 'fromLocal' | 'toLocal'>, weekStart: 0 | 1): string {
  const p = parts(localMs);
  switch (range.interval) {
    case 'hour':
      return `${p.day}-${MONTHS[p.month - 1]} ${pad(p.hour)}:${pad(p.minute)}`;
    case 'day':
      return dayLabel(localMs);
    case 'month':
      return `${MONTHS[p.month - 1]} ${p.year}`;
    case 'week': {
      const weekStartDay = truncateLocal(localMs, 'week', weekStart);
      const start = Math.max(weekStartDay, truncateLocal(range.fromLocal, 'day', 0));
      const end = Math.max(start, Math.min(weekStartDay + 6 * DAY, truncateLocal(range.toLocal, 'day', 0)));
      return weekRangeLabel(start, end);
    }
  }
}

function weekRangeLabel(start: number, end: number): string {
  const a = parts(start);
  const b = parts(end);
  if (start === end) return dayLabel(start);
  if (a.year !== b.year) return `${dayLabel(start)} – ${dayLabel(end)}`;
  if (a.month !== b.month) return `${a.day}-${MONTHS[a.month - 1]} – ${b.day}-${MONTHS[b.month - 1]}`;
  return `${a.day}–${b.day} ${MONTHS[b.month - 1]}`;
}

/** An ISO 8601 date-time with the zone's offset ("Z" in UTC), as PostHog serializes aware datetimes. */
export function isoWithOffset(localMs: number, segments: readonly OffsetSegment[]): string {
  const instant = instantOfLocal(segments, localMs);
  const offset = segmentOffset(segments, instant);
  const p = parts(localMs);
  const frac = localMs % 1000;
  const base = `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${frac ? `.${pad(frac, 3)}` : ''}`;
  if (offset === 0) return `${base}Z`;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset) / 60_000;
  return `${base}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
