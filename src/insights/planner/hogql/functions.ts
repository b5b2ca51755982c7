// The HogQL functions the compiler knows, each as its arity and the DuckDB SQL it becomes.
// Only these names compile: a DuckDB function (read_csv, getenv, current_setting, …) is not
// reachable by calling it, since a call's name is looked up here and never printed. Every
// DuckDB name below is this module's own text; arguments arrive compiled (values bound).
// Semantics follow ClickHouse's as PostHog exposes them (docs: /work/shared/reference/hogql.md
// §4-5): 1-based strings and arrays, text properties read as numbers by numeric functions,
// calendar functions on the project's wall clock, NULLs skipped by groupArray.
import { int, join, raw, sql, text, texts, type Sql } from '../sql.js';
import { date, expr, fail, instant, num, SESSION_ZONE, str, tupleSql, wallClock, zoneSql, type Expr, type HogNode, type HType } from './expr.js';

export type FunctionGroup = 'aggregate' | 'window' | 'date and time' | 'string' | 'JSON' | 'array' | 'conditional' | 'mathematics' | 'type conversion' | 'comparison and logic' | 'hashing and encoding' | 'IP addresses' | 'PostHog';

export interface Fx {
  /** The project's time zone, bound. */
  tz: Sql;
  weekStart: 0 | 1;
  distinct: boolean;
  /** Parametric arguments: `quantile(0.9)(x)` has params [0.9]. */
  params: Expr[];
  node: HogNode;
  name: string;
}

export interface FunctionSpec {
  group: FunctionGroup;
  min: number;
  max: number;
  aggregate?: boolean;
  /** How many parametric arguments it takes (quantile: 1). */
  params?: [number, number];
  build(args: Expr[], fx: Fx): Expr;
}

const FUNCTIONS = new Map<string, FunctionSpec>();
// ClickHouse's case-insensitive names (PostHog looks these up lowercased too).
const CASE_INSENSITIVE = new Set(['count', 'sum', 'avg', 'min', 'max', 'if', 'not', 'coalesce', 'ifnull', 'nullif', 'isnull', 'lower', 'upper', 'length', 'concat', 'substring', 'trim', 'now', 'round', 'floor', 'abs', 'sortablesemver',
  'exp', 'log', 'ln', 'log2', 'log10', 'sqrt', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'pow', 'power', 'sign', 'degrees', 'radians', 'factorial', 'ceil', 'trunc',
  'ascii', 'position', 'extract', 'replace', 'btrim', 'reverse', 'least', 'greatest', 'max2', 'min2']);

function define(group: FunctionGroup, names: string | string[], min: number, max: number, build: FunctionSpec['build'], extra: Partial<FunctionSpec> = {}): void {
  for (const name of Array.isArray(names) ? names : [names]) FUNCTIONS.set(name, { group, min, max, build, ...extra });
}

const list = (args: readonly Sql[]) => join(args, ', ');
// Sizes a query asks a function to build (repeat, pad, range) are bounded: a 10⁹-element
// list is built before any LIMIT applies. Past the bound, DuckDB raises an input error (a 400).
export const MAX_BUILT = 1_000_000;
const bounded = (n: Sql, what: string) =>
  sql`(CASE WHEN abs(${n}) > ${raw(String(MAX_BUILT))} THEN error(${text(`${what} is limited to ${MAX_BUILT} elements`)}) ELSE ${n} END)`;
const call = (name: string, args: readonly Sql[]) => sql`${raw(name)}(${list(args)})`;
const constantText = (e: Expr, fx: Fx, what: string): string => {
  if (e.constant === undefined || typeof e.constant.value !== 'string') fail(`${fx.name}() needs ${what} as a constant string`, fx.node);
  return e.constant!.value as string;
};
const constantInt = (e: Expr, fx: Fx, what: string): number => {
  const v = e.constant?.value;
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(`${fx.name}() needs ${what} as a constant integer`, fx.node);
  return v as number;
};

// ---- conditionals, comparison and logic

define('conditional', 'if', 3, 3, ([c, a, b]) => expr(sql`(CASE WHEN ${c.sql} THEN ${a.sql} ELSE ${b.sql} END)`, a.type === 'Null' ? b.type : a.type, [c, a, b]));
define('conditional', 'multiIf', 3, Infinity, (args, fx) => {
  if (args.length % 2 === 0) fail(`Function '${fx.name}' expects an odd number of arguments`, fx.node);
  const whens: Sql[] = [];
  for (let i = 0; i + 1 < args.length; i += 2) whens.push(sql` WHEN ${args[i].sql} THEN ${args[i + 1].sql}`);
  const last = args[args.length - 1];
  return expr(sql`(CASE${{ parts: whens }} ELSE ${last.sql} END)`, args[1].type === 'Null' ? last.type : args[1].type, args);
});
define('conditional', '_caseWithExpression', 4, Infinity, (args) => {
  const [subject, ...rest] = args;
  const whens: Sql[] = [];
  for (let i = 0; i + 1 < rest.length; i += 2) whens.push(sql` WHEN ${rest[i].sql} THEN ${rest[i + 1].sql}`);
  return expr(sql`(CASE ${subject.sql}${{ parts: whens }} ELSE ${rest[rest.length - 1].sql} END)`, rest[1].type, args);
});
define('conditional', ['coalesce', 'ifNull'], 1, Infinity, (args) => expr(call('coalesce', args.map((a) => a.sql)), args.find((a) => a.type !== 'Null')?.type ?? 'Null', args, { nullable: args.every((a) => a.nullable) }));
define('conditional', 'nullIf', 2, 2, ([a, b]) => expr(sql`nullif(${a.sql}, ${b.sql})`, a.type, [a, b], { nullable: true }));
define('conditional', 'isNull', 1, 1, ([a]) => expr(sql`(${a.sql} IS NULL)`, 'Bool', [a], { nullable: false }));
define('conditional', 'isNotNull', 1, 1, ([a]) => expr(sql`(${a.sql} IS NOT NULL)`, 'Bool', [a], { nullable: false }));
define('conditional', ['assumeNotNull', 'toNullable'], 1, 1, ([a]) => a);
define('comparison and logic', 'and', 2, Infinity, (args) => expr(sql`(${join(args.map((a) => a.sql), ' AND ')})`, 'Bool', args));
define('comparison and logic', 'or', 2, Infinity, (args) => expr(sql`(${join(args.map((a) => a.sql), ' OR ')})`, 'Bool', args));
define('comparison and logic', 'xor', 2, Infinity, (args) => expr(sql`((${join(args.map((a) => sql`CAST(${a.sql} AS INTEGER)`), ' + ')}) % 2 = 1)`, 'Bool', args));
define('comparison and logic', 'not', 1, 1, ([a]) => expr(sql`(NOT ${a.sql})`, 'Bool', [a]));

// ---- type conversion

// Times as ClickHouse prints them: the wall clock, no zone.
define('type conversion', 'toString', 1, 2, ([a], fx) => expr(a.type === 'DateTime' ? sql`strftime(${wallClock(a, fx.tz)}, '%Y-%m-%d %H:%M:%S')` : str(a), 'String', [a]));
define('type conversion', ['toInt', 'toInt64', 'toInt32', 'toUInt64', 'toUInt32'], 1, 1, ([a]) =>
  expr(a.type === 'Float' ? sql`TRY_CAST(trunc(${a.sql}) AS BIGINT)` : sql`TRY_CAST(${a.type === 'String' ? a.sql : num(a)} AS BIGINT)`, 'Int', [a], { nullable: true }));
define('type conversion', ['toFloat', 'toFloat64', 'toDecimal'], 1, 2, ([a]) => expr(sql`TRY_CAST(${a.sql} AS DOUBLE)`, 'Float', [a], { nullable: true }));
define('type conversion', 'toIntOrZero', 1, 1, ([a]) => expr(sql`coalesce(TRY_CAST(${a.sql} AS BIGINT), 0)`, 'Int', [a], { nullable: false }));
define('type conversion', 'toFloatOrZero', 1, 1, ([a]) => expr(sql`coalesce(TRY_CAST(${a.sql} AS DOUBLE), 0)`, 'Float', [a], { nullable: false }));
define('type conversion', 'toUUID', 1, 1, ([a]) => expr(sql`TRY_CAST(${a.sql} AS UUID)`, 'UUID', [a], { nullable: true }));
define('type conversion', 'toBool', 1, 1, ([a]) => expr(sql`TRY_CAST(${a.sql} AS BOOLEAN)`, 'Bool', [a], { nullable: true }));
define('type conversion', 'toTypeName', 1, 1, ([a]) => expr(sql`typeof(${a.sql})`, 'String', [a], { nullable: false }));

// ---- date and time (calendar functions read the project's wall clock)

const tzOf = (e: Expr, fx: Fx) => (e.zone === undefined ? fx.tz : zoneSql(e.zone));
// Whether the zone is one the ICU data names (DuckDB's and Intl's alike).
const knownZone = (name: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
};
// A value read on a time zone given as a function's argument (toTimeZone, toStartOfDay,
// toStartOfInterval, formatDateTime): its calendar is that zone's wall clock, its instant
// shown in it. No zone: the value as it is.
const inZone = (x: Expr, zone: Expr | undefined, fx: Fx): Expr => {
  if (zone === undefined) return x;
  const name = constantText(zone, fx, 'the time zone');
  if (!knownZone(name)) fail(`${fx.name}(): unknown time zone '${name}'`, fx.node);
  return { ...x, zone: name };
};
const backToInstant = (local: Sql, e: Expr, fx: Fx) => (tzOf(e, fx) === SESSION_ZONE ? sql`CAST(${local} AS TIMESTAMPTZ)` : sql`timezone(${tzOf(e, fx)}, ${local})`);
const dateTime = (s: Sql, from: Expr[], extra: Partial<Expr> = {}) => expr(s, 'DateTime', from, extra);

define('date and time', ['now', 'current_timestamp'], 0, 1, () => dateTime(raw('now()'), [], { nullable: false }));
define('date and time', ['today', 'current_date'], 0, 0, (_a, fx) => expr(sql`CAST(timezone(${fx.tz}, now()) AS DATE)`, 'Date', [], { nullable: false }));
define('date and time', 'yesterday', 0, 0, (_a, fx) => expr(sql`CAST(timezone(${fx.tz}, now()) AS DATE) - 1`, 'Date', [], { nullable: false }));
define('date and time', ['toDate', 'to_date'], 1, 1, ([a], fx) => expr(date(a, fx.tz), 'Date', [a], { nullable: a.nullable || a.type === 'String' }));
// A time zone argument (toDateTime64's third, the others' second): text is read on that
// zone's wall clock and the value shown in it, as ClickHouse's DateTime('zone').
define('date and time', ['toDateTime', 'toDateTime64', 'parseDateTimeBestEffort', 'parseDateTimeBestEffortOrNull'], 1, 3, (args, fx) => {
  const [a] = args;
  const zone = fx.name === 'toDateTime64' ? args[2] : args[1];
  const nullable = a.nullable || a.type === 'String';
  if (zone === undefined) return dateTime(instant(a, fx.tz), [a], { nullable });
  const at = inZone(a, zone, fx);
  return dateTime(instant(a, tzOf(at, fx)), [a], { nullable, zone: at.zone });
});
define('date and time', 'toTimeZone', 2, 2, ([a, zone], fx) => {
  const at = inZone(a, zone, fx);
  return dateTime(instant(a, fx.tz), [a], { zone: at.zone });
});
// Whole seconds, milliseconds or microseconds since the epoch, the fraction dropped (ClickHouse's truncation).
const EPOCHS: Record<string, (x: Sql) => Sql> = {
  toUnixTimestamp: (x) => sql`(epoch_us(${x}) // 1000000)`,
  toUnixTimestamp64Milli: (x) => sql`epoch_ms(${x})`,
  toUnixTimestamp64Micro: (x) => sql`epoch_us(${x})`,
};
// A zone argument says on which wall clock text is read; an instant is the same in every zone.
define('date and time', Object.keys(EPOCHS), 1, 2, ([a, zone], fx) => expr(EPOCHS[fx.name](instant(a, tzOf(inZone(a, zone, fx), fx))), 'Int', [a]));
define('date and time', ['fromUnixTimestamp', 'to_timestamp'], 1, 1, ([a]) => dateTime(sql`to_timestamp(${num(a)})`, [a]));

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

// ClickHouse's formatDateTime codes that DuckDB's strftime spells differently (%i minute, %M month name).
const FORMAT_CODES: Record<string, string> = { i: '%M', M: '%B', e: '%-d', f: '%f', h: '%I', k: '%-H', l: '%-I', r: '%I:%M %p', s: '%S', Q: '' };
function duckFormat(chFormat: string): string {
  return chFormat.replace(/%(.)/g, (whole, code: string) => (code === 'Q' ? whole : FORMAT_CODES[code] ?? whole));
}
// A third argument, a time zone: the text is that zone's wall clock.
define('date and time', ['formatDateTime', 'to_char'], 2, 3, ([x, f, zone], fx) => {
  const at = inZone(x, zone, fx);
  return expr(sql`strftime(${wallClock(at, fx.tz)}, ${text(duckFormat(constantText(f, fx, 'the format')))})`, 'String', [x]);
});
define('date and time', 'toYYYYMM', 1, 1, ([x], fx) => expr(sql`CAST(strftime(${wallClock(x, fx.tz)}, '%Y%m') AS BIGINT)`, 'Int', [x]));
define('date and time', 'toYYYYMMDDhhmmss', 1, 1, ([x], fx) => expr(sql`CAST(strftime(${wallClock(x, fx.tz)}, '%Y%m%d%H%M%S') AS BIGINT)`, 'Int', [x]));
define('date and time', 'toYYYYMMDD', 1, 1, ([x], fx) => expr(sql`CAST(strftime(${wallClock(x, fx.tz)}, '%Y%m%d') AS BIGINT)`, 'Int', [x]));

// ---- strings

const textFn = (name: string, duck: string, type: HType = 'String', min = 1, max = min) =>
  define('string', name, min, max, (args) => expr(call(duck, args.map((a, i) => (i === 0 ? str(a) : a.sql))), type, args));
