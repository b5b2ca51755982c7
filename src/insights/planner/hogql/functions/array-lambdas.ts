// Array functions that take a lambda first (compiled to DuckDB's `lambda x: …`): map, filter,
// find, fill, split, fold; and arrayMin/Max/Sum/Avg, whose second form takes one.
import { raw, sql, type Sql } from '../../sql.js';
import { expr, fail, type Expr, type HType } from '../expr.js';
import { catalogue, type Fx } from './catalogue.js';

const { functions, define } = catalogue();
export { functions as arrayLambdas };

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
lambdaFirst('arrayLast', (f, a) => sql`list_filter(${a}, ${f})[-1]`, () => 'Unknown');
define('array', 'arraySum', 1, 1, ([a]) => expr(sql`list_sum(${a.sql})`, 'Float', [a]));
define('array', 'arrayMin', 1, 1, ([a]) => expr(sql`list_min(${a.sql})`, 'Unknown', [a], { nullable: true }));
define('array', 'arrayMax', 1, 1, ([a]) => expr(sql`list_max(${a.sql})`, 'Unknown', [a], { nullable: true }));
define('array', 'arrayAvg', 1, 1, ([a]) => expr(sql`list_avg(${a.sql})`, 'Float', [a], { nullable: true }));

const lambdaOf = (f: Expr, fx: Fx): Sql => (f.type === 'Lambda' ? f.sql : fail(`${fx.name}() takes a lambda first, e.g. ${fx.name}(x -> x, arr)`, fx.node));
// Each element's value under a lambda, a list the index lambdas below read by position.
const mapped = (f: Expr, a: Expr, fx: Fx) => sql`list_transform(${a.sql}, ${lambdaOf(f, fx)})`;
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
// The lambda forms of arrayMin/Max/Sum/Avg: over the lambda's values.
for (const [name, duck, type] of [['arrayMin', 'list_min', 'Unknown'], ['arrayMax', 'list_max', 'Unknown'], ['arraySum', 'list_sum', 'Float'], ['arrayAvg', 'list_avg', 'Float']] as const) {
  const plain = functions.get(name)!;
  define('array', name, 1, 2, (args, fx) => (args.length === 1 ? plain.build(args, fx) : expr(sql`${raw(duck)}(${mapped(args[0], args[1], fx)})`, type, [args[1]], { nullable: true })));
}
