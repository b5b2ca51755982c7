// Where a time falls on the calendar (the project's wall clock, or the value's own zone's): its
// parts, the start of its day, week, month or interval, its week number, its time slot.
import { int, raw, sql, text, type Sql } from '../../sql.js';
import { date, expr, fail, instant, num, wallClock, type Expr, type HogNode } from '../expr.js';
import { catalogue, type Fx } from './catalogue.js';
import { backToInstant, constantInt, dateTime, inZone, MAX_BUILT, tzOf } from './helpers.js';

const { functions, define } = catalogue();
export { functions as calendar };

const PARTS: Record<string, string> = {
  toYear: 'year', toQuarter: 'quarter', toMonth: 'month', toDayOfMonth: 'day', toDayOfYear: 'doy', toHour: 'hour', toMinute: 'minute', toSecond: 'second',
  toISOWeek: 'week', toISOYear: 'isoyear',
};
for (const [name, part] of Object.entries(PARTS)) {
  define('date and time', name, 1, 1, ([a], fx) => expr(sql`CAST(${raw(part)}(${wallClock(a, fx.tz)}) AS BIGINT)`, 'Int', [a]));
}

// ClickHouse's modes: 0 Monday 1 … Sunday 7 (the default), 1 Monday 0 … 6, 2 Sunday 0 … 6, 3 Sunday 1 … 7.
define('date and time', 'toDayOfWeek', 1, 3, ([a, mode], fx) => {
  const m = mode === undefined ? 0 : constantInt(mode, fx, 'the mode');
  const d = sql`CAST(isodow(${wallClock(a, fx.tz)}) AS BIGINT)`;
  const by: Record<number, Sql> = { 0: d, 1: sql`(${d} - 1)`, 2: sql`(${d} % 7)`, 3: sql`(${d} % 7 + 1)` };
  if (by[m] === undefined) fail(`toDayOfWeek() mode ${m} is not supported: use 0 to 3`, fx.node);
  return expr(by[m], 'Int', [a]);
});
// The Monday of the ISO year's first week (the week holding 4 January).
define('date and time', 'toStartOfISOYear', 1, 1, ([a], fx) =>
  expr(sql`CAST(date_trunc('week', make_date(CAST(isoyear(${wallClock(a, fx.tz)}) AS INTEGER), 1, 4)) AS DATE)`, 'Date', [a]));

