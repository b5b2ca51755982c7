// Aggregates, with ClickHouse's -If forms (the condition last, as a FILTER): counts, sums,
// averages, extremes, any/argMin/argMax, quantiles and medians, collections.
import { int, raw, sql, type Sql } from '../../sql.js';
import { fail, num, str, type Expr, type HType } from '../expr.js';
import { catalogue, type Fx } from './catalogue.js';
import { constantInt, list, withIf } from './helpers.js';

const { functions, aggregate } = catalogue();
export { functions as aggregates };

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
// quantileExactHigh's median is quantileExact's: the higher median for an even count.
aggregate('medianExactHigh', ([x]) => ({ sql: exactAt(x, 0.5), type: 'Float' }), 1, 1);
for (const [name, duck] of [['stddevPop', 'stddev_pop'], ['stddevSamp', 'stddev_samp'], ['varPop', 'var_pop'], ['varSamp', 'var_samp']] as const) {
  aggregate(name, ([x]) => ({ sql: sql`${raw(duck)}(${num(x)})`, type: 'Float' }), 1, 1);
}
for (const [name, duck] of [['corr', 'corr'], ['covarPop', 'covar_pop'], ['covarSamp', 'covar_samp']] as const) {
  aggregate(name, ([x, y]) => ({ sql: sql`${raw(duck)}(${num(x)}, ${num(y)})`, type: 'Float' }), 2, 2);
}

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