textFn('lower', 'lower');
textFn('upper', 'upper');
textFn('lowerUTF8', 'lower');
textFn('upperUTF8', 'upper');
textFn('lengthUTF8', 'length', 'UInt');
textFn('reverse', 'reverse');
textFn('startsWith', 'starts_with', 'Bool', 2);
textFn('endsWith', 'ends_with', 'Bool', 2);
define('string', 'repeat', 2, 2, ([a, n]) => expr(sql`repeat(${str(a)}, CAST(${bounded(num(n), 'repeat()')} AS BIGINT))`, 'String', [a, n]));
textFn('left', 'left', 'String', 2);
textFn('right', 'right', 'String', 2);
textFn('initcap', 'initcap');
define('string', 'length', 1, 1, ([a]) => expr(a.type === 'Array' ? sql`len(${a.sql})` : sql`length(${str(a)})`, 'UInt', [a]));
define('string', 'concat', 1, Infinity, (args) => expr(call('concat', args.map(str)), 'String', args, { nullable: false }));
define('string', ['substring', 'substringUTF8', 'substr', 'mid'], 2, 3, ([s, o, l]) =>
  expr(l === undefined ? sql`substring(${str(s)}, ${num(o)})` : sql`substring(${str(s)}, ${num(o)}, ${num(l)})`, 'String', [s, o, ...(l ? [l] : [])]));
for (const [names, duck] of [[['trim', 'btrim'], 'trim'], [['trimLeft', 'ltrim'], 'ltrim'], [['trimRight', 'rtrim'], 'rtrim']] as const) {
  define('string', [...names], 1, 2, ([s, c]) => expr(c === undefined ? call(duck, [str(s)]) : call(duck, [str(s), str(c)]), 'String', [s]));
}
for (const [names, duck] of [[['leftPad', 'lpad', 'leftPadUTF8'], 'lpad'], [['rightPad', 'rpad', 'rightPadUTF8'], 'rpad']] as const) {
  define('string', [...names], 2, 3, ([s, n, c]) => expr(call(duck, [str(s), sql`CAST(${bounded(num(n), `${duck}()`)} AS INTEGER)`, c === undefined ? sql`' '` : str(c)]), 'String', [s, n]));
}
// position(haystack, needle, start): the match's place in the whole string, searching from start.
define('string', ['position', 'positionUTF8', 'locate'], 2, 3, ([h, n, from]) => {
  if (from === undefined) return expr(sql`strpos(${str(h)}, ${str(n)})`, 'UInt', [h, n]);
  const start = sql`CAST(${num(from)} AS BIGINT)`;
  const found = sql`strpos(substr(${str(h)}, ${start}), ${str(n)})`;
  return expr(sql`(CASE WHEN ${start} < 1 OR ${start} > length(${str(h)}) + 1 OR ${found} = 0 THEN 0 ELSE ${found} + ${start} - 1 END)`, 'UInt', [h, n, from]);
});
define('string', ['positionCaseInsensitive', 'positionCaseInsensitiveUTF8'], 2, 2, ([h, n]) => expr(sql`strpos(lower(${str(h)}), lower(${str(n)}))`, 'UInt', [h, n]));
define('string', ['replace', 'replaceAll'], 3, 3, ([s, a, b]) => expr(sql`replace(${str(s)}, ${str(a)}, ${str(b)})`, 'String', [s, a, b]));
define('string', 'replaceRegexpAll', 3, 3, ([s, a, b]) => expr(sql`regexp_replace(${str(s)}, ${str(a)}, ${str(b)}, 'g')`, 'String', [s, a, b]));
// The first occurrence of a substring (an empty one: none).
define('string', 'replaceOne', 3, 3, ([s, a, b]) => {
  const [h, n] = [str(s), str(a)];
  return expr(sql`(CASE WHEN ${n} = '' OR strpos(${h}, ${n}) = 0 THEN ${h} ELSE substr(${h}, 1, strpos(${h}, ${n}) - 1) || ${str(b)} || substr(${h}, strpos(${h}, ${n}) + length(${n})) END)`, 'String', [s, a, b]);
});
define('string', 'replaceRegexpOne', 3, 3, ([s, a, b]) => expr(sql`regexp_replace(${str(s)}, ${str(a)}, ${str(b)})`, 'String', [s, a, b]));
define('string', 'match', 2, 2, ([s, re]) => expr(sql`regexp_matches(${str(s)}, ${str(re)})`, 'Bool', [s, re]));
// Whether a constant pattern has a capturing group (a '(' not escaped, not in a class, not '(?').
function capturingGroups(re: Expr): boolean {
  const v = re.constant?.value;
  if (typeof v !== 'string') return false;
  return /\((?!\?)/.test(v.replace(/\\./g, '').replace(/\[[^\]]*\]/g, ''));
}

// DuckDB takes a group index only as a constant: a whole number from 0 to 9.
function groupIndex(g: Expr | undefined, fx: Fx): number {
  if (g === undefined) return 1;
  const v = g.constant?.value;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 9) return fail(`${fx.name}() takes its group index as a whole number from 0 to 9`, fx.node);
  return v;
}