// toStartOfX: a calendar unit begins on the wall clock; Day/Hour/Minute/Second stay instants, longer units are dates (ClickHouse's types).
const TRUNC: Record<string, { unit: string; date: boolean }> = {
  toStartOfYear: { unit: 'year', date: true }, toStartOfQuarter: { unit: 'quarter', date: true }, toStartOfMonth: { unit: 'month', date: true },
  toStartOfDay: { unit: 'day', date: false }, toStartOfHour: { unit: 'hour', date: false }, toStartOfMinute: { unit: 'minute', date: false },
  toStartOfSecond: { unit: 'second', date: false }, toMonday: { unit: 'week', date: true },
};
for (const [name, { unit, date: isDate }] of Object.entries(TRUNC)) {
  define('date and time', name, 1, name === 'toStartOfDay' ? 2 : 1, ([given, zone], fx) => {
    // toStartOfDay(t, zone): that zone's midnight.
    const a = inZone(given, zone, fx);
    const local = sql`date_trunc(${text(unit)}, ${wallClock(a, fx.tz)})`;
    return isDate ? expr(sql`CAST(${local} AS DATE)`, 'Date', [a]) : dateTime(backToInstant(local, a, fx), [a], { zone: a.zone });
  });
}
for (const [name, minutes] of [['toStartOfFiveMinutes', 5], ['toStartOfTenMinutes', 10], ['toStartOfFifteenMinutes', 15]] as const) {
  define('date and time', name, 1, 1, ([a], fx) => {
    const local = wallClock(a, fx.tz);
    return dateTime(backToInstant(sql`(date_trunc('hour', ${local}) + to_minutes(CAST(floor(minute(${local}) / ${int(minutes)}) * ${int(minutes)} AS BIGINT)))`, a, fx), [a]);
  });
}
// toStartOfInterval(t, INTERVAL n unit): ClickHouse's grid for each unit (DateLUTImpl's
// toStartOfXInterval): years floored to a multiple of n; months counted from January 1900
// (quarters as 3n months); weeks of n from the Monday 1970-01-05; days counted from
// 1970-01-01; hours from the day's midnight; minutes and seconds on the epoch. Year to week
// give a Date, day and shorter an instant.
const INTERVAL_CALL = /^toInterval(Second|Minute|Hour|Day|Week|Month|Quarter|Year)$/;
define('date and time', 'toStartOfInterval', 2, 3, ([given0, , zone], fx) => {
  // A time zone given: the grid is that zone's wall clock, and an instant answer is shown in it.
  const a = inZone(given0, zone, fx);
  const given = (fx.node.args as HogNode[] | undefined)?.[1];
  const match = given?.node === 'Call' ? INTERVAL_CALL.exec(String(given.name)) : null;
  const count = (given?.args as HogNode[] | undefined)?.[0];
  const n = count?.node === 'Constant' ? count.value : undefined;
  if (match === null || typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
    return fail('toStartOfInterval() needs a constant interval of whole units, as INTERVAL 15 MINUTE', fx.node);
  }
  const unit = match[1].toLowerCase();
  const local = wallClock(a, tzOf(a, fx));
  const shownIn = { zone: a.zone };
  const days = sql`(CAST(${local} AS DATE) - DATE '1970-01-01')`;
  const fromDays = (d: Sql) => sql`CAST(DATE '1970-01-01' + CAST(${d} AS INTEGER) AS DATE)`;
  const months = (k: number) => {
    const index = sql`((year(${local}) - 1900) * 12 + month(${local}) - 1)`;
    const first = sql`(floor(${index} / ${int(k)}) * ${int(k)})`;
    return expr(sql`make_date(CAST(1900 + floor(${first} / 12) AS BIGINT), CAST(${first} % 12 + 1 AS BIGINT), 1)`, 'Date', [a]);
  };
  switch (unit) {
    case 'year':
      return expr(sql`make_date(CAST(floor(year(${local}) / ${int(n)}) * ${int(n)} AS BIGINT), 1, 1)`, 'Date', [a]);
    case 'quarter':
      return months(3 * n);
    case 'month':
      return months(n);
    case 'week':
      return expr(n === 1 ? sql`CAST(date_trunc('week', ${local}) AS DATE)` : fromDays(sql`4 + floor((${days} - 4) / ${int(7 * n)}) * ${int(7 * n)}`), 'Date', [a]);
    case 'day':
      return dateTime(backToInstant(sql`CAST(${fromDays(sql`floor(${days} / ${int(n)}) * ${int(n)}`)} AS TIMESTAMP)`, a, fx), [a], shownIn);
    case 'hour':
      return dateTime(backToInstant(sql`(date_trunc('day', ${local}) + to_hours(CAST(floor(hour(${local}) / ${int(n)}) * ${int(n)} AS BIGINT)))`, a, fx), [a], shownIn);
    default: {
      const seconds = unit === 'minute' ? 60 * n : n;
      return dateTime(sql`to_timestamp(floor(epoch(${instant(given0, fx.tz)}) / ${int(seconds)}) * ${int(seconds)})`, [a], shownIn);
    }
  }
});
define('date and time', 'toLastDayOfMonth', 1, 1, ([a], fx) => expr(sql`last_day(${date(a, fx.tz)})`, 'Date', [a]));
define('date and time', 'toStartOfWeek', 1, 2, ([a, mode], fx) => {
  // Mode 0 (or a Sunday project by default): weeks start on Sunday; 1 and 3: on Monday.
  const m = mode === undefined ? (fx.weekStart === 1 ? 1 : 0) : constantInt(mode, fx, 'the mode');
  if (![0, 1, 3].includes(m)) fail(`toStartOfWeek() mode ${m} is not supported: use 0 (Sunday) or 1 (Monday)`, fx.node);
  const local = wallClock(a, fx.tz);
  return expr(m === 0 ? sql`CAST(date_trunc('week', ${local} + INTERVAL 1 DAY) - INTERVAL 1 DAY AS DATE)` : sql`CAST(date_trunc('week', ${local}) AS DATE)`, 'Date', [a]);
});

