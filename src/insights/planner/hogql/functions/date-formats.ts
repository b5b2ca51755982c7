// Times as text and text as times: formatDateTime's and parseDateTime's codes, month and day
// names, a part by its name.
import { sql, text, type Sql } from '../../sql.js';
import { expr, fail, str, wallClock } from '../expr.js';
import { catalogue } from './catalogue.js';
import { constantText, dateTime, inZone, tzOf } from './helpers.js';

const { functions, define } = catalogue();
export { functions as dateFormats };

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

// parseDateTime(text, format[, zone]): ClickHouse's MySQL-style codes; text that does not
// match: NULL (PostHog's OrNull). Read on the project's (or the given zone's) wall clock.
const PARSE_CODES: Record<string, string> = { Y: '%Y', y: '%y', m: '%m', d: '%d', e: '%d', H: '%H', k: '%H', h: '%I', I: '%I', l: '%I', i: '%M', s: '%S', S: '%S', p: '%p', M: '%B', b: '%b', a: '%a', W: '%A', j: '%j', '%': '%%' };
define('date and time', 'parseDateTime', 2, 3, ([s, f, zone], fx) => {
  const format = constantText(f, fx, 'the format').replace(/%(.)/g, (_, code: string) => PARSE_CODES[code] ?? fail(`parseDateTime(): the code %${code} is not supported`, fx.node));
  const at = tzOf(inZone(s, zone, fx), fx);
  return dateTime(sql`timezone(${at}, try_strptime(${str(s)}, ${text(format)}))`, [s], { nullable: true });
});