// extractAll(s, re): every match, each the first group's when the pattern has one.
define('string', 'extractAll', 2, 2, ([s, re]) => expr(sql`regexp_extract_all(${str(s)}, ${str(re)}, ${raw(capturingGroups(re) ? '1' : '0')})`, 'Array', [s, re]));
define('string', 'ascii', 1, 1, ([a]) => expr(sql`ascii(${str(a)})`, 'Int', [a]));
// extract(s, re): the first group's match when the pattern has one, else the whole match
// ('' without a match, as ClickHouse's); regexpExtract(s, re, n): group n (default 1).
define('string', 'extract', 2, 2, ([s, re]) => expr(sql`regexp_extract(${str(s)}, ${str(re)}, ${raw(capturingGroups(re) ? '1' : '0')})`, 'String', [s, re]));
define('string', 'regexpExtract', 2, 3, ([s, re, g], fx) => expr(sql`regexp_extract(${str(s)}, ${str(re)}, ${raw(String(groupIndex(g, fx)))})`, 'String', [s, re]));
// The split functions' max_substrings: at most that many parts, the rest dropped (ClickHouse's default).
const atMost = (parts: Sql, max: Expr | undefined) => (max === undefined ? parts : sql`(CASE WHEN ${num(max)} > 0 THEN list_slice(${parts}, 1, CAST(${num(max)} AS BIGINT)) ELSE ${parts} END)`);
define('string', ['splitByChar', 'splitByString'], 2, 3, ([sep, s, max]) => expr(atMost(sql`string_split(${str(s)}, ${str(sep)})`, max), 'Array', [sep, s]));
define('string', 'arrayStringConcat', 1, 2, ([a, sep]) => expr(sql`array_to_string(${a.sql}, ${sep === undefined ? sql`''` : str(sep)})`, 'String', [a]));
define('string', 'empty', 1, 1, ([a]) => expr(a.type === 'Array' ? sql`(len(${a.sql}) = 0)` : sql`(${a.sql} IS NULL OR ${str(a)} = '')`, 'Bool', [a], { nullable: false }));
define('string', 'notEmpty', 1, 1, ([a]) => expr(a.type === 'Array' ? sql`(len(${a.sql}) > 0)` : sql`(${a.sql} IS NOT NULL AND ${str(a)} <> '')`, 'Bool', [a], { nullable: false }));
define('string', 'like', 2, 2, ([a, b]) => expr(sql`(${str(a)} LIKE ${str(b)})`, 'Bool', [a, b]));
define('string', 'ilike', 2, 2, ([a, b]) => expr(sql`(${str(a)} ILIKE ${str(b)})`, 'Bool', [a, b]));
define('string', 'notLike', 2, 2, ([a, b]) => expr(sql`(${str(a)} NOT LIKE ${str(b)})`, 'Bool', [a, b]));
define('string', 'notILike', 2, 2, ([a, b]) => expr(sql`(${str(a)} NOT ILIKE ${str(b)})`, 'Bool', [a, b]));
define('string', 'domain', 1, 1, ([a]) => expr(sql`nullif(regexp_extract(${str(a)}, '^(?:[^/@:]+://)?(?:[^/@]+@)?([^/:?#]+)', 1), '')`, 'String', [a], { nullable: true }));
// A URL's parts, as ClickHouse's URL functions read them: '' where the part is absent.
define('string', 'protocol', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '^([a-zA-Z][a-zA-Z0-9+.-]*)://', 1)`, 'String', [a]));
define('string', 'path', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '^(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*)?([^?#]*)', 1)`, 'String', [a]));
define('string', 'queryString', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '\\?([^#]*)', 1)`, 'String', [a]));
define('string', 'fragment', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '#(.*)$', 1)`, 'String', [a]));
define('string', 'cutQueryString', 1, 1, ([a]) => expr(sql`regexp_replace(${str(a)}, '\\?[^#]*', '')`, 'String', [a]));
define('string', 'cutFragment', 1, 1, ([a]) => expr(sql`regexp_replace(${str(a)}, '#.*$', '')`, 'String', [a]));
define('string', 'cutQueryStringAndFragment', 1, 1, ([a]) => expr(sql`regexp_replace(${str(a)}, '[?#].*$', '')`, 'String', [a]));
// The first value of a query parameter, as written in the URL (not decoded). As ClickHouse's,
// parameters are read from the first '?' or '#' on, the fragment's too.
define('string', 'extractURLParameter', 2, 2, ([a, name], fx) => {
  const key = constantText(name, fx, 'the parameter name').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return expr(sql`regexp_extract(regexp_extract(${str(a)}, '[?#].*$'), ${text(`[?&#]${key}=([^&#]*)`)}, 1)`, 'String', [a]);
});
// ---- hashing and encoding. ClickHouse's MD5/SHA* answer the digest's bytes (FixedString),
// read as text by hex(); PostHog's lowercase md5(x) is hex(MD5(x)), upper-case hex text. A
// value that is not UTF-8 text comes back as its bytes' hex, as PostHog's renderer writes it.
for (const [name, duck] of [['MD5', 'md5'], ['SHA1', 'sha1'], ['SHA256', 'sha256']] as const) {
  define('hashing and encoding', name, 1, 1, ([a]) => expr(sql`unhex(${raw(duck)}(${str(a)}))`, 'String', [a]));
}
define('hashing and encoding', 'md5', 1, 1, ([a]) => expr(sql`upper(md5(${str(a)}))`, 'String', [a]));
// Integers in whole bytes, as ClickHouse's hex(1) = '01'; text and digests byte by byte.
define('hashing and encoding', 'hex', 1, 1, ([a]) => {
  if (a.type !== 'Int' && a.type !== 'UInt') return expr(sql`hex(${a.sql})`, 'String', [a]);
  return expr(sql`(CASE WHEN length(hex(${a.sql})) % 2 = 1 THEN '0' || hex(${a.sql}) ELSE hex(${a.sql}) END)`, 'String', [a]);
});
define('hashing and encoding', 'unhex', 1, 1, ([a]) => expr(sql`unhex(${str(a)})`, 'String', [a]));
define('string', 'base64Encode', 1, 1, ([a]) => expr(sql`to_base64(encode(${str(a)}))`, 'String', [a]));
define('string', 'base64Decode', 1, 1, ([a]) => expr(sql`decode(from_base64(${str(a)}))`, 'String', [a]));

// ---- JSON (keys as a bound JSON pointer: one key or several, constants)

const POINTER_KEY = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
function jsonPath(keys: Expr[], fx: Fx): Sql {
  const parts = keys.map((k) => {
    const v = k.constant?.value;
    if (typeof v === 'number' && Number.isInteger(v)) return String(v > 0 ? v - 1 : v);
    if (typeof v !== 'string') fail(`${fx.name}() needs its keys as constants`, fx.node);
    return POINTER_KEY(v as string);
  });
  return sql`${text(parts.length === 0 ? '' : `/${parts.join('/')}`)}`;
}
// As ClickHouse's (FunctionsJSON.cpp, JSONExtractTree.cpp): text that is not JSON, a missing
// key or a value of the wrong kind reads as the type's default (try(): DuckDB would raise).
const jsonFn = (name: string, type: HType, read: (j: Sql, path: Sql) => Sql) =>
  define('JSON', name, 1, 6, ([j, ...keys], fx) => expr(read(j.sql, jsonPath(keys, fx)), type, [j], { nullable: true }));
// A number from a JSON number or a string holding one; a fraction is cut toward zero for an
// integer type (DuckDB's cast would round it); true/false, null, arrays and objects: none.
const jsonNumber = (j: Sql, p: Sql, duck: string) => {
  const s = sql`json_extract_string(${j}, ${p})`;
  const whole = raw(duck);
  // (true/false read as text, which no cast takes as a number: one JSON read, no kind check.)
  return sql`try(CASE WHEN regexp_matches(${s}, '[.eE]') THEN TRY_CAST(trunc(TRY_CAST(${s} AS DOUBLE)) AS ${whole}) ELSE TRY_CAST(${s} AS ${whole}) END)`;
};
jsonFn('JSONExtractString', 'String', (j, p) => sql`coalesce(try(json_extract_string(${j}, ${p})), '')`);
jsonFn('JSONExtractInt', 'Int', (j, p) => sql`coalesce(${jsonNumber(j, p, 'BIGINT')}, 0)`);
jsonFn('JSONExtractUInt', 'UInt', (j, p) => sql`coalesce(${jsonNumber(j, p, 'UBIGINT')}, 0)`);
jsonFn('JSONExtractFloat', 'Float', (j, p) => sql`coalesce(try(TRY_CAST(json_extract_string(${j}, ${p}) AS DOUBLE)), 0)`);
// true/false, or an integer other than 0; anything else (a string "true", 1.5) is false.
jsonFn('JSONExtractBool', 'Bool', (j, p) => sql`coalesce(try(CASE json_type(${j}, ${p}) WHEN 'BOOLEAN' THEN json_extract_string(${j}, ${p}) = 'true' WHEN 'BIGINT' THEN TRY_CAST(json_extract_string(${j}, ${p}) AS HUGEINT) <> 0 WHEN 'UBIGINT' THEN TRY_CAST(json_extract_string(${j}, ${p}) AS HUGEINT) <> 0 END), false)`);
jsonFn('JSONExtractRaw', 'String', (j, p) => sql`coalesce(try(CAST(json_extract(${j}, ${p}) AS VARCHAR)), '')`);
jsonFn('JSONHas', 'Bool', (j, p) => sql`coalesce(try(json_extract(${j}, ${p}) IS NOT NULL), false)`);
// An array's elements or an object's keys; 0 for anything else.
jsonFn('JSONLength', 'UInt', (j, p) => sql`coalesce(try(CASE json_type(${j}, ${p}) WHEN 'ARRAY' THEN json_array_length(${j}, ${p}) WHEN 'OBJECT' THEN len(json_keys(${j}, ${p})) END), 0)`);
// Each element's JSON text, quotes kept, a null element the text null (ClickHouse's); not an array: empty.
jsonFn('JSONExtractArrayRaw', 'Array', (j, p) => sql`coalesce(try(list_transform(TRY_CAST(json_extract(${j}, ${p}) AS JSON[]), lambda x: coalesce(CAST(x AS VARCHAR), 'null'))), CAST([] AS VARCHAR[]))`);
jsonFn('JSONExtractKeys', 'Array', (j, p) => sql`coalesce(try(CASE WHEN json_type(${j}, ${p}) = 'OBJECT' THEN json_keys(${j}, ${p}) END), CAST([] AS VARCHAR[]))`);
// ClickHouse's names of the kinds; a missing key is Null (the enum's default).
jsonFn('JSONType', 'String', (j, p) => sql`coalesce(try(CASE json_type(${j}, ${p}) WHEN 'OBJECT' THEN 'Object' WHEN 'ARRAY' THEN 'Array' WHEN 'VARCHAR' THEN 'String' WHEN 'BIGINT' THEN 'Int64' WHEN 'UBIGINT' THEN CASE WHEN TRY_CAST(json_extract_string(${j}, ${p}) AS BIGINT) IS NULL THEN 'UInt64' ELSE 'Int64' END WHEN 'DOUBLE' THEN 'Double' WHEN 'BOOLEAN' THEN 'Bool' END), 'Null')`);
define('JSON', 'isValidJSON', 1, 1, ([j]) => expr(sql`coalesce(json_valid(${str(j)}), false)`, 'Bool', [j], { nullable: false }));

// transform(x, from, to[, default]): x's value in `to` at its place in `from`; not there: the
// default, or x itself without one.
define('conditional', 'transform', 3, 4, ([x, from, to, dflt]) => {
  const at = sql`list_position(${from.sql}, ${x.sql})`;
  return expr(sql`(CASE WHEN ${at} IS NULL THEN ${dflt === undefined ? x.sql : dflt.sql} ELSE (${to.sql})[${at}] END)`, 'Unknown', [x, from, to], { nullable: true });
});

// ---- arrays (1-based; lambdas compile to DuckDB's `lambda x: …`)

const lambdaFirst = (name: string, duck: (f: Sql, a: Sql) => Sql, type: (a: Expr) => HType) =>
  define('array', name, 2, 2, ([f, a], fx) => {
    if (f.type !== 'Lambda') fail(`${fx.name}() takes a lambda first, e.g. ${fx.name}(x -> x, arr)`, fx.node);
    return expr(duck(f.sql, a.sql), type(a), [a]);
  });
lambdaFirst('arrayMap', (f, a) => sql`list_transform(${a}, ${f})`, () => 'Array');
lambdaFirst('arrayFilter', (f, a) => sql`list_filter(${a}, ${f})`, () => 'Array');
lambdaFirst('arrayExists', (f, a) => sql`(len(list_filter(${a}, ${f})) > 0)`, () => 'Bool');
lambdaFirst('arrayAll', (f, a) => sql`(len(list_filter(${a}, ${f})) = len(${a}))`, () => 'Bool');
lambdaFirst('arrayFirst', (f, a) => sql`list_filter(${a}, ${f})[1]`, () => 'Unknown');
lambdaFirst('arrayCount', (f, a) => sql`len(list_filter(${a}, ${f}))`, () => 'UInt');
define('array', 'array', 0, Infinity, (args) => expr(sql`[${list(args.map((a) => a.sql))}]`, 'Array', args, { nullable: false }));
define('array', 'tuple', 1, Infinity, (args) => expr(tupleSql(args.map((a) => a.sql)), 'Tuple', args, { nullable: false }));
define('array', 'has', 2, 2, ([a, x]) => expr(sql`list_contains(${a.sql}, ${x.sql})`, 'Bool', [a, x]));
define('array', 'hasAll', 2, 2, ([a, b]) => expr(sql`list_has_all(${a.sql}, ${b.sql})`, 'Bool', [a, b]));
define('array', 'hasAny', 2, 2, ([a, b]) => expr(sql`list_has_any(${a.sql}, ${b.sql})`, 'Bool', [a, b]));
// arr[n], counted from the end when n is negative (as ClickHouse's).
define('array', 'arrayElement', 2, 2, ([a, n]) => expr(sql`(${a.sql})[${num(n)}]`, 'Unknown', [a, n], { nullable: true }));
define('array', 'indexOf', 2, 2, ([a, x]) => expr(sql`coalesce(list_position(${a.sql}, ${x.sql}), 0)`, 'UInt', [a, x]));
define('array', 'arraySum', 1, 1, ([a]) => expr(sql`list_sum(${a.sql})`, 'Float', [a]));
define('array', 'arraySort', 1, 1, ([a]) => expr(sql`list_sort(${a.sql})`, 'Array', [a]));
define('array', 'arrayReverseSort', 1, 1, ([a]) => expr(sql`list_reverse_sort(${a.sql})`, 'Array', [a]));
lambdaFirst('arrayLast', (f, a) => sql`list_filter(${a}, ${f})[-1]`, () => 'Unknown');
define('array', 'arrayMin', 1, 1, ([a]) => expr(sql`list_min(${a.sql})`, 'Unknown', [a], { nullable: true }));
define('array', 'arrayMax', 1, 1, ([a]) => expr(sql`list_max(${a.sql})`, 'Unknown', [a], { nullable: true }));
define('array', 'arrayAvg', 1, 1, ([a]) => expr(sql`list_avg(${a.sql})`, 'Float', [a], { nullable: true }));
// The elements in both, each once.
define('array', 'arrayIntersect', 2, 2, ([a, b]) => expr(sql`list_sort(list_intersect(${a.sql}, ${b.sql}))`, 'Array', [a, b]));
// tupleElement(t, n): as t.n.
define('array', 'tupleElement', 2, 2, ([t, n], fx) => {
  const index = constantInt(n, fx, 'the index');
  if (index < 1) fail('SQL indexes start from one, not from zero. E.g: array[1]', fx.node);
  return expr(sql`struct_extract_at(${t.sql}, ${raw(String(index))})`, 'Unknown', [t], { nullable: true });
});
// Runs of equal neighbours kept once; and the running sums.
define('array', 'arrayCompact', 1, 1, ([a]) => expr(sql`list_filter(${a.sql}, lambda x, i: i = 1 OR x IS DISTINCT FROM (${a.sql})[i - 1])`, 'Array', [a]));
define('array', 'arrayCumSum', 1, 1, ([a]) => expr(sql`list_transform(${a.sql}, lambda x, i: list_sum((${a.sql})[1:i]))`, 'Array', [a]));
// How many elements equal x (NULL counting as a value, as ClickHouse's).
define('array', 'countEqual', 2, 2, ([a, x]) => expr(sql`len(list_filter(${a.sql}, lambda hq_elem: hq_elem IS NOT DISTINCT FROM ${x.sql}))`, 'UInt', [a, x]));
// [1, 2, …, length]; and how many distinct elements.
define('array', 'arrayEnumerate', 1, 1, ([a]) => expr(sql`generate_series(1, len(${a.sql}))`, 'Array', [a]));
define('array', 'arrayUniq', 1, 1, ([a]) => expr(sql`len(list_distinct(${a.sql}))`, 'UInt', [a]));
define('array', 'arrayReverse', 1, 1, ([a]) => expr(sql`list_reverse(${a.sql})`, 'Array', [a]));
define('array', 'arrayDistinct', 1, 1, ([a]) => expr(sql`list_distinct(${a.sql})`, 'Array', [a]));
define('array', 'arrayConcat', 2, Infinity, (args) => expr(call('list_concat', args.map((a) => a.sql)), 'Array', args));
define('array', 'arrayPushBack', 2, 2, ([a, x]) => expr(sql`list_append(${a.sql}, ${x.sql})`, 'Array', [a, x]));
define('array', 'arrayPushFront', 2, 2, ([a, x]) => expr(sql`list_prepend(${x.sql}, ${a.sql})`, 'Array', [a, x]));
define('array', 'arraySlice', 2, 3, ([a, o, n]) =>
  expr(n === undefined ? sql`list_slice(${a.sql}, ${num(o)}, len(${a.sql}))` : sql`list_slice(${a.sql}, ${num(o)}, ${num(o)} + ${num(n)} - 1)`, 'Array', [a, o]));
define('array', 'arrayFlatten', 1, 1, ([a]) => expr(sql`flatten(${a.sql})`, 'Array', [a]));
define('array', 'range', 1, 3, (args) => {
  // The list's length is (end - start) / step; bounding the ends bounds it for steps of 1 or more.
  const ends = args.map((a, i) => (i < 2 ? sql`CAST(${bounded(num(a), 'range()')} AS BIGINT)` : sql`CAST(${num(a)} AS BIGINT)`));
  if (args.length === 3) ends[2] = sql`(CASE WHEN ${ends[2]} = 0 THEN error('range() step cannot be 0') ELSE ${ends[2]} END)`;
  return expr(call('range', ends), 'Array', args);
});
// Compiled by compile.ts as a lateral join; listed here so the catalogue names it.
define('array', 'arrayJoin', 1, 1, ([a]) => expr(sql`unnest(${a.sql})`, 'Unknown', [a], { nullable: true }));

// ---- mathematics

const mathFn = (names: string | string[], duck: string, min = 1, max = min, type: HType = 'Float') =>
  define('mathematics', names, min, max, (args) => expr(call(duck, args.map(num)), type, args));
mathFn('abs', 'abs');
mathFn('floor', 'floor', 1, 2);
mathFn(['ceil', 'ceiling'], 'ceil', 1, 2);
mathFn('sqrt', 'sqrt');
mathFn('cbrt', 'cbrt');
mathFn(['pow', 'power'], 'pow', 2);
mathFn('exp', 'exp');
mathFn(['log', 'ln'], 'ln');
mathFn('log2', 'log2');
mathFn('log10', 'log10');
mathFn('sign', 'sign', 1, 1, 'Int');
for (const trig of ['sin', 'cos', 'tan', 'asin', 'acos', 'atan']) mathFn(trig, trig);
mathFn(['greatest', 'max2'], 'greatest', 2, 2);
mathFn(['least', 'min2'], 'least', 2, 2);
mathFn(['trunc', 'truncate'], 'trunc');
mathFn(['isNaN'], 'isnan', 1, 1, 'Bool');
mathFn(['isFinite'], 'isfinite', 1, 1, 'Bool');
mathFn(['isInfinite'], 'isinf', 1, 1, 'Bool');
const whole = (e: Expr) => sql`CAST(${num(e)} AS BIGINT)`;
define('mathematics', 'gcd', 2, 2, ([a, b]) => expr(sql`gcd(${whole(a)}, ${whole(b)})`, 'Int', [a, b]));
define('mathematics', 'lcm', 2, 2, ([a, b]) => expr(sql`lcm(${whole(a)}, ${whole(b)})`, 'Int', [a, b]));
// The remainder taken toward the divisor's sign: never negative for a positive divisor.
define('mathematics', 'positiveModulo', 2, 2, ([a, b]) => expr(sql`(((${num(a)} % ${num(b)}) + ${num(b)}) % ${num(b)})`, 'Int', [a, b]));
define('mathematics', 'round', 1, 2, ([x, n]) => expr(n === undefined ? sql`round(${num(x)})` : sql`round(${num(x)}, CAST(${num(n)} AS INTEGER))`, 'Float', [x]));
// Ties to the even neighbour (ClickHouse's roundBankers; its round does so for floats too).
define('mathematics', 'roundBankers', 1, 2, ([x, n]) => expr(sql`round_even(${num(x)}, CAST(${n === undefined ? raw('0') : num(n)} AS INTEGER))`, 'Float', [x]));
define('mathematics', 'intDiv', 2, 2, ([a, b]) => expr(sql`(CAST(${num(a)} AS BIGINT) // CAST(${num(b)} AS BIGINT))`, 'Int', [a, b]));
define('mathematics', 'intDivOrZero', 2, 2, ([a, b]) => expr(sql`coalesce(CAST(${num(a)} AS BIGINT) // nullif(CAST(${num(b)} AS BIGINT), 0), 0)`, 'Int', [a, b]));
define('mathematics', 'modulo', 2, 2, ([a, b]) => expr(sql`(${num(a)} % ${num(b)})`, 'Int', [a, b]));
define('mathematics', 'plus', 2, 2, ([a, b]) => expr(sql`(${num(a)} + ${num(b)})`, 'Float', [a, b]));
define('mathematics', 'minus', 2, 2, ([a, b]) => expr(sql`(${num(a)} - ${num(b)})`, 'Float', [a, b]));
define('mathematics', 'multiply', 2, 2, ([a, b]) => expr(sql`(${num(a)} * ${num(b)})`, 'Float', [a, b]));
define('mathematics', 'divide', 2, 2, ([a, b]) => expr(sql`(${num(a)} / ${num(b)})`, 'Float', [a, b]));
define('mathematics', 'pi', 0, 0, () => expr(raw('pi()'), 'Float', [], { nullable: false }));
define('mathematics', 'e', 0, 0, () => expr(raw('exp(1)'), 'Float', [], { nullable: false }));

// ---- aggregates (ClickHouse's -If forms: the condition last, as a FILTER)

function aggregate(names: string | string[], build: (args: Expr[], fx: Fx) => { sql: Sql; type: HType; nullable?: boolean }, min: number, max: number, params?: [number, number]) {
  for (const name of Array.isArray(names) ? names : [names]) {
    FUNCTIONS.set(name, {
      group: 'aggregate', min, max, aggregate: true, params,
      build(args, fx) {
        const built = build(args, fx);
        return { sql: built.sql, type: built.type, aggregate: name, nullable: built.nullable ?? (built.type !== 'UInt' && built.type !== 'Array') };
      },
    });
  }
}
const withIf = (inner: Sql, cond: Expr) => sql`${inner} FILTER (WHERE ${cond.sql})`;
const distinctOf = (args: Expr[]) => (args.length === 1 ? args[0].sql : sql`row(${list(args.map((a) => a.sql))})`);

aggregate('count', (args, fx) => ({ sql: args.length === 0 ? raw('count(*)') : fx.distinct ? sql`count(DISTINCT ${args[0].sql})` : sql`count(${args[0].sql})`, type: 'UInt' }), 0, 1);
aggregate('countIf', (args) => ({ sql: args.length === 1 ? withIf(raw('count(*)'), args[0]) : withIf(sql`count(${args[0].sql})`, args[1]), type: 'UInt' }), 1, 2);
aggregate(['uniq', 'uniqExact', 'uniqHLL12', 'uniqCombined', 'uniqCombined64', 'uniqTheta'], (args) => ({ sql: sql`count(DISTINCT ${distinctOf(args)})`, type: 'UInt' }), 1, Infinity);
aggregate(['uniqIf', 'uniqExactIf'], (args) => ({ sql: withIf(sql`count(DISTINCT ${distinctOf(args.slice(0, -1))})`, args[args.length - 1]), type: 'UInt' }), 2, Infinity);
// A sum of values that cannot be NULL is 0 over no rows (ClickHouse's); of nullable ones, NULL.
const summed = (total: Sql, x: Expr, type: HType) => (x.nullable ? { sql: total, type } : { sql: sql`coalesce(${total}, 0)`, type, nullable: false });
const sumType = (x: Expr): HType => (x.type === 'Int' || x.type === 'UInt' ? 'Int' : 'Float');
aggregate('sum', ([x], fx) => summed(sql`sum(${raw(fx.distinct ? 'DISTINCT ' : '')}${num(x)})`, x, sumType(x)), 1, 1);
aggregate('sumIf', ([x, c]) => summed(withIf(sql`sum(${num(x)})`, c), x, sumType(x)), 2, 2);
aggregate('avg', ([x], fx) => ({ sql: sql`avg(${raw(fx.distinct ? 'DISTINCT ' : '')}${num(x)})`, type: 'Float' }), 1, 1);
aggregate('avgIf', ([x, c]) => ({ sql: withIf(sql`avg(${num(x)})`, c), type: 'Float' }), 2, 2);
for (const name of ['min', 'max'] as const) {
  aggregate(name, ([x]) => ({ sql: sql`${raw(name)}(${x.sql})`, type: x.type }), 1, 1);
  aggregate(`${name}If`, ([x, c]) => ({ sql: withIf(sql`${raw(name)}(${x.sql})`, c), type: x.type }), 2, 2);
}
aggregate('any', ([x]) => ({ sql: sql`any_value(${x.sql})`, type: x.type }), 1, 1);
aggregate('anyIf', ([x, c]) => ({ sql: withIf(sql`any_value(${x.sql})`, c), type: x.type }), 2, 2);
aggregate('anyLast', ([x]) => ({ sql: sql`last(${x.sql})`, type: x.type }), 1, 1);
aggregate('argMin', ([x, y]) => ({ sql: sql`arg_min(${x.sql}, ${y.sql})`, type: x.type }), 2, 2);
aggregate('argMax', ([x, y]) => ({ sql: sql`arg_max(${x.sql}, ${y.sql})`, type: x.type }), 2, 2);
aggregate('argMinIf', ([x, y, c]) => ({ sql: withIf(sql`arg_min(${x.sql}, ${y.sql})`, c), type: x.type }), 3, 3);
aggregate('argMaxIf', ([x, y, c]) => ({ sql: withIf(sql`arg_max(${x.sql}, ${y.sql})`, c), type: x.type }), 3, 3);
aggregate('median', ([x]) => ({ sql: sql`quantile_cont(${num(x)}, 0.5)`, type: 'Float' }), 1, 1);
const fraction = (p: Expr, fx: Fx): number => {
  const v = p.constant?.value;
  if (typeof v !== 'number' || v < 0 || v > 1) fail(`${fx.name}() takes a level between 0 and 1`, fx.node);
  return v as number;
};
aggregate('quantile', ([x], fx) => ({ sql: sql`quantile_cont(${num(x)}, ${raw(String(fraction(fx.params[0], fx)))})`, type: 'Float' }), 1, 1, [1, 1]);
aggregate('quantileIf', ([x, c], fx) => ({ sql: withIf(sql`quantile_cont(${num(x)}, ${raw(String(fraction(fx.params[0], fx)))})`, c), type: 'Float' }), 2, 2, [1, 1]);
aggregate('quantiles', ([x], fx) => ({ sql: sql`quantile_cont(${num(x)}, [${raw(fx.params.map((p) => String(fraction(p, fx))).join(', '))}])`, type: 'Array' }), 1, 1, [1, 20]);
aggregate(['groupArray', 'array_agg'], ([x]) => ({ sql: sql`coalesce(list(${x.sql}) FILTER (WHERE ${x.sql} IS NOT NULL), [])`, type: 'Array' }), 1, 1);
aggregate('groupArrayIf', ([x, c]) => ({ sql: sql`coalesce(list(${x.sql}) FILTER (WHERE ${x.sql} IS NOT NULL AND ${c.sql}), [])`, type: 'Array' }), 2, 2);
// PostHog's: arrayStringConcat(groupArray(x), sep) ('' over no rows), and toBool(min(x)).
aggregate('string_agg', ([x, sep]) => ({ sql: sql`coalesce(string_agg(${str(x)}, ${str(sep)}), '')`, type: 'String', nullable: false }), 2, 2);
aggregate('every', ([x]) => ({ sql: sql`bool_and(CAST(${x.sql} AS BOOLEAN))`, type: 'Bool' }), 1, 1);
// topK(n)(x): the n most frequent values, most frequent first (approximate in both).
aggregate('topK', ([x], fx) => ({ sql: sql`coalesce(approx_top_k(${x.sql}, ${int(constantInt(fx.params[0], fx, 'the count'))}), [])`, type: 'Array' }), 1, 1, [1, 1]);
// ClickHouse's quantileExact: the sorted values' element at floor(level × n), 0-based.
const exactAt = (x: Expr, level: number) =>
  sql`(list_sort(list(${num(x)}) FILTER (WHERE ${x.sql} IS NOT NULL)))[least(CAST(floor(${raw(String(level))} * count(${x.sql})) AS BIGINT) + 1, count(${x.sql}))]`;
aggregate('quantileExact', ([x], fx) => ({ sql: exactAt(x, fraction(fx.params[0], fx)), type: 'Float' }), 1, 1, [1, 1]);
aggregate('medianExact', ([x]) => ({ sql: exactAt(x, 0.5), type: 'Float' }), 1, 1);
aggregate('anyHeavy', ([x]) => ({ sql: sql`mode(${x.sql})`, type: x.type }), 1, 1);
// PostHog's json_agg: toJSONString(groupArray(x)).
aggregate('json_agg', ([x]) => ({ sql: sql`CAST(to_json(coalesce(list(${x.sql}) FILTER (WHERE ${x.sql} IS NOT NULL), [])) AS VARCHAR)`, type: 'String', nullable: false }), 1, 1);
// Over every element of every array of the group.
aggregate('avgArray', ([x]) => ({ sql: sql`list_avg(flatten(list(${x.sql})))`, type: 'Float' }), 1, 1);
aggregate('medianArray', ([x]) => ({ sql: sql`list_aggregate(flatten(list(${x.sql})), 'median')`, type: 'Float' }), 1, 1);
aggregate('groupUniqArray', ([x]) => ({ sql: sql`coalesce(list(DISTINCT ${x.sql}) FILTER (WHERE ${x.sql} IS NOT NULL), [])`, type: 'Array' }), 1, 1);
for (const [name, duck] of [['stddevPop', 'stddev_pop'], ['stddevSamp', 'stddev_samp'], ['varPop', 'var_pop'], ['varSamp', 'var_samp']] as const) {
  aggregate(name, ([x]) => ({ sql: sql`${raw(duck)}(${num(x)})`, type: 'Float' }), 1, 1);
}
for (const [name, duck] of [['corr', 'corr'], ['covarPop', 'covar_pop'], ['covarSamp', 'covar_samp']] as const) {
  aggregate(name, ([x, y]) => ({ sql: sql`${raw(duck)}(${num(x)}, ${num(y)})`, type: 'Float' }), 2, 2);
}

// ---- window-only functions (aggregates work over windows too)

const windowFn = (name: string, min: number, max: number, build: (args: Expr[]) => { sql: Sql; type: HType }) =>
  define('window', name, min, max, (args) => {
    const b = build(args);
    return expr(b.sql, b.type, args);
  });
windowFn('row_number', 0, 0, () => ({ sql: raw('row_number()'), type: 'UInt' }));
windowFn('rank', 0, 0, () => ({ sql: raw('rank()'), type: 'UInt' }));
windowFn('dense_rank', 0, 0, () => ({ sql: raw('dense_rank()'), type: 'UInt' }));
windowFn('percent_rank', 0, 0, () => ({ sql: raw('percent_rank()'), type: 'Float' }));
windowFn('cume_dist', 0, 0, () => ({ sql: raw('cume_dist()'), type: 'Float' }));
windowFn('ntile', 1, 1, ([n]) => ({ sql: sql`ntile(${num(n)})`, type: 'UInt' }));
for (const [names, duck] of [[['lag', 'lagInFrame'], 'lag'], [['lead', 'leadInFrame'], 'lead']] as const) {
  for (const name of names) windowFn(name, 1, 3, (args) => ({ sql: call(duck, args.map((a) => a.sql)), type: args[0].type }));
}
windowFn('first_value', 1, 1, ([x]) => ({ sql: sql`first_value(${x.sql})`, type: x.type }));
windowFn('last_value', 1, 1, ([x]) => ({ sql: sql`last_value(${x.sql})`, type: x.type }));
windowFn('nth_value', 2, 2, ([x, n]) => ({ sql: sql`nth_value(${x.sql}, ${num(n)})`, type: x.type }));

// ---- the rest of PostHog's catalogue that DuckDB answers as ClickHouse does (issue 28).
// PostHog's names that hedgerow refuses on purpose are in unsupported.ts, each with why.

const lambdaOf = (f: Expr, fx: Fx): Sql => (f.type === 'Lambda' ? f.sql : fail(`${fx.name}() takes a lambda first, e.g. ${fx.name}(x -> x, arr)`, fx.node));
// Each element's value under a lambda, a list the index lambdas below read by position.
const mapped = (f: Expr, a: Expr, fx: Fx) => sql`list_transform(${a.sql}, ${lambdaOf(f, fx)})`;
const joinedBy = (items: readonly Sql[], by: Sql): Sql => ({ parts: items.flatMap((item, i) => (i === 0 ? [item] : [sql` || ${by} || `, item])) });
const wrapped = (inner: Sql) => sql`(${inner})`;

// -- strings
// NULL when any argument is NULL (ClickHouse's; PostHog makes only concat's arguments safe).
define('string', 'concatWithSeparator', 2, Infinity, ([sep, ...parts]) => expr(sql`(${joinedBy(parts.map(str), str(sep))})`, 'String', [sep, ...parts], { nullable: true }));
// format(pattern, …): {} takes the next argument, {n} the n-th (from 0), {{ and }} are braces.
define('string', 'format', 2, Infinity, ([pattern, ...args], fx) => {
  const source = constantText(pattern, fx, 'the pattern');
  const pieces: Sql[] = [];
  let literal = '';
  let next = 0;
  let numbered: boolean | null = null;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if ((c === '{' || c === '}') && source[i + 1] === c) {
      literal += c;
      i++;
    } else if (c === '{') {
      const close = source.indexOf('}', i);
      const inside = close === -1 ? null : source.slice(i + 1, close);
      if (inside === null || !/^\d*$/.test(inside)) fail(`format(): '{' at ${i} must be {}, {n} or {{`, fx.node);
      if (numbered !== null && numbered !== (inside !== '')) fail('format(): cannot mix {} and {n}', fx.node);
      numbered = inside !== '';
      const at = inside === '' ? next++ : Number(inside);
      if (at >= args.length) fail(`format(): the pattern reads argument ${at + 1}, but ${args.length} were given`, fx.node);
      if (literal !== '') pieces.push(sql`${text(literal)}`);
      literal = '';
      pieces.push(str(args[at]));
      i = close;
    } else if (c === '}') {
      fail(`format(): unmatched '}' at ${i}`, fx.node);
    } else {
      literal += c;
    }
  }
  if (literal !== '' || pieces.length === 0) pieces.push(sql`${text(literal)}`);
  return expr(sql`(${join(pieces, ' || ')})`, 'String', args, { nullable: args.some((a) => a.nullable) });
});
textFn('reverseUTF8', 'reverse');
// An empty string stays empty.
define('string', 'appendTrailingCharIfAbsent', 2, 2, ([s, c]) => expr(sql`(CASE WHEN ${str(s)} = '' OR ends_with(${str(s)}, ${str(c)}) THEN ${str(s)} ELSE ${str(s)} || ${str(c)} END)`, 'String', [s, c]));
define('string', 'tryBase64Decode', 1, 1, ([a]) => expr(sql`coalesce(try(decode(from_base64(${str(a)}))), '')`, 'String', [a]));
// The five characters XML escapes, & first.
define('string', 'encodeXMLComponent', 1, 1, ([a]) =>
  expr(sql`replace(replace(replace(replace(replace(${str(a)}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&apos;')`, 'String', [a]));
// multiSearch*(haystack, [needles]): each needle's first position (0: absent), the leftmost, any.
const positions = (h: Expr, needles: Expr) => sql`list_transform(${needles.sql}, lambda hq_needle: strpos(${str(h)}, hq_needle))`;
define('string', ['multiSearchAllPositions', 'multiSearchAllPositionsUTF8'], 2, 2, ([h, n]) => expr(positions(h, n), 'Array', [h, n]));
define('string', 'multiSearchFirstPosition', 2, 2, ([h, n]) => expr(sql`coalesce(list_min(list_filter(${positions(h, n)}, lambda hq_p: hq_p > 0)), 0)`, 'UInt', [h, n]));
define('string', 'multiSearchAny', 2, 2, ([h, n]) => expr(sql`(len(list_filter(${positions(h, n)}, lambda hq_p: hq_p > 0)) > 0)`, 'Bool', [h, n]));
define('string', 'multiMatchAny', 2, 2, ([h, res]) => expr(sql`(len(list_filter(${res.sql}, lambda hq_re: regexp_matches(${str(h)}, hq_re))) > 0)`, 'Bool', [h, res]));
// Non-overlapping occurrences, left to right; an empty needle counts none.
const occurrences = (h: Sql, n: Sql) => sql`(CASE WHEN length(${n}) = 0 THEN 0 ELSE (length(${h}) - length(replace(${h}, ${n}, ''))) // length(${n}) END)`;
define('string', 'countSubstrings', 2, 2, ([h, n]) => expr(occurrences(str(h), str(n)), 'UInt', [h, n]));
define('string', ['countSubstringsCaseInsensitive', 'countSubstringsCaseInsensitiveUTF8'], 2, 2, ([h, n]) => expr(occurrences(sql`lower(${str(h)})`, sql`lower(${str(n)})`), 'UInt', [h, n]));
define('string', 'countMatches', 2, 2, ([h, re]) => expr(sql`len(regexp_extract_all(${str(h)}, ${str(re)}))`, 'UInt', [h, re]));
// A backslash before each of \0 \ | ( ) ^ $ . [ ] ? * + { : - (ClickHouse's list; not '}').
define('string', 'regexpQuoteMeta', 1, 1, ([a]) => expr(sql`replace(regexp_replace(${str(a)}, '([\\\\|()^$.\\[\\]?*+{:-])', '\\\\\\1', 'g'), chr(0), '\\0')`, 'String', [a]));
define('string', ['translate', 'translateUTF8'], 3, 3, ([s, from, to]) => expr(sql`translate(${str(s)}, ${str(from)}, ${str(to)})`, 'String', [s, from, to]));
define('string', 'splitByRegexp', 2, 3, ([re, s, max]) => expr(atMost(sql`regexp_split_to_array(${str(s)}, ${str(re)})`, max), 'Array', [re, s]));
// Runs of ASCII whitespace separate; none are empty.
define('string', 'splitByWhitespace', 1, 2, ([s, max]) => expr(atMost(sql`regexp_extract_all(${str(s)}, '[^ \\t\\n\\r\\f\\v]+')`, max), 'Array', [s]));
// Runs of ASCII whitespace and punctuation separate.
define('string', 'splitByNonAlpha', 1, 2, ([s, max]) => expr(atMost(sql`regexp_extract_all(${str(s)}, '[^ \\t\\n\\r\\f\\v!-/:-@\\[-\`{-~]+')`, max), 'Array', [s]));
define('string', 'alphaTokens', 1, 2, ([s, max]) => expr(atMost(sql`regexp_extract_all(${str(s)}, '[a-zA-Z]+')`, max), 'Array', [s]));
// ASCII letters and digits, and every character past ASCII, make tokens.
define('string', 'tokens', 1, 1, ([s]) => expr(sql`regexp_extract_all(${str(s)}, '[0-9A-Za-z\\x{80}-\\x{10FFFF}]+')`, 'Array', [s]));
// Every substring of n characters, in order; none when the string is shorter.
define('string', 'ngrams', 2, 2, ([s, n], fx) => {
  const k = constantInt(n, fx, 'the length');
  if (k < 1) fail('ngrams() takes a length of 1 or more', fx.node);
  return expr(sql`list_transform(range(1, length(${str(s)}) - ${int(k)} + 2), lambda hq_i: substr(${str(s)}, hq_i, ${int(k)}))`, 'Array', [s]);
});
// PostHog's split_part: the n-th part by a separator, '' past the end.
define('string', 'split_part', 3, 3, ([s, sep, n]) => {
  const parts = sql`string_split(${str(s)}, ${str(sep)})`;
  return expr(sql`(CASE WHEN len(${parts}) >= ${num(n)} THEN coalesce((${parts})[CAST(${num(n)} AS BIGINT)], '') ELSE '' END)`, 'String', [s, sep, n]);
});
// Every match's groups: per match (vertical) or per group (horizontal). A pattern needs a group.
const groupCount = (re: Expr, fx: Fx): number => {
  const v = constantText(re, fx, 'the pattern');
  const n = (v.replace(/\\./g, '').replace(/\[[^\]]*\]/g, '').match(/\((?!\?)/g) ?? []).length;
  if (n === 0 || n > 9) fail(`${fx.name}() needs a pattern with 1 to 9 capturing groups`, fx.node);
  return n;
};
const groupLists = (s: Expr, re: Expr, n: number) => Array.from({ length: n }, (_, i) => sql`regexp_extract_all(${str(s)}, ${str(re)}, ${raw(String(i + 1))})`);
define('string', 'extractAllGroupsHorizontal', 2, 2, ([s, re], fx) => expr(sql`[${join(groupLists(s, re, groupCount(re, fx)), ', ')}]`, 'Array', [s, re]));
define('string', ['extractAllGroupsVertical', 'extractAllGroups'], 2, 2, ([s, re], fx) => {
  const lists = groupLists(s, re, groupCount(re, fx));
  return expr(sql`list_transform(range(1, len(${lists[0]}) + 1), lambda hq_i: [${join(lists.map((l) => sql`(${l})[hq_i]`), ', ')}])`, 'Array', [s, re]);
});

// -- URLs, read as ClickHouse's URL functions read them ('' where the part is absent)
const HOST = '^(?:[^/@:]+://)?(?:[^/@]+@)?([^/:?#]+)';
define('string', 'domainWithoutWWW', 1, 1, ([a]) => expr(sql`regexp_replace(regexp_extract(${str(a)}, ${text(HOST)}, 1), '^www\\.', '')`, 'String', [a]));
define('string', 'topLevelDomain', 1, 1, ([a]) => expr(sql`regexp_extract(regexp_extract(${str(a)}, ${text(HOST)}, 1), '\\.([^.]+)\\.?$', 1)`, 'String', [a]));
define('string', 'netloc', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//([^/?#]*)', 1)`, 'String', [a]));
// The port, or the default given (0 without one).
define('string', 'port', 1, 2, ([a, dflt]) => expr(sql`coalesce(TRY_CAST(nullif(regexp_extract(${str(a)}, '^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//(?:[^/?#@]*@)?[^/?#:]*:(\\d+)', 1), '') AS BIGINT), ${dflt === undefined ? raw('0') : num(dflt)})`, 'UInt', [a]));
define('string', 'pathFull', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '^(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*)?(.*)$', 1)`, 'String', [a]));
define('string', 'queryStringAndFragment', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '[?#](.*)$', 1)`, 'String', [a]));
define('string', 'cutWWW', 1, 1, ([a]) => expr(sql`regexp_replace(${str(a)}, '^((?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//)www\\.', '\\1')`, 'String', [a]));
// The query string's (and fragment's) name=value pairs, and their names, as written; read as
// ClickHouse's tokenizer reads them: from the first '?' or '#', split at '&' and '#', a '?'
// inside a name starting it afresh, a last name without '=' or a separator dropped.
const URL_PARAMETER = '[^=&#?]*(?:=[^&#]*[&#]?|[&#])';
const urlParameters = (a: Expr) =>
  sql`list_transform(regexp_extract_all(regexp_extract(${str(a)}, '[?#](.*)$', 1), ${text(URL_PARAMETER)}), lambda hq_p: regexp_replace(hq_p, '[&#]$', ''))`;