// toLastDayOfWeek(t[, mode]): the Saturday of a Sunday week (mode 0), the Sunday of a Monday week (1, 3).
define('date and time', 'toLastDayOfWeek', 1, 2, ([a, mode], fx) => {
  const m = mode === undefined ? (fx.weekStart === 1 ? 1 : 0) : constantInt(mode, fx, 'the mode');
  if (![0, 1, 3].includes(m)) fail(`toLastDayOfWeek() mode ${m} is not supported: use 0 (Sunday) or 1 (Monday)`, fx.node);
  const local = wallClock(a, fx.tz);
  return expr(m === 0 ? sql`CAST(date_trunc('week', ${local} + INTERVAL 1 DAY) + INTERVAL 5 DAY AS DATE)` : sql`CAST(date_trunc('week', ${local}) + INTERVAL 6 DAY AS DATE)`, 'Date', [a]);
});
// The half hour an instant falls in, on the epoch's grid.
define('date and time', 'timeSlot', 1, 1, ([a], fx) => dateTime(sql`to_timestamp(floor(epoch(${instant(a, fx.tz)}) / 1800) * 1800)`, [a]));
// timeSlots(start, duration[, size]): from start rounded down to size seconds, every size, up to start + duration.
define('date and time', 'timeSlots', 2, 3, ([a, duration, step], fx) => {
  const size = step === undefined ? raw('1800') : sql`CAST(${num(step)} AS BIGINT)`;
  const from = sql`CAST(epoch(${instant(a, fx.tz)}) AS BIGINT)`;
  const checked = sql`(CASE WHEN ${size} < 1 THEN error('timeSlots() size must be positive') WHEN (${num(duration)}) / ${size} > ${raw(String(MAX_BUILT))} THEN error(${text(`timeSlots() is limited to ${MAX_BUILT} elements`)}) ELSE ${size} END)`;
  return expr(sql`list_transform(range((${from} // ${checked}) * ${checked}, ${from} + CAST(${num(duration)} AS BIGINT) + 1, ${checked}), lambda hq_s: to_timestamp(hq_s))`, 'Array', [a, duration]);
});

// toWeek(t[, mode]) and toYearWeek: MySQL's week modes 0-7, as ClickHouse numbers them. Odd
// modes start weeks on Monday, even ones on Sunday; week 1 is the first with four days in the
// year (modes 1, 3, 4, 6) or the first holding the week's first day (0, 2, 5, 7); modes 2, 3,
// 6 and 7 count 1-53, a week 0 being the last of the year before (and, with the four-day rule,
// a late week 1 of the next). toYearWeek always counts so, and gives year × 100 + week.
function week(a: Expr, mode: Expr | undefined, zone: Expr | undefined, fx: Fx, withYear: boolean): Expr {
  const m = mode === undefined ? 0 : constantInt(mode, fx, 'the mode');
  if (m < 0 || m > 7) fail(`${fx.name}() mode ${m} is not supported: use 0 to 7`, fx.node);
  const monday = m % 2 === 1;
  const fourDays = [1, 3, 4, 6].includes(m);
  const wraps = withYear || (m & 2) === 2;
  const d = sql`CAST(${wallClock(inZone(a, zone, fx), fx.tz)} AS DATE)`;
  const dayIn = (x: Sql) => (monday ? sql`(isodow(${x}) - 1)` : sql`(isodow(${x}) % 7)`);
  const weekIn = (day: Sql, jan1: Sql) =>
    sql`(CAST(floor((dayofyear(${day}) - 1 + ${dayIn(jan1)}) / 7) AS BIGINT) + CASE WHEN ${dayIn(jan1)} ${raw(fourDays ? '<= 3' : '= 0')} THEN 1 ELSE 0 END)`;
  const here = weekIn(d, sql`make_date(year(${d}), 1, 1)`);
  const before = weekIn(sql`make_date(year(${d}) - 1, 12, 31)`, sql`make_date(year(${d}) - 1, 1, 1)`);
  // The week's fourth day in the next year: that year's week 1.
  const next = fourDays ? sql`year(${d} - CAST(${dayIn(d)} AS INTEGER) + 3) > year(${d})` : raw('false');
  if (!wraps) return expr(here, 'UInt', [a]);
  const w = sql`(CASE WHEN ${next} THEN 1 WHEN ${here} = 0 THEN ${before} ELSE ${here} END)`;
  if (!withYear) return expr(w, 'UInt', [a]);
  return expr(sql`((year(${d}) + CASE WHEN ${next} THEN 1 WHEN ${here} = 0 THEN -1 ELSE 0 END) * 100 + ${w})`, 'UInt', [a]);
}
define('date and time', 'toWeek', 1, 3, ([a, mode, zone], fx) => week(a, mode, zone, fx, false));
define('date and time', 'toYearWeek', 1, 3, ([a, mode, zone], fx) => week(a, mode, zone, fx, true));
