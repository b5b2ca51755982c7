// Dates for the is_date_* operators, as instants in epoch milliseconds (UTC). Relative
// dates ("-7d", "3h", "2w", "1m", "1y": always that long before now) need the caller's
// clock; absolute ones are ISO 8601 / RFC 3339 text, a bare date meaning midnight UTC.
// Calendar arithmetic is done on integers so evaluation allocates no Date objects.

import { parseRustFloat } from './values.js';
import { civilFromDays } from '../time/civil.js';
import { boundedMemo } from './bounded-memo.js';

const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

const RELATIVE = /^-?(\d+)([hdwmy])$/;

export interface RelativeDate {
  readonly amount: number;
  readonly unit: 'h' | 'd' | 'w' | 'm' | 'y';
}

/** "-7d" and "7d" both mean seven days ago; amounts of 10000 or more are not dates. */
export function parseRelativeDate(text: string): RelativeDate | undefined {
  const m = RELATIVE.exec(text);
  if (!m) return undefined;
  const amount = Number(m[1]);
  return amount < 10_000 ? { amount, unit: m[2] as RelativeDate['unit'] } : undefined;
}

// Howard Hinnant's days-from-civil and civil-from-days (proleptic Gregorian).
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function lastDayOfMonth(y: number, m: number): number {
  if (m === 2) return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** The instant `relative` stands for at `now`; months and years step back one at a time, clamping the day. */
export function resolveRelativeDate(relative: RelativeDate, now: number): number {
  const { amount, unit } = relative;
  if (unit === 'h') return now - amount * MS_PER_HOUR;
  if (unit === 'd') return now - amount * MS_PER_DAY;
  if (unit === 'w') return now - amount * 7 * MS_PER_DAY;

  const days = Math.floor(now / MS_PER_DAY);
  const timeOfDay = now - days * MS_PER_DAY;
  let { year, month, day } = civilFromDays(days);

  for (let i = 0; i < amount; i++) {
    if (unit === 'm') {
      if (month === 1) {
        year -= 1;
        month = 12;
      } else {
        month -= 1;
      }
      day = Math.min(day, lastDayOfMonth(year, month));
    } else {
      year -= 1;
      if (month === 2) day = Math.min(day, lastDayOfMonth(year, month));
    }
  }
  return daysFromCivil(year, month, day) * MS_PER_DAY + timeOfDay;
}

// Date, optional time (seconds and fraction optional), optional offset: RFC 3339 with an
// offset, and the naive "YYYY-MM-DD[ T]HH:MM[:SS[.f]]" forms PostHog reads as UTC.
const ABSOLUTE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))?)?$/;

/** An absolute date string as an instant, or undefined when it is not one. */
export const parseAbsoluteDate = boundedMemo(4096, parseAbsoluteDateUncached);

function parseAbsoluteDateUncached(text: string): number | undefined {
  const m = ABSOLUTE.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > lastDayOfMonth(year, month)) return undefined;
  if (m[4] === undefined) return daysFromCivil(year, month, day) * MS_PER_DAY;
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  // RFC 3339 requires seconds whenever an offset is written.
  if ((m[8] !== undefined || m[9] !== undefined) && m[6] === undefined) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const fraction = m[7] === undefined ? 0 : Number('0' + m[7].slice(0, 10)) * 1000;
  let offset = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + fraction - offset;
}

/** A filter or property date string at `now`: relative first, then absolute. */
export function parseDateString(text: string, now: number): number | undefined {
  const relative = parseRelativeDate(text);
  return relative ? resolveRelativeDate(relative, now) : parseAbsoluteDate(text);
}

// chrono's range is roughly ±262,000 years; anything past it is no date at all.
const MAX_TIMESTAMP_SECONDS = 8.2e12;

function fromUnixSeconds(seconds: number): number | undefined {
  // Rust casts NaN to 0 and saturates negative nanoseconds to 0.
  if (Number.isNaN(seconds)) return 0;
  if (!Number.isFinite(seconds)) return undefined;
  const whole = Math.floor(seconds);
  if (Math.abs(whole) > MAX_TIMESTAMP_SECONDS) return undefined;
  const nanos = Math.max(0, Math.round((seconds % 1) * 1e9));
  return whole * 1000 + nanos / 1e6;
}

/** A person's property as an instant: numbers (and numeric strings) are Unix seconds. */
export function propertyDate(value: unknown, now: number): number | undefined {
  if (typeof value === 'number') return fromUnixSeconds(value);
  if (typeof value !== 'string') return undefined;
  const seconds = parseRustFloat(value);
  return seconds === undefined ? parseDateString(value, now) : fromUnixSeconds(seconds);
}