define('string', 'extractURLParameters', 1, 1, ([a]) => expr(urlParameters(a), 'Array', [a]));
define('string', 'extractURLParameterNames', 1, 1, ([a]) => expr(sql`list_transform(${urlParameters(a)}, lambda hq_p: regexp_extract(hq_p, '^[^=]*'))`, 'Array', [a]));
// URLHierarchy and URLPathHierarchy, as ClickHouse's tokenizers cut them: only for a scheme of
// the letters b-y and digits 1-8 (its exclusive bounds) followed by '://' and something; then the
// URL up to and including each '/', '?' or '#' after a run of other characters, runs of
// separators counting as one. URLHierarchy starts with the scheme and host (or answers the whole
// text without such a scheme), URLPathHierarchy with the path (or answers nothing).
const HIER_PART = '[/?#]*[^/?#]+[/?#]?';
const prefixes = (first: Sql, tail: Sql) => {
  const chunks = sql`regexp_extract_all(${tail}, ${text(HIER_PART)})`;
  return sql`list_transform(range(1, len(${chunks}) + 1), lambda hq_i: ${first} || array_to_string(list_slice(${chunks}, 1, hq_i), ''))`;
};
const hierarchical = (s: Sql) => sql`regexp_matches(${s}, '^[b-y1-8]+://.')`;
define('string', 'URLHierarchy', 1, 1, ([a]) => {
  const s = str(a);
  const first = sql`regexp_extract(${s}, '^[b-y1-8]+://[^/?#]*[/?#]?')`;
  return expr(sql`(CASE WHEN ${s} = '' THEN [] WHEN NOT ${hierarchical(s)} THEN [${s}] ELSE list_prepend(${first}, ${prefixes(first, sql`substr(${s}, length(${first}) + 1)`)}) END)`, 'Array', [a]);
});
define('string', 'URLPathHierarchy', 1, 1, ([a]) => {
  const s = str(a);
  const path = sql`substr(${s}, length(regexp_extract(${s}, '^[b-y1-8]+://[^/?#]*')) + 1)`;
  return expr(sql`(CASE WHEN ${hierarchical(s)} THEN ${prefixes(sql`substr(${path}, 1, 1)`, sql`substr(${path}, 2)`)} ELSE [] END)`, 'Array', [a]);
});
define('string', 'decodeURLComponent', 1, 1, ([a]) => expr(sql`url_decode(${str(a)})`, 'String', [a]));
define('string', 'encodeURLComponent', 1, 1, ([a]) => expr(sql`url_encode(${str(a)})`, 'String', [a]));
// Forms: a space is '+'.
define('string', 'encodeURLFormComponent', 1, 1, ([a]) => expr(sql`replace(url_encode(${str(a)}), '%20', '+')`, 'String', [a]));
// Forms: '+' is a space.
define('string', 'decodeURLFormComponent', 1, 1, ([a]) => expr(sql`url_decode(replace(${str(a)}, '+', ' '))`, 'String', [a]));

