// Instants and dates: now and today, conversions to and from times, epochs and time zones, times
// made from their parts. A zone argument: the value is read and shown on that zone's wall clock.
import { join, raw, sql, type Sql } from '../../sql.js';
import { date, expr, instant, num } from '../expr.js';
import { catalogue } from './catalogue.js';
import { dateTime, inZone, tzOf } from './helpers.js';

const { functions, define } = catalogue();
export { functions as dates };

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
// PostgreSQL's timezone(zone, t): toTimeZone(t, zone).
define('date and time', 'timezone', 2, 2, ([zone, a], fx) => functions.get('toTimeZone')!.build([a, zone], fx));
