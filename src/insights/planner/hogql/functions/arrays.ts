// Arrays and tuples (1-based): building, reading, searching, slicing, reshaping.
import { join, raw, sql, type Sql } from '../../sql.js';
import { expr, fail, num, tupleSql } from '../expr.js';
import { catalogue } from './catalogue.js';
import { bounded, call, constantInt, list } from './helpers.js';

const { functions, define } = catalogue();
export { functions as arrays };

define('array', 'array', 0, Infinity, (args) => expr(sql`[${list(args.map((a) => a.sql))}]`, 'Array', args, { nullable: false }));
define('array', 'tuple', 1, Infinity, (args) => expr(tupleSql(args.map((a) => a.sql)), 'Tuple', args, { nullable: false }));
define('array', 'has', 2, 2, ([a, x]) => expr(sql`list_contains(${a.sql}, ${x.sql})`, 'Bool', [a, x]));
define('array', 'hasAll', 2, 2, ([a, b]) => expr(sql`list_has_all(${a.sql}, ${b.sql})`, 'Bool', [a, b]));
define('array', 'hasAny', 2, 2, ([a, b]) => expr(sql`list_has_any(${a.sql}, ${b.sql})`, 'Bool', [a, b]));
// arr[n], counted from the end when n is negative (as ClickHouse's).
define('array', 'arrayElement', 2, 2, ([a, n]) => expr(sql`(${a.sql})[${num(n)}]`, 'Unknown', [a, n], { nullable: true }));
define('array', 'indexOf', 2, 2, ([a, x]) => expr(sql`coalesce(list_position(${a.sql}, ${x.sql}), 0)`, 'UInt', [a, x]));
define('array', 'arraySort', 1, 1, ([a]) => expr(sql`list_sort(${a.sql})`, 'Array', [a]));
define('array', 'arrayReverseSort', 1, 1, ([a]) => expr(sql`list_reverse_sort(${a.sql})`, 'Array', [a]));
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
// Running sums that restart from 0 whenever they would go below it.
define('array', 'arrayCumSumNonNegative', 1, 1, ([a]) => {
  const prefix = sql`list_transform(${a.sql}, lambda hq_x, hq_i: list_sum(list_slice(${a.sql}, 1, hq_i)))`;
  return expr(sql`list_transform(${prefix}, lambda hq_p, hq_i: hq_p - least(0, list_min(list_slice(${prefix}, 1, hq_i))))`, 'Array', [a]);
});
define('array', 'arrayProduct', 1, 1, ([a]) => expr(sql`CAST(list_reduce(list_prepend(1, ${a.sql}), lambda hq_acc, hq_x: hq_acc * hq_x) AS DOUBLE)`, 'Float', [a]));