// -- IPv4 addresses, parsed as ClickHouse's parseIPv4 reads them: four groups of 1 to 4 ASCII
// digits (leading zeros allowed), each at most 255, joined by dots, nothing else around.
const ipv4Number = (a: Expr) => {
  const s = str(a);
  const octets = sql`list_transform(string_split(${s}, '.'), lambda hq_o: CAST(hq_o AS BIGINT))`;
  return sql`(CASE WHEN regexp_full_match(${s}, '\\d{1,4}(\\.\\d{1,4}){3}') AND list_max(${octets}) <= 255 THEN (${octets})[1] * 16777216 + (${octets})[2] * 65536 + (${octets})[3] * 256 + (${octets})[4] END)`;
};
// NULL stays NULL (concat_ws would skip it).
const ipv4Text = (n: Sql) => wrapped(joinedBy([sql`${n} // 16777216`, sql`${n} // 65536 % 256`, sql`${n} // 256 % 256`, sql`${n} % 256`].map((x) => sql`CAST(${x} AS VARCHAR)`), sql`'.'`));
const invalidIp = (a: Expr, as: Sql) => sql`(CASE WHEN ${a.sql} IS NULL THEN NULL ELSE coalesce(${as}, error('Invalid IPv4 value')) END)`;
define('IP addresses', 'isIPv4String', 1, 1, ([a]) => expr(sql`(CASE WHEN ${a.sql} IS NULL THEN NULL ELSE ${ipv4Number(a)} IS NOT NULL END)`, 'Bool', [a]));
define('IP addresses', 'IPv4StringToNum', 1, 1, ([a]) => expr(invalidIp(a, ipv4Number(a)), 'UInt', [a]));
define('IP addresses', 'IPv4StringToNumOrNull', 1, 1, ([a]) => expr(ipv4Number(a), 'UInt', [a], { nullable: true }));
define('IP addresses', 'IPv4StringToNumOrDefault', 1, 1, ([a]) => expr(sql`coalesce(${ipv4Number(a)}, 0)`, 'UInt', [a], { nullable: false }));
// An IPv4 value shown as its dotted text (leading zeros dropped).
define('IP addresses', 'toIPv4', 1, 1, ([a]) => expr(invalidIp(a, ipv4Text(ipv4Number(a))), 'String', [a]));
define('IP addresses', 'toIPv4OrNull', 1, 1, ([a]) => expr(ipv4Text(ipv4Number(a)), 'String', [a], { nullable: true }));
define('IP addresses', 'toIPv4OrDefault', 1, 1, ([a]) => expr(sql`coalesce(${ipv4Text(ipv4Number(a))}, '0.0.0.0')`, 'String', [a], { nullable: false }));
define('IP addresses', 'IPv4NumToString', 1, 1, ([n]) => {
  const v = sql`CAST(${num(n)} AS BIGINT)`;
  return expr(ipv4Text(sql`(CASE WHEN ${v} BETWEEN 0 AND 4294967295 THEN ${v} ELSE error('IPv4NumToString() takes a UInt32') END)`), 'String', [n]);
});
// isIPAddressInRange(address, 'a.b.c.d/prefix'): as PostHog calls it, an address that is not
// IPv4 (IPv6, NULL, not an address) matches no IPv4 range. IPv6 ranges are refused.
define('IP addresses', 'isIPAddressInRange', 2, 2, ([a, range], fx) => {
  if (typeof range.constant?.value === 'string' && range.constant.value.includes(':')) fail('isIPAddressInRange(): IPv6 ranges are not supported, only IPv4 ones such as \'10.0.0.0/8\'', fx.node);
  const r = str(range);
  const prefix = sql`TRY_CAST(regexp_extract(${r}, '/(\\d{1,2})$', 1) AS BIGINT)`;
  const network = ipv4Number(expr(sql`regexp_extract(${r}, '^([^/]*)/', 1)`, 'String'));
  const valid = sql`(CASE WHEN ${prefix} BETWEEN 0 AND 32 AND ${network} IS NOT NULL THEN ${prefix} ELSE error('isIPAddressInRange() takes an IPv4 range such as 10.0.0.0/8') END)`;
  return expr(sql`coalesce(${ipv4Number(a)} >> (32 - ${valid}) = ${network} >> (32 - ${valid}), false)`, 'Bool', [a, range], { nullable: false });
});

