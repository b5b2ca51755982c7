// Type conversions, ClickHouse's to*() casts: NULL (or zero, or a default) where the value does not convert.
import { raw, sql } from '../../sql.js';
import { expr, num, str, wallClock } from '../expr.js';
import { catalogue } from './catalogue.js';

const { functions, define } = catalogue();
export { functions as conversions };

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
define('type conversion', 'toFloatOrDefault', 1, 2, ([a, dflt]) => expr(sql`coalesce(TRY_CAST(${a.sql} AS DOUBLE), ${dflt === undefined ? raw('0') : num(dflt)})`, 'Float', [a], { nullable: false }));
