// Conditionals (if, multiIf, CASE, coalesce, NULL tests, transform) and boolean logic.
import { join, sql, type Sql } from '../../sql.js';
import { expr, fail } from '../expr.js';
import { catalogue } from './catalogue.js';
import { call } from './helpers.js';

const { functions, define } = catalogue();
export { functions as conditionals };

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

// transform(x, from, to[, default]): x's value in `to` at its place in `from`; not there: the
// default, or x itself without one.
define('conditional', 'transform', 3, 4, ([x, from, to, dflt]) => {
  const at = sql`list_position(${from.sql}, ${x.sql})`;
  return expr(sql`(CASE WHEN ${at} IS NULL THEN ${dflt === undefined ? x.sql : dflt.sql} ELSE (${to.sql})[${at}] END)`, 'Unknown', [x, from, to], { nullable: true });
});