// -- date and time
define('date and time', 'monthName', 1, 1, ([a], fx) => expr(sql`monthname(${wallClock(a, fx.tz)})`, 'String', [a]));
// dateName(part, t): the part as text; months and weekdays by their English names.
const DATE_NAMES: Record<string, (t: Sql) => Sql> = {
  year: (t) => sql`CAST(year(${t}) AS VARCHAR)`, quarter: (t) => sql`CAST(quarter(${t}) AS VARCHAR)`, month: (t) => sql`monthname(${t})`,
  week: (t) => sql`CAST(week(${t}) AS VARCHAR)`, dayofyear: (t) => sql`CAST(dayofyear(${t}) AS VARCHAR)`, day: (t) => sql`CAST(day(${t}) AS VARCHAR)`,
  weekday: (t) => sql`dayname(${t})`, hour: (t) => sql`CAST(hour(${t}) AS VARCHAR)`, minute: (t) => sql`CAST(minute(${t}) AS VARCHAR)`, second: (t) => sql`CAST(second(${t}) AS VARCHAR)`,
};
define('date and time', 'dateName', 2, 2, ([part, a], fx) => {
  const p = constantText(part, fx, 'the part');
  if (!Object.hasOwn(DATE_NAMES, p)) fail(`dateName(): unknown part '${p}': use ${Object.keys(DATE_NAMES).join(', ')}`, fx.node);
  if (a.type === 'Date' && ['hour', 'minute', 'second'].includes(p)) fail(`dateName(): a Date has no ${p}`, fx.node);
  return expr(DATE_NAMES[p](wallClock(a, fx.tz)), 'String', [a]);
});
// PostHog's date_part: the part as a number (dow: Monday 1 … Sunday 7), NULL for other parts.
define('date and time', 'date_part', 2, 2, ([part, a], fx) => {
  const t = wallClock(a, fx.tz);
  return expr(sql`(CASE ${str(part)} WHEN 'year' THEN year(${t}) WHEN 'month' THEN month(${t}) WHEN 'day' THEN day(${t}) WHEN 'hour' THEN hour(${t}) WHEN 'minute' THEN minute(${t}) WHEN 'second' THEN second(${t}) WHEN 'dow' THEN isodow(${t}) WHEN 'doy' THEN dayofyear(${t}) WHEN 'quarter' THEN quarter(${t}) END)`, 'Int', [part, a], { nullable: true });
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
// The zone a value is shown in, and its offset from UTC in seconds at that instant.
define('date and time', 'timeZoneOf', 1, 1, ([a], fx) => expr(tzOf(a, fx), 'String', [a], { nullable: false }));
define('date and time', 'timeZoneOffset', 1, 1, ([a], fx) =>
  expr(sql`CAST(epoch(timezone(${tzOf(a, fx)}, ${instant(a, fx.tz)})) - epoch(${instant(a, fx.tz)}) AS BIGINT)`, 'Int', [a]));
// Days since 1858-11-17; text that is not a date: NULL (PostHog's OrNull forms).
define('date and time', 'toModifiedJulianDay', 1, 1, ([a], fx) => expr(sql`(${date(a, fx.tz)} - DATE '1858-11-17')`, 'Int', [a], { nullable: true }));
define('date and time', 'fromModifiedJulianDay', 1, 1, ([n]) => expr(sql`TRY_CAST(DATE '1858-11-17' + TRY_CAST(${num(n)} AS INTEGER) AS DATE)`, 'Date', [n], { nullable: true }));
define('date and time', 'fromUnixTimestamp64Milli', 1, 1, ([n]) => dateTime(sql`CAST(make_timestamp(CAST(${num(n)} AS BIGINT) * 1000) AS TIMESTAMPTZ)`, [n]));
// A version 7 UUID's first 48 bits, its milliseconds; any other UUID: the epoch.
define('date and time', 'UUIDv7ToDateTime', 1, 1, ([u]) => {
  const hex = sql`replace(CAST(${u.sql} AS VARCHAR), '-', '')`;
  return dateTime(sql`CAST(make_timestamp(CASE WHEN substr(${hex}, 13, 1) = '7' THEN CAST(('0x' || substr(${hex}, 1, 12)) AS BIGINT) * 1000 ELSE 0 END) AS TIMESTAMPTZ)`, [u]);
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
// parseDateTime(text, format[, zone]): ClickHouse's MySQL-style codes; text that does not
// match: NULL (PostHog's OrNull). Read on the project's (or the given zone's) wall clock.
const PARSE_CODES: Record<string, string> = { Y: '%Y', y: '%y', m: '%m', d: '%d', e: '%d', H: '%H', k: '%H', h: '%I', I: '%I', l: '%I', i: '%M', s: '%S', S: '%S', p: '%p', M: '%B', b: '%b', a: '%a', W: '%A', j: '%j', '%': '%%' };
define('date and time', 'parseDateTime', 2, 3, ([s, f, zone], fx) => {
  const format = constantText(f, fx, 'the format').replace(/%(.)/g, (_, code: string) => PARSE_CODES[code] ?? fail(`parseDateTime(): the code %${code} is not supported`, fx.node));
  const at = tzOf(inZone(s, zone, fx), fx);
  return dateTime(sql`timezone(${at}, try_strptime(${str(s)}, ${text(format)}))`, [s], { nullable: true });
});
// make_date and make_timestamp from their parts, on the project's wall clock (make_timestamp's
// seventh argument: a zone). Parts that name no date are an error, not a guess at ClickHouse's
// overflow rules.
define('date and time', 'make_date', 3, 3, ([y, m, d]) =>
  expr(sql`coalesce(try(make_date(CAST(${num(y)} AS BIGINT), CAST(${num(m)} AS BIGINT), CAST(${num(d)} AS BIGINT))), error('make_date(): the parts name no date'))`, 'Date', [y, m, d]));
define('date and time', 'make_timestamp', 6, 7, ([y, mo, d, h, mi, sec, zone], fx) => {
  const parts = [y, mo, d, h, mi].map((p) => sql`CAST(${num(p)} AS BIGINT)`);
  const local = sql`coalesce(try(make_timestamp(${join(parts, ', ')}, CAST(${num(sec)} AS DOUBLE))), error('make_timestamp(): the parts name no time'))`;
  const at = tzOf(inZone(y, zone, fx), fx);
  return dateTime(sql`timezone(${at}, ${local})`, [y, mo, d, h, mi, sec]);
});
define('date and time', 'make_interval', 6, 6, (parts) => {
  const units = ['year', 'month', 'day', 'hour', 'minute', 'second'];
  return expr(sql`(${join(parts.map((p, i) => interval(units[i], p)), ' + ')})`, 'Interval', parts);
});
// PostgreSQL's timezone(zone, t): toTimeZone(t, zone).
define('date and time', 'timezone', 2, 2, ([zone, a], fx) => FUNCTIONS.get('toTimeZone')!.build([a, zone], fx));
// dateAdd(t, interval) and dateSub(t, interval): the two-argument forms PostHog accepts too.
for (const name of ['dateAdd', 'date_add', 'dateSub', 'date_sub']) {
  const three = FUNCTIONS.get(name)!;
  define('date and time', name, 2, 3, (args, fx) => (args.length === 3 ? three.build(args, fx) : FUNCTIONS.get(/sub/i.test(name) ? 'timeStampSub' : 'timeStampAdd')!.build(args, { ...fx, name })));
}

// -- arrays
define('array', 'arrayPopBack', 1, 1, ([a]) => expr(sql`list_slice(${a.sql}, 1, len(${a.sql}) - 1)`, 'Array', [a]));
define('array', 'arrayPopFront', 1, 1, ([a]) => expr(sql`list_slice(${a.sql}, 2, len(${a.sql}))`, 'Array', [a]));
// The elements of b, in order and next to each other, somewhere in a (an empty b always is).
define('array', 'hasSubstr', 2, 2, ([a, b]) =>
  expr(sql`(len(${b.sql}) = 0 OR coalesce(list_bool_or(list_transform(range(1, len(${a.sql}) - len(${b.sql}) + 2), lambda hq_i: list_slice(${a.sql}, hq_i, hq_i + len(${b.sql}) - 1) IS NOT DISTINCT FROM ${b.sql})), false))`, 'Bool', [a, b]));
// [0, a2 - a1, a3 - a2, …].
define('array', 'arrayDifference', 1, 1, ([a]) => expr(sql`list_transform(${a.sql}, lambda hq_x, hq_i: CASE WHEN hq_i = 1 THEN 0 ELSE hq_x - (${a.sql})[hq_i - 1] END)`, 'Array', [a]));
// Each element's number among the distinct values, in order of first appearance.
define('array', 'arrayEnumerateDense', 1, 1, ([a]) => {
  const firsts = sql`list_filter(${a.sql}, lambda hq_x, hq_i: list_position(${a.sql}, hq_x) = hq_i)`;
  return expr(sql`list_transform(${a.sql}, lambda hq_x: list_position(${firsts}, hq_x))`, 'Array', [a]);
});
// Each element's count of equal elements so far, the arrays read together as tuples.
define('array', 'arrayEnumerateUniq', 2, Infinity, (arrays) => {
  const [a] = arrays;
  const same = join(arrays.map((x) => sql`(${x.sql})[hq_j] IS NOT DISTINCT FROM (${x.sql})[hq_i]`), ' AND ');
  return expr(sql`list_transform(range(1, len(${a.sql}) + 1), lambda hq_i: len(list_filter(range(1, hq_i + 1), lambda hq_j: ${same})))`, 'Array', arrays);
});
// Arrays of equal size, element by element, as tuples.
define('array', 'arrayZip', 2, Infinity, (arrays) => {
  const [a] = arrays;
  const sizes = arrays.slice(1).map((x) => sql`len(${x.sql}) <> len(${a.sql})`);
  const tuple = tupleSql(arrays.map((x) => sql`(${x.sql})[hq_i]`));
  return expr(sql`(CASE WHEN ${join(sizes, ' OR ')} THEN error('arrayZip() takes arrays of the same size') ELSE list_transform(range(1, len(${a.sql}) + 1), lambda hq_i: ${tuple}) END)`, 'Array', arrays);
});
define('array', 'arrayWithConstant', 2, 2, ([n, x]) => expr(sql`list_transform(range(CAST(${bounded(num(n), 'arrayWithConstant()')} AS BIGINT)), lambda hq_i: ${x.sql})`, 'Array', [n, x]));
// arrayResize(a, size, extender): cut or padded at the end; a negative size keeps the last
// elements, padded at the front. Without an extender ClickHouse pads with the element type's
// default, which hedgerow's untyped arrays cannot name.
define('array', 'arrayResize', 2, 3, ([a, n, pad], fx) => {
  if (pad === undefined) fail('arrayResize() needs its third argument here, the value to pad with: arrayResize(arr, 5, 0)', fx.node);
  const k = sql`CAST(${bounded(num(n), 'arrayResize()')} AS BIGINT)`;
  const fill = (count: Sql) => sql`list_transform(range(greatest(${count}, 0)), lambda hq_i: ${pad.sql})`;
  return expr(sql`(CASE WHEN ${k} >= 0 THEN list_concat(list_slice(${a.sql}, 1, ${k}), ${fill(sql`${k} - len(${a.sql})`)}) ELSE list_concat(${fill(sql`-${k} - len(${a.sql})`)}, list_slice(${a.sql}, greatest(len(${a.sql}) + ${k} + 1, 1), len(${a.sql}))) END)`, 'Array', [a, n, pad]);
});
// Rotations by n (negative: the other way).
for (const [name, sign] of [['arrayRotateLeft', ''], ['arrayRotateRight', '-']] as const) {
  define('array', name, 2, 2, ([a, n]) => {
    const k = sql`((${raw(sign)}CAST(${num(n)} AS BIGINT)) % greatest(len(${a.sql}), 1) + greatest(len(${a.sql}), 1)) % greatest(len(${a.sql}), 1)`;
    return expr(sql`list_concat(list_slice(${a.sql}, ${k} + 1, len(${a.sql})), list_slice(${a.sql}, 1, ${k}))`, 'Array', [a, n]);
  });
}
// The first (last) index whose lambda holds; 0 when none does.
define('array', 'arrayFirstIndex', 2, 2, ([f, a], fx) => expr(sql`coalesce(list_position(${mapped(f, a, fx)}, true), 0)`, 'UInt', [a]));
define('array', 'arrayLastIndex', 2, 2, ([f, a], fx) => expr(sql`coalesce(list_max(list_filter(range(1, len(${a.sql}) + 1), lambda hq_i: (${mapped(f, a, fx)})[hq_i])), 0)`, 'UInt', [a]));
// arrayFill: an element whose lambda fails takes the last one before it that held (the first
// is kept); arrayReverseFill: the next one after it (the last is kept).
define('array', 'arrayFill', 2, 2, ([f, a], fx) =>
  expr(sql`list_transform(range(1, len(${a.sql}) + 1), lambda hq_i: (${a.sql})[list_max(list_filter(range(1, hq_i + 1), lambda hq_j: hq_j = 1 OR (${mapped(f, a, fx)})[hq_j]))])`, 'Array', [a]));
define('array', 'arrayReverseFill', 2, 2, ([f, a], fx) =>
  expr(sql`list_transform(range(1, len(${a.sql}) + 1), lambda hq_i: (${a.sql})[list_min(list_filter(range(hq_i, len(${a.sql}) + 1), lambda hq_j: hq_j = len(${a.sql}) OR (${mapped(f, a, fx)})[hq_j]))])`, 'Array', [a]));
// arraySplit: a new part before each element whose lambda holds (the first starts one anyway);
// arrayReverseSplit: after each, the last ending one anyway.
define('array', 'arraySplit', 2, 2, ([f, a], fx) => {
  const starts = sql`list_filter(range(1, len(${a.sql}) + 1), lambda hq_i: hq_i = 1 OR (${mapped(f, a, fx)})[hq_i])`;
  return expr(sql`list_transform(${starts}, lambda hq_s, hq_k: list_slice(${a.sql}, hq_s, coalesce((${starts})[hq_k + 1] - 1, len(${a.sql}))))`, 'Array', [a]);
});
define('array', 'arrayReverseSplit', 2, 2, ([f, a], fx) => {
  const ends = sql`list_filter(range(1, len(${a.sql}) + 1), lambda hq_i: hq_i = len(${a.sql}) OR (${mapped(f, a, fx)})[hq_i])`;
  return expr(sql`list_transform(${ends}, lambda hq_e, hq_k: list_slice(${a.sql}, coalesce((${ends})[hq_k - 1] + 1, 1), hq_e))`, 'Array', [a]);
});
// arrayFold(lambda(acc, x), arr, init): the accumulator through the elements.
define('array', 'arrayFold', 3, 3, ([f, a, init], fx) => expr(sql`list_reduce(${a.sql}, ${lambdaOf(f, fx)}, ${init.sql})`, init.type, [a, init]));
// Running sums that restart from 0 whenever they would go below it.
define('array', 'arrayCumSumNonNegative', 1, 1, ([a]) => {
  const prefix = sql`list_transform(${a.sql}, lambda hq_x, hq_i: list_sum(list_slice(${a.sql}, 1, hq_i)))`;
  return expr(sql`list_transform(${prefix}, lambda hq_p, hq_i: hq_p - least(0, list_min(list_slice(${prefix}, 1, hq_i))))`, 'Array', [a]);
});
define('array', 'arrayProduct', 1, 1, ([a]) => expr(sql`CAST(list_reduce(list_prepend(1, ${a.sql}), lambda hq_acc, hq_x: hq_acc * hq_x) AS DOUBLE)`, 'Float', [a]));
// A vector's norms and distances.
const absolute = (a: Sql) => sql`list_transform(${a}, lambda hq_x: abs(hq_x))`;
const differences = (a: Expr, b: Expr) => sql`list_transform(range(1, len(${a.sql}) + 1), lambda hq_i: CAST((${a.sql})[hq_i] AS DOUBLE) - (${b.sql})[hq_i])`;
define('array', 'dotProduct', 2, 2, ([a, b]) => expr(sql`list_sum(list_transform(range(1, len(${a.sql}) + 1), lambda hq_i: CAST((${a.sql})[hq_i] AS DOUBLE) * (${b.sql})[hq_i]))`, 'Float', [a, b]));
define('array', 'L1Norm', 1, 1, ([a]) => expr(sql`list_sum(${absolute(a.sql)})`, 'Float', [a]));
define('array', 'L2Norm', 1, 1, ([a]) => expr(sql`sqrt(list_sum(list_transform(${a.sql}, lambda hq_x: CAST(hq_x AS DOUBLE) * hq_x)))`, 'Float', [a]));
define('array', 'LinfNorm', 1, 1, ([a]) => expr(sql`list_max(${absolute(a.sql)})`, 'Float', [a]));
define('array', 'L1Distance', 2, 2, ([a, b]) => expr(sql`list_sum(${absolute(differences(a, b))})`, 'Float', [a, b]));
define('array', 'L2Distance', 2, 2, ([a, b]) => expr(sql`sqrt(list_sum(list_transform(${differences(a, b)}, lambda hq_x: hq_x * hq_x)))`, 'Float', [a, b]));
define('array', 'LinfDistance', 2, 2, ([a, b]) => expr(sql`list_max(${absolute(differences(a, b))})`, 'Float', [a, b]));
define('array', 'LpNorm', 2, 2, ([a, p]) => expr(sql`pow(list_sum(list_transform(${a.sql}, lambda hq_x: pow(abs(hq_x), ${num(p)}))), 1 / ${num(p)})`, 'Float', [a, p]));
define('array', 'LpDistance', 3, 3, ([a, b, p]) => expr(sql`pow(list_sum(list_transform(${differences(a, b)}, lambda hq_x: pow(abs(hq_x), ${num(p)}))), 1 / ${num(p)})`, 'Float', [a, b, p]));
// A vector divided by its norm.
const normalized = (a: Expr, norm: Sql) => sql`list_transform(${a.sql}, lambda hq_x: hq_x / ${norm})`;
define('array', 'L1Normalize', 1, 1, ([a]) => expr(normalized(a, sql`list_sum(${absolute(a.sql)})`), 'Array', [a]));
define('array', 'L2Normalize', 1, 1, ([a]) => expr(normalized(a, sql`sqrt(list_sum(list_transform(${a.sql}, lambda hq_y: CAST(hq_y AS DOUBLE) * hq_y)))`), 'Array', [a]));
define('array', 'LinfNormalize', 1, 1, ([a]) => expr(normalized(a, sql`list_max(${absolute(a.sql)})`), 'Array', [a]));
define('array', 'LpNormalize', 2, 2, ([a, p]) => expr(normalized(a, sql`pow(list_sum(list_transform(${a.sql}, lambda hq_y: pow(abs(hq_y), ${num(p)}))), 1 / ${num(p)})`), 'Array', [a, p]));
// 1 − cos of the angle between two vectors.
define('array', 'cosineDistance', 2, 2, ([a, b]) => {
  const dot = sql`list_sum(list_transform(range(1, len(${a.sql}) + 1), lambda hq_i: CAST((${a.sql})[hq_i] AS DOUBLE) * (${b.sql})[hq_i]))`;
  const norm = (x: Expr) => sql`sqrt(list_sum(list_transform(${x.sql}, lambda hq_y: CAST(hq_y AS DOUBLE) * hq_y)))`;
  return expr(sql`(1 - ${dot} / (${norm(a)} * ${norm(b)}))`, 'Float', [a, b]);
});
// The lambda forms of arrayMin/Max/Sum/Avg: over the lambda's values.
for (const [name, duck, type] of [['arrayMin', 'list_min', 'Unknown'], ['arrayMax', 'list_max', 'Unknown'], ['arraySum', 'list_sum', 'Float'], ['arrayAvg', 'list_avg', 'Float']] as const) {
  const plain = FUNCTIONS.get(name)!;
  define('array', name, 1, 2, (args, fx) => (args.length === 1 ? plain.build(args, fx) : expr(sql`${raw(duck)}(${mapped(args[0], args[1], fx)})`, type, [args[1]], { nullable: true })));
}

// -- mathematics
define('mathematics', 'exp2', 1, 1, ([x]) => expr(sql`pow(2, ${num(x)})`, 'Float', [x]));
define('mathematics', 'exp10', 1, 1, ([x]) => expr(sql`pow(10, ${num(x)})`, 'Float', [x]));
define('mathematics', 'intExp2', 1, 1, ([x]) => expr(sql`CAST(pow(2, ${num(x)}) AS UBIGINT)`, 'UInt', [x]));
define('mathematics', 'intExp10', 1, 1, ([x]) => expr(sql`CAST(pow(10, ${num(x)}) AS UBIGINT)`, 'UInt', [x]));
for (const fn of ['cosh', 'acosh', 'sinh', 'asinh', 'atanh', 'degrees', 'radians', 'lgamma']) mathFn(fn, fn);
mathFn('tgamma', 'gamma');
define('mathematics', 'log1p', 1, 1, ([x]) => expr(sql`ln(1 + ${num(x)})`, 'Float', [x]));
mathFn('atan2', 'atan2', 2, 2);
define('mathematics', 'hypot', 2, 2, ([a, b]) => expr(sql`sqrt(${num(a)} * ${num(a)} + ${num(b)} * ${num(b)})`, 'Float', [a, b]));
define('mathematics', 'factorial', 1, 1, ([x]) => expr(sql`(CASE WHEN ${num(x)} > 20 THEN error('factorial() takes at most 20') WHEN ${num(x)} < 1 THEN 1 ELSE CAST(factorial(CAST(${num(x)} AS INTEGER)) AS BIGINT) END)`, 'UInt', [x]));
define('mathematics', 'negate', 1, 1, ([x]) => expr(sql`(-${num(x)})`, x.type === 'Int' || x.type === 'UInt' ? 'Int' : 'Float', [x]));
define('mathematics', 'moduloOrZero', 2, 2, ([a, b]) => expr(sql`coalesce(${num(a)} % nullif(${num(b)}, 0), 0)`, 'Int', [a, b]));
// The bucket (1 … count) of x among count equal parts of [low, high); 0 below, count + 1 from high on.
define('mathematics', 'width_bucket', 4, 4, ([x, lo, hi, n]) =>
  expr(sql`(CASE WHEN ${num(x)} < ${num(lo)} THEN 0 WHEN ${num(x)} >= ${num(hi)} THEN ${num(n)} + 1 ELSE CAST(floor((${num(x)} - ${num(lo)}) / (${num(hi)} - ${num(lo)}) * ${num(n)}) AS BIGINT) + 1 END)`, 'UInt', [x, lo, hi, n]));
// Below 1: 0; else the largest power of two not above it.
define('mathematics', 'roundToExp2', 1, 1, ([x]) => expr(sql`(CASE WHEN ${num(x)} < 1 THEN 0 ELSE pow(2, floor(log2(${num(x)}))) END)`, x.type === 'Float' ? 'Float' : 'UInt', [x]));
// Down to the nearest of ClickHouse's fixed steps.
const ROUND_STEPS = (steps: number[]) => (x: Sql) => sql`coalesce(list_max(list_filter(${raw(`[${steps.join(', ')}]`)}, lambda hq_s: hq_s <= ${x})), 0)`;
define('mathematics', 'roundDuration', 1, 1, ([x]) => expr(ROUND_STEPS([1, 10, 30, 60, 120, 180, 240, 300, 600, 1200, 1800, 3600, 7200, 18000, 36000])(num(x)), 'UInt', [x]));
define('mathematics', 'roundAge', 1, 1, ([x]) => expr(sql`(CASE WHEN ${num(x)} < 1 THEN 0 WHEN ${num(x)} < 18 THEN 17 ELSE ${ROUND_STEPS([18, 25, 35, 45, 55])(num(x))} END)`, 'UInt', [x]));
// roundDown(x, bounds): the largest bound not above x; below them all, the lowest.
define('mathematics', 'roundDown', 2, 2, ([x, bounds]) => expr(sql`coalesce(list_max(list_filter(${bounds.sql}, lambda hq_b: hq_b <= ${num(x)})), list_min(${bounds.sql}))`, 'Float', [x, bounds]));
// Bits of whole numbers (Int64, as hedgerow's integers are).
for (const [name, op] of [['bitAnd', '&'], ['bitOr', '|']] as const) define('mathematics', name, 2, 2, ([a, b]) => expr(sql`(${whole(a)} ${raw(op)} ${whole(b)})`, 'Int', [a, b]));
define('mathematics', 'bitXor', 2, 2, ([a, b]) => expr(sql`xor(${whole(a)}, ${whole(b)})`, 'Int', [a, b]));
define('mathematics', 'bitCount', 1, 1, ([a]) => expr(sql`bit_count(${whole(a)})`, 'UInt', [a]));
define('mathematics', 'bitHammingDistance', 2, 2, ([a, b]) => expr(sql`bit_count(xor(${whole(a)}, ${whole(b)}))`, 'UInt', [a, b]));
const bitAt = (a: Expr, i: Expr) => sql`((${whole(a)} >> CAST(${num(i)} AS BIGINT)) & 1 = 1)`;
define('mathematics', 'bitTest', 2, 2, ([a, i]) => expr(sql`CAST(${bitAt(a, i)} AS INTEGER)`, 'UInt', [a, i]));
define('mathematics', 'bitTestAll', 2, Infinity, ([a, ...bits]) => expr(sql`(${join(bits.map((i) => bitAt(a, i)), ' AND ')})`, 'Bool', [a, ...bits]));
define('mathematics', 'bitTestAny', 2, Infinity, ([a, ...bits]) => expr(sql`(${join(bits.map((i) => bitAt(a, i)), ' OR ')})`, 'Bool', [a, ...bits]));
// Sizes and counts as people read them: two decimals and a unit.
// ClickHouse divides by the base while the value reaches it, up to the last unit.
const readable = (x: Sql, base: number, units: string[]) => {
  const steps = units.slice(1).map((_, i) => base ** (i + 1));
  const at = sql`len(list_filter(${raw(`[${steps.map((v) => v.toExponential()).join(', ')}]`)}, lambda hq_t: hq_t <= abs(${x})))`;
  return sql`printf('%.2f%s', ${x} / pow(${int(base)}, ${at}), (${texts(units)})[${at} + 1])`;
};
define('mathematics', 'formatReadableSize', 1, 1, ([x]) => expr(readable(num(x), 1024, [' B', ' KiB', ' MiB', ' GiB', ' TiB', ' PiB', ' EiB', ' ZiB', ' YiB']), 'String', [x]));
define('mathematics', 'formatReadableDecimalSize', 1, 1, ([x]) => expr(readable(num(x), 1000, [' B', ' KB', ' MB', ' GB', ' TB', ' PB', ' EB', ' ZB', ' YB']), 'String', [x]));
define('mathematics', 'formatReadableQuantity', 1, 1, ([x]) => expr(readable(num(x), 1000, ['', ' thousand', ' million', ' billion', ' trillion', ' quadrillion']), 'String', [x]));

// -- type conversion
define('type conversion', 'toFloatOrDefault', 1, 2, ([a, dflt]) => expr(sql`coalesce(TRY_CAST(${a.sql} AS DOUBLE), ${dflt === undefined ? raw('0') : num(dflt)})`, 'Float', [a], { nullable: false }));

// -- JSON
// An array's length; NULL for anything else (ClickHouse's Nullable answer).
jsonFn('JSONArrayLength', 'UInt', (j, p) => sql`try(CASE json_type(${j}, ${p}) WHEN 'ARRAY' THEN json_array_length(${j}, ${p}) END)`);
// JSONExtract(json, keys…, 'Type'): the typed extractions by their type's name; Nullable(T)
// answers NULL where the value is missing or null.
const EXTRACT_AS: Record<string, string> = {
  String: 'JSONExtractString', Bool: 'JSONExtractBool', Float32: 'JSONExtractFloat', Float64: 'JSONExtractFloat',
  ...Object.fromEntries(['Int8', 'Int16', 'Int32', 'Int64'].map((t) => [t, 'JSONExtractInt'])),
  ...Object.fromEntries(['UInt8', 'UInt16', 'UInt32', 'UInt64'].map((t) => [t, 'JSONExtractUInt'])),
};
define('JSON', 'JSONExtract', 2, 7, (args, fx) => {
  const typeName = constantText(args[args.length - 1], fx, 'the type (last)');
  const inner = /^Nullable\((.+)\)$/.exec(typeName)?.[1] ?? typeName;
  const via = EXTRACT_AS[inner];
  if (via === undefined) fail(`JSONExtract(): the type '${typeName}' is not supported: use String, Bool, Int8-64, UInt8-64, Float32/64 or Nullable of one`, fx.node);
  const keys = args.slice(0, -1);
  const value = FUNCTIONS.get(via)!.build(keys, { ...fx, name: via });
  if (inner === typeName) return value;
  const path = jsonPath(keys.slice(1), fx);
  return { ...value, sql: sql`(CASE WHEN coalesce(try(json_type(${keys[0].sql}, ${path})), 'NULL') = 'NULL' THEN NULL ELSE ${value.sql} END)` };
});
// An object's (key, raw JSON text) pairs, in order; anything else: none.
jsonFn('JSONExtractKeysAndValuesRaw', 'Array', (j, p) => {
  const at = (k: Sql) => sql`${p} || '/' || replace(replace(${k}, '~', '~0'), '/', '~1')`;
  return sql`coalesce(try(CASE WHEN json_type(${j}, ${p}) = 'OBJECT' THEN list_transform(json_keys(${j}, ${p}), lambda hq_k: ${tupleSql([raw('hq_k'), sql`CAST(json_extract(${j}, ${at(raw('hq_k'))}) AS VARCHAR)`])}) END), [])`;
});
// JSON_VALUE(json, '$.path'): a scalar's text; '' for objects, arrays and what is missing.
define('JSON', 'JSON_VALUE', 2, 2, ([j, path]) =>
  expr(sql`coalesce(try(CASE WHEN json_type(${str(j)}, ${str(path)}) IN ('OBJECT', 'ARRAY') THEN '' ELSE json_extract_string(${str(j)}, ${str(path)}) END), '')`, 'String', [j, path]));

// -- aggregates: the -If forms and aliases PostHog lists
aggregate(['uniqHLL12If', 'uniqThetaIf', 'countDistinctIf'], (args) => ({ sql: withIf(sql`count(DISTINCT ${distinctOf(args.slice(0, -1))})`, args[args.length - 1]), type: 'UInt' }), 2, Infinity);
for (const [name, duck] of [['stddevPopIf', 'stddev_pop'], ['stddevSampIf', 'stddev_samp'], ['varPopIf', 'var_pop'], ['varSampIf', 'var_samp']] as const) {
  aggregate(name, ([x, c]) => ({ sql: withIf(sql`${raw(duck)}(${num(x)})`, c), type: 'Float' }), 2, 2);
}
for (const [name, duck] of [['covarPopIf', 'covar_pop'], ['covarSampIf', 'covar_samp']] as const) {
  aggregate(name, ([x, y, c]) => ({ sql: withIf(sql`${raw(duck)}(${num(x)}, ${num(y)})`, c), type: 'Float' }), 3, 3);
}
aggregate('anyLastIf', ([x, c]) => ({ sql: withIf(sql`last(${x.sql})`, c), type: x.type }), 2, 2);
aggregate('anyHeavyIf', ([x, c]) => ({ sql: withIf(sql`mode(${x.sql})`, c), type: x.type }), 2, 2);
aggregate('groupUniqArrayIf', ([x, c]) => ({ sql: sql`coalesce(list(DISTINCT ${x.sql}) FILTER (WHERE ${x.sql} IS NOT NULL AND ${c.sql}), [])`, type: 'Array' }), 2, 2);
aggregate('medianIf', ([x, c]) => ({ sql: withIf(sql`quantile_cont(${num(x)}, 0.5)`, c), type: 'Float' }), 2, 2);
aggregate('quantilesIf', ([x, c], fx) => ({ sql: withIf(sql`quantile_cont(${num(x)}, [${raw(fx.params.map((p) => String(fraction(p, fx))).join(', '))}])`, c), type: 'Array' }), 2, 2, [1, 20]);
// Σ x·w / Σ w.
aggregate('avgWeighted', ([x, w]) => ({ sql: sql`(sum(${num(x)} * ${num(w)}) / sum(${num(w)}))`, type: 'Float' }), 2, 2);
aggregate('avgWeightedIf', ([x, w, c]) => ({ sql: sql`(${withIf(sql`sum(${num(x)} * ${num(w)})`, c)} / ${withIf(sql`sum(${num(w)})`, c)})`, type: 'Float' }), 3, 3);
// The sorted values' element at ceil(level × n) − 1, 0-based: the lower median for an even count.
const exactLowAt = (x: Expr, level: number, cond?: Expr) => {
  const kept = cond === undefined ? sql`${x.sql} IS NOT NULL` : sql`${x.sql} IS NOT NULL AND ${cond.sql}`;
  const n = sql`count(${x.sql}) FILTER (WHERE ${kept})`;
  return sql`(list_sort(list(${num(x)}) FILTER (WHERE ${kept})))[greatest(CAST(ceil(${raw(String(level))} * ${n}) AS BIGINT), 1)]`;
};
aggregate('medianExactLow', ([x]) => ({ sql: exactLowAt(x, 0.5), type: 'Float' }), 1, 1);
aggregate('medianExactLowIf', ([x, c]) => ({ sql: exactLowAt(x, 0.5, c), type: 'Float' }), 2, 2);
// quantileExactHigh's median is quantileExact's: the higher median for an even count.
aggregate('medianExactHigh', ([x]) => ({ sql: exactAt(x, 0.5), type: 'Float' }), 1, 1);
for (const name of ['medianExactIf', 'medianExactHighIf']) {
  aggregate(name, ([x, c]) => {
    const n = sql`count(${x.sql}) FILTER (WHERE ${c.sql})`;
    return { sql: sql`(list_sort(list(${num(x)}) FILTER (WHERE ${x.sql} IS NOT NULL AND ${c.sql})))[least(CAST(floor(0.5 * ${n}) AS BIGINT) + 1, ${n})]`, type: 'Float' };
  }, 2, 2);
}
// Running sums in the rows' order; the averages divide them by the group's size (ClickHouse's
// window is the whole group), cut toward zero for whole numbers. The -If forms keep the rows
// whose condition holds.
const running = (values: Sql) => sql`list_transform(${values}, lambda hq_v, hq_i: list_sum(list_slice(${values}, 1, hq_i)))`;
const kept = (x: Expr, c?: Expr, order?: Expr) =>
  sql`list(${num(x)}${order === undefined ? raw('') : sql` ORDER BY ${order.sql}`}) FILTER (WHERE ${x.sql} IS NOT NULL${c === undefined ? raw('') : sql` AND ${c.sql}`})`;
const movingSum = (x: Expr, c?: Expr) => ({ sql: sql`coalesce(${running(kept(x, c))}, [])`, type: 'Array' as HType });
const movingAvg = (x: Expr, c?: Expr) => {
  const n = c === undefined ? sql`count(${x.sql})` : sql`count(${x.sql}) FILTER (WHERE ${c.sql})`;
  const integers = sql`regexp_matches(typeof(${kept(x, c)}), '^U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?\\[\\]$')`;
  return { sql: sql`coalesce(list_transform(${running(kept(x, c))}, lambda hq_s: CASE WHEN ${integers} THEN trunc(hq_s / ${n}) ELSE hq_s / ${n} END), [])`, type: 'Array' as HType };
};
aggregate('groupArrayMovingSum', ([x]) => movingSum(x), 1, 1);
aggregate('groupArrayMovingSumIf', ([x, c]) => movingSum(x, c), 2, 2);
aggregate('groupArrayMovingAvg', ([x]) => movingAvg(x), 1, 1);
aggregate('groupArrayMovingAvgIf', ([x, c]) => movingAvg(x, c), 2, 2);
// Bits of every row's value.
for (const [name, duck] of [['groupBitAnd', 'bit_and'], ['groupBitOr', 'bit_or'], ['groupBitXor', 'bit_xor']] as const) {
  aggregate(name, ([x]) => ({ sql: sql`${raw(duck)}(${whole(x)})`, type: 'Int' }), 1, 1);
  aggregate(`${name}If`, ([x, c]) => ({ sql: withIf(sql`${raw(duck)}(${whole(x)})`, c), type: 'Int' }), 2, 2);
}
// The sum of each increase between consecutive values (in the rows' order; by the timestamp for deltaSumTimestamp).
const increases = (values: Sql) => ({
  sql: sql`coalesce(list_sum(list_transform(${values}, lambda hq_v, hq_i: CASE WHEN hq_i > 1 AND hq_v > (${values})[hq_i - 1] THEN hq_v - (${values})[hq_i - 1] ELSE 0 END)), 0)`,
  type: 'Float' as HType, nullable: false,
});
aggregate('deltaSum', ([x]) => increases(kept(x)), 1, 1);
aggregate('deltaSumIf', ([x, c]) => increases(kept(x, c)), 2, 2);
aggregate('deltaSumTimestamp', ([x, t]) => increases(kept(x, undefined, t)), 2, 2);
aggregate('deltaSumTimestampIf', ([x, t, c]) => increases(kept(x, c, t)), 3, 3);
// Skewness and kurtosis from the power sums, as ClickHouse's VarMoments computes them: the third
// and fourth central moments over n, divided by the population (or sample) variance to the
// power 1.5 or 2; NaN where that variance is not positive.
function moments(x: Expr, c: Expr | undefined, order: 3 | 4, sample: boolean): Sql {
  const power = (k: number) => {
    const v = sql`pow(CAST(${num(x)} AS DOUBLE), ${int(k)})`;
    return c === undefined ? sql`sum(${v})` : withIf(sql`sum(${v})`, c);
  };
  const n = c === undefined ? sql`count(${x.sql})` : withIf(sql`count(${x.sql})`, c);
  const [s1, s2, s3] = [power(1), power(2), power(3)];
  const variance = sql`((${s2} - ${s1} * ${s1} / ${n}) / (${n}${raw(sample ? ' - 1' : '')}))`;
  const central = order === 3
    ? sql`((${s3} - (3 * ${s2} - 2 * ${s1} * ${s1} / ${n}) * ${s1} / ${n}) / ${n})`
    : sql`((${power(4)} - (4 * ${s3} - (6 * ${s2} - 3 * ${s1} * ${s1} / ${n}) * ${s1} / ${n}) * ${s1} / ${n}) / ${n})`;
  return sql`(CASE WHEN ${n} > ${raw(sample ? '1' : '0')} AND ${variance} > 0 THEN ${central} / pow(${variance}, ${raw(order === 3 ? '1.5' : '2')}) ELSE CAST('NaN' AS DOUBLE) END)`;
}
for (const [name, order, sample] of [['skewPop', 3, false], ['skewSamp', 3, true], ['kurtPop', 4, false], ['kurtSamp', 4, true]] as const) {
  aggregate(name, ([x]) => ({ sql: moments(x, undefined, order, sample), type: 'Float' }), 1, 1);
  aggregate(`${name}If`, ([x, c]) => ({ sql: moments(x, c, order, sample), type: 'Float' }), 2, 2);
}
// (slope, intercept) of the least-squares line through the points (x, y).
aggregate('simpleLinearRegression', ([x, y]) => ({ sql: tupleSql([sql`regr_slope(${num(y)}, ${num(x)})`, sql`regr_intercept(${num(y)}, ${num(x)})`]), type: 'Tuple' }), 2, 2);
aggregate('simpleLinearRegressionIf', ([x, y, c]) => ({ sql: tupleSql([withIf(sql`regr_slope(${num(y)}, ${num(x)})`, c), withIf(sql`regr_intercept(${num(y)}, ${num(x)})`, c)]), type: 'Tuple' }), 3, 3);

// PostHog's own: listed (and hinted at) here, compiled by the compilers themselves with the
// query's resolved actions (compile.ts, ../hogql-expr.ts), which call no build.
define('PostHog', 'matchesAction', 1, 1, () => {
  throw new Error('matchesAction is compiled with the query\'s actions, not by the catalogue');
});

// PostHog's sortableSemVer: the leading dotted numbers of a version as integers, to order by.
define('PostHog', 'sortableSemVer', 1, 1, ([v]) =>
  expr(sql`list_transform(string_split(regexp_extract(coalesce(${str(v)}, ''), '(\\d+(\\.\\d+)+)', 1), '.'), lambda hq_part: coalesce(TRY_CAST(hq_part AS BIGINT), 0))`, 'Array', [v], { nullable: false }));

// HogQLX tags, as PostHog expands them: a tuple the query's reader draws (a sparkline, a
// button to the session's recording). recording_button's status defaults to the event's
// $recording_status (the compiler adds that argument, compile.ts).
define('PostHog', 'sparkline', 1, 2, ([data, labels]) => {
  const parts = [sql`'__hx_tag'`, sql`'Sparkline'`, sql`'data'`, data.sql];
  if (labels !== undefined) parts.push(sql`'labels'`, labels.sql);
  return expr(tupleSql(parts), 'Tuple', [data], { nullable: false });
});
define('PostHog', 'recording_button', 1, 2, ([session, status]) =>
  expr(tupleSql([sql`'__hx_tag'`, sql`'RecordingButton'`, sql`'sessionId'`, session.sql, sql`'recordingStatus'`, status === undefined ? raw('NULL') : status.sql]), 'Tuple', [session], { nullable: false }));

// ISO 639-1 codes and their English names, from the ICU data Node carries (PostHog maps the
// same codes to English names; a code it does not know is 'Unknown').
const LANGUAGES: { codes: string[]; names: string[] } = (() => {
  const shown = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
  const codes: string[] = [];
  const names: string[] = [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (const a of letters) {
    for (const b of letters) {
      const name = shown.of(a + b);
      if (name !== undefined && name !== a + b) {
        codes.push(a + b);
        names.push(name);
      }
    }
  }
  return { codes, names };
})();
define('PostHog', 'languageCodeToName', 1, 1, ([code]) =>
  expr(sql`coalesce((${texts(LANGUAGES.names)})[list_position(${texts(LANGUAGES.codes)}, ${str(code)})], 'Unknown')`, 'String', [code], { nullable: false }));

/** The catalogue entry of `name` (ClickHouse's case-insensitive names also lowercased). */
export function lookupFunction(name: string): FunctionSpec | undefined {
  const exact = FUNCTIONS.get(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  if (!CASE_INSENSITIVE.has(lower)) return undefined;
  for (const [known, spec] of FUNCTIONS) if (known.toLowerCase() === lower) return spec;
  return undefined;
}

/** Every supported name by group, for the README's table. Internal names (`_…`) are left out. */
export function supportedFunctions(): Map<FunctionGroup, string[]> {
  const out = new Map<FunctionGroup, string[]>();
  for (const [name, spec] of FUNCTIONS) {
    if (name.startsWith('_')) continue;
    const names = out.get(spec.group) ?? [];
    names.push(name);
    out.set(spec.group, names);
  }
  for (const names of out.values()) names.sort((a, b) => a.localeCompare(b));
  return out;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j];
      row[j] = next;
    }
  }
  return row[b.length];
}

/** The closest known name, when one is close enough to be a likely typo. */
export function closestFunction(name: string): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  const lower = name.toLowerCase();
  for (const known of FUNCTIONS.keys()) {
    if (known.startsWith('_')) continue;
    const d = distance(lower, known.toLowerCase());
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : null;
}
