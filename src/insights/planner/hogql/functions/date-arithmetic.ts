// Arithmetic on times: units and intervals, differences, adding and subtracting, truncating, ages.
import { int, join, raw, sql, text, type Sql } from '../../sql.js';
import { expr, fail, instant, num, wallClock, type Expr } from '../expr.js';
import { catalogue, type Fx } from './catalogue.js';
import { backToInstant, constantText, dateTime } from './helpers.js';

const { functions, define } = catalogue();
export { functions as dateArithmetic };

const UNITS = new Map([
  ['second', 'second'], ['minute', 'minute'], ['hour', 'hour'], ['day', 'day'], ['week', 'week'], ['month', 'month'], ['quarter', 'quarter'], ['year', 'year'],
  ['seconds', 'second'], ['minutes', 'minute'], ['hours', 'hour'], ['days', 'day'], ['weeks', 'week'], ['months', 'month'], ['quarters', 'quarter'], ['years', 'year'],
  ['ss', 'second'], ['s', 'second'], ['mi', 'minute'], ['n', 'minute'], ['hh', 'hour'], ['h', 'hour'], ['dd', 'day'], ['d', 'day'], ['wk', 'week'], ['ww', 'week'],
  ['mm', 'month'], ['m', 'month'], ['qq', 'quarter'], ['q', 'quarter'], ['yyyy', 'year'], ['yy', 'year'],
]);
const unitOf = (e: Expr, fx: Fx): string => {
  const unit = UNITS.get(constantText(e, fx, 'the unit').toLowerCase());
  if (unit === undefined) fail(`${fx.name}(): unknown unit '${String(e.constant?.value)}'`, fx.node);
  return unit!;
};
const INTERVAL_OF: Record<string, string> = { second: 'to_seconds', minute: 'to_minutes', hour: 'to_hours', day: 'to_days', week: 'to_weeks', month: 'to_months', quarter: 'to_months', year: 'to_years' };
const interval = (unit: string, n: Expr): Sql => {
  const count = sql`CAST(${num(n)} AS BIGINT)`;
  return unit === 'quarter' ? sql`to_months(${count} * 3)` : sql`${raw(INTERVAL_OF[unit])}(${count})`;
};

define('date and time', ['dateDiff', 'date_diff'], 3, 4, ([u, a, b], fx) => {
  const unit = unitOf(u, fx);
  // Boundaries crossed on the wall clock (ClickHouse's dateDiff); weeks as whole weeks between their Mondays.
  if (unit === 'week') return expr(sql`CAST(date_diff('day', date_trunc('week', ${wallClock(a, fx.tz)}), date_trunc('week', ${wallClock(b, fx.tz)})) / 7 AS BIGINT)`, 'Int', [a, b]);
  return expr(sql`date_diff(${text(unit)}, ${wallClock(a, fx.tz)}, ${wallClock(b, fx.tz)})`, 'Int', [a, b]);
});
define('date and time', ['dateAdd', 'date_add', 'dateSub', 'date_sub'], 3, 3, ([u, n, x], fx) => {
  const unit = unitOf(u, fx);
  const op = raw(fx.name.toLowerCase().includes('sub') ? '-' : '+');
  if (x.type === 'Date') return expr(sql`CAST(${x.sql} ${op} ${interval(unit, n)} AS DATE)`, 'Date', [n, x]);
  return dateTime(sql`(${instant(x, fx.tz)} ${op} ${interval(unit, n)})`, [n, x]);
});
for (const [unit, name] of [['second', 'Seconds'], ['minute', 'Minutes'], ['hour', 'Hours'], ['day', 'Days'], ['week', 'Weeks'], ['month', 'Months'], ['quarter', 'Quarters'], ['year', 'Years']] as const) {
  for (const [prefix, op] of [['add', '+'], ['subtract', '-']] as const) {
    define('date and time', `${prefix}${name}`, 2, 2, ([x, n], fx) =>
      x.type === 'Date' ? expr(sql`CAST(${x.sql} ${raw(op)} ${interval(unit, n)} AS DATE)`, 'Date', [x, n]) : dateTime(sql`(${instant(x, fx.tz)} ${raw(op)} ${interval(unit, n)})`, [x, n]));
  }
  define('date and time', `toInterval${name.slice(0, -1)}`, 1, 1, ([n]) => expr(interval(unit, n), 'Interval', [n]));
}
define('date and time', ['dateTrunc', 'date_trunc'], 2, 3, ([u, x], fx) => {
  const unit = unitOf(u, fx);
  return dateTime(backToInstant(sql`date_trunc(${text(unit)}, ${wallClock(x, fx.tz)})`, x, fx), [x]);
});

// age(unit, start, end): whole units elapsed, the remainder dropped (ClickHouse's age, unlike
// dateDiff's boundaries); months count a month only once its day and time are reached.
define('date and time', 'age', 3, 3, ([u, a, b], fx) => {
  const unit = unitOf(u, fx);
  const [s, e] = [wallClock(a, fx.tz), wallClock(b, fx.tz)];
  const seconds: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400, week: 604800 };
  if (seconds[unit] !== undefined) return expr(sql`CAST(trunc((epoch(${e}) - epoch(${s})) / ${int(seconds[unit])}) AS BIGINT)`, 'Int', [a, b]);
  const months = sql`((year(${e}) - year(${s})) * 12 + month(${e}) - month(${s}))`;
  const within = (t: Sql) => sql`(epoch(${t}) - epoch(date_trunc('month', ${t})))`;
  const whole = sql`(${months} - CASE WHEN ${months} > 0 AND ${within(e)} < ${within(s)} THEN 1 WHEN ${months} < 0 AND ${within(e)} > ${within(s)} THEN -1 ELSE 0 END)`;
  const per = unit === 'year' ? 12 : unit === 'quarter' ? 3 : 1;
  return expr(per === 1 ? whole : sql`CAST(trunc(${whole} / ${int(per)}) AS BIGINT)`, 'Int', [a, b]);
});
// (time, interval) forms: the time moved by the interval.
define('date and time', ['timeStampAdd', 'timeStampSub', 'date_subtract'], 2, 2, ([x, span], fx) => {
  const op = raw(/sub/i.test(fx.name) ? '-' : '+');
  if (span.type !== 'Interval') fail(`${fx.name}() takes a time and an interval, e.g. ${fx.name}(timestamp, INTERVAL 1 DAY)`, fx.node);
  if (x.type === 'Date') return expr(sql`CAST(${x.sql} ${op} ${span.sql} AS DATE)`, 'Date', [x, span]);
  return dateTime(sql`(${instant(x, fx.tz)} ${op} ${span.sql})`, [x, span]);
});

define('date and time', 'make_interval', 6, 6, (parts) => {
  const units = ['year', 'month', 'day', 'hour', 'minute', 'second'];
  return expr(sql`(${join(parts.map((p, i) => interval(units[i], p)), ' + ')})`, 'Interval', parts);
});
// dateAdd(t, interval) and dateSub(t, interval): the two-argument forms PostHog accepts too.
for (const name of ['dateAdd', 'date_add', 'dateSub', 'date_sub']) {
  const three = functions.get(name)!;
  define('date and time', name, 2, 3, (args, fx) => (args.length === 3 ? three.build(args, fx) : functions.get(/sub/i.test(name) ? 'timeStampSub' : 'timeStampAdd')!.build(args, { ...fx, name })));
}
