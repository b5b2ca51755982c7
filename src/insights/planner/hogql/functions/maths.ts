// Mathematics: rounding, powers and logarithms, trigonometry, integer division and remainders,
// bits, sizes and counts as people read them.
import { int, join, raw, sql, texts, type Sql } from '../../sql.js';
import { expr, num, type Expr, type HType } from '../expr.js';
import { catalogue } from './catalogue.js';
import { call, whole } from './helpers.js';

const { functions, define } = catalogue();
export { functions as maths };

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
