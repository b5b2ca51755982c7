// Statistical aggregates: exact low and high medians, moving sums and averages, bitwise folds,
// increases, skewness and kurtosis, linear regression.
import { int, raw, sql, type Sql } from '../../sql.js';
import { num, tupleSql, type Expr, type HType } from '../expr.js';
import { catalogue } from './catalogue.js';
import { whole, withIf } from './helpers.js';

const { functions, aggregate } = catalogue();
export { functions as statistics };

// The sorted values' element at ceil(level × n) − 1, 0-based: the lower median for an even count.
const exactLowAt = (x: Expr, level: number, cond?: Expr) => {
  const kept = cond === undefined ? sql`${x.sql} IS NOT NULL` : sql`${x.sql} IS NOT NULL AND ${cond.sql}`;
  const n = sql`count(${x.sql}) FILTER (WHERE ${kept})`;
  return sql`(list_sort(list(${num(x)}) FILTER (WHERE ${kept})))[greatest(CAST(ceil(${raw(String(level))} * ${n}) AS BIGINT), 1)]`;
};
aggregate('medianExactLow', ([x]) => ({ sql: exactLowAt(x, 0.5), type: 'Float' }), 1, 1);
aggregate('medianExactLowIf', ([x, c]) => ({ sql: exactLowAt(x, 0.5, c), type: 'Float' }), 2, 2);
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
