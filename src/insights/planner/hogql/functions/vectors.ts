// Arrays as vectors: dot products, norms, distances, normalized vectors.
import { sql, type Sql } from '../../sql.js';
import { expr, num, type Expr } from '../expr.js';
import { catalogue } from './catalogue.js';

const { functions, define } = catalogue();
export { functions as vectors };

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
