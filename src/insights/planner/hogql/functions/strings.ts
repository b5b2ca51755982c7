// Strings (1-based, as ClickHouse's): case, length, slices, padding and trimming, concatenation
// and format(), replacement, LIKE.
import { join, sql, text, type Sql } from '../../sql.js';
import { expr, fail, num, str, type HType } from '../expr.js';
import { catalogue } from './catalogue.js';
import { bounded, call, constantText, joinedBy } from './helpers.js';

const { functions, define } = catalogue();
export { functions as strings };

const textFn = (name: string, duck: string, type: HType = 'String', min = 1, max = min) =>
  define('string', name, min, max, (args) => expr(call(duck, args.map((a, i) => (i === 0 ? str(a) : a.sql))), type, args));
textFn('lower', 'lower');
textFn('upper', 'upper');
textFn('lowerUTF8', 'lower');
textFn('upperUTF8', 'upper');
textFn('lengthUTF8', 'length', 'UInt');
textFn('reverse', 'reverse');
textFn('startsWith', 'starts_with', 'Bool', 2);
textFn('endsWith', 'ends_with', 'Bool', 2);
define('string', 'repeat', 2, 2, ([a, n]) => expr(sql`repeat(${str(a)}, CAST(${bounded(num(n), 'repeat()')} AS BIGINT))`, 'String', [a, n]));
textFn('left', 'left', 'String', 2);
textFn('right', 'right', 'String', 2);
textFn('initcap', 'initcap');
define('string', 'length', 1, 1, ([a]) => expr(a.type === 'Array' ? sql`len(${a.sql})` : sql`length(${str(a)})`, 'UInt', [a]));
define('string', 'concat', 1, Infinity, (args) => expr(call('concat', args.map(str)), 'String', args, { nullable: false }));
define('string', ['substring', 'substringUTF8', 'substr', 'mid'], 2, 3, ([s, o, l]) =>
  expr(l === undefined ? sql`substring(${str(s)}, ${num(o)})` : sql`substring(${str(s)}, ${num(o)}, ${num(l)})`, 'String', [s, o, ...(l ? [l] : [])]));
for (const [names, duck] of [[['trim', 'btrim'], 'trim'], [['trimLeft', 'ltrim'], 'ltrim'], [['trimRight', 'rtrim'], 'rtrim']] as const) {
  define('string', [...names], 1, 2, ([s, c]) => expr(c === undefined ? call(duck, [str(s)]) : call(duck, [str(s), str(c)]), 'String', [s]));
}
for (const [names, duck] of [[['leftPad', 'lpad', 'leftPadUTF8'], 'lpad'], [['rightPad', 'rpad', 'rightPadUTF8'], 'rpad']] as const) {
  define('string', [...names], 2, 3, ([s, n, c]) => expr(call(duck, [str(s), sql`CAST(${bounded(num(n), `${duck}()`)} AS INTEGER)`, c === undefined ? sql`' '` : str(c)]), 'String', [s, n]));
}
define('string', ['replace', 'replaceAll'], 3, 3, ([s, a, b]) => expr(sql`replace(${str(s)}, ${str(a)}, ${str(b)})`, 'String', [s, a, b]));
define('string', 'replaceRegexpAll', 3, 3, ([s, a, b]) => expr(sql`regexp_replace(${str(s)}, ${str(a)}, ${str(b)}, 'g')`, 'String', [s, a, b]));
// The first occurrence of a substring (an empty one: none).
define('string', 'replaceOne', 3, 3, ([s, a, b]) => {
  const [h, n] = [str(s), str(a)];
  return expr(sql`(CASE WHEN ${n} = '' OR strpos(${h}, ${n}) = 0 THEN ${h} ELSE substr(${h}, 1, strpos(${h}, ${n}) - 1) || ${str(b)} || substr(${h}, strpos(${h}, ${n}) + length(${n})) END)`, 'String', [s, a, b]);
});
define('string', 'replaceRegexpOne', 3, 3, ([s, a, b]) => expr(sql`regexp_replace(${str(s)}, ${str(a)}, ${str(b)})`, 'String', [s, a, b]));
define('string', 'ascii', 1, 1, ([a]) => expr(sql`ascii(${str(a)})`, 'Int', [a]));
define('string', 'arrayStringConcat', 1, 2, ([a, sep]) => expr(sql`array_to_string(${a.sql}, ${sep === undefined ? sql`''` : str(sep)})`, 'String', [a]));
define('string', 'empty', 1, 1, ([a]) => expr(a.type === 'Array' ? sql`(len(${a.sql}) = 0)` : sql`(${a.sql} IS NULL OR ${str(a)} = '')`, 'Bool', [a], { nullable: false }));
define('string', 'notEmpty', 1, 1, ([a]) => expr(a.type === 'Array' ? sql`(len(${a.sql}) > 0)` : sql`(${a.sql} IS NOT NULL AND ${str(a)} <> '')`, 'Bool', [a], { nullable: false }));
define('string', 'like', 2, 2, ([a, b]) => expr(sql`(${str(a)} LIKE ${str(b)})`, 'Bool', [a, b]));
define('string', 'ilike', 2, 2, ([a, b]) => expr(sql`(${str(a)} ILIKE ${str(b)})`, 'Bool', [a, b]));
define('string', 'notLike', 2, 2, ([a, b]) => expr(sql`(${str(a)} NOT LIKE ${str(b)})`, 'Bool', [a, b]));
define('string', 'notILike', 2, 2, ([a, b]) => expr(sql`(${str(a)} NOT ILIKE ${str(b)})`, 'Bool', [a, b]));

// NULL when any argument is NULL (ClickHouse's; PostHog makes only concat's arguments safe).
define('string', 'concatWithSeparator', 2, Infinity, ([sep, ...parts]) => expr(sql`(${joinedBy(parts.map(str), str(sep))})`, 'String', [sep, ...parts], { nullable: true }));
// format(pattern, …): {} takes the next argument, {n} the n-th (from 0), {{ and }} are braces.
define('string', 'format', 2, Infinity, ([pattern, ...args], fx) => {
  const source = constantText(pattern, fx, 'the pattern');
  const pieces: Sql[] = [];
  let literal = '';
  let next = 0;
  let numbered: boolean | null = null;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if ((c === '{' || c === '}') && source[i + 1] === c) {
      literal += c;
      i++;
    } else if (c === '{') {
      const close = source.indexOf('}', i);
      const inside = close === -1 ? null : source.slice(i + 1, close);
      if (inside === null || !/^\d*$/.test(inside)) fail(`format(): '{' at ${i} must be {}, {n} or {{`, fx.node);
      if (numbered !== null && numbered !== (inside !== '')) fail('format(): cannot mix {} and {n}', fx.node);
      numbered = inside !== '';
      const at = inside === '' ? next++ : Number(inside);
      if (at >= args.length) fail(`format(): the pattern reads argument ${at + 1}, but ${args.length} were given`, fx.node);
      if (literal !== '') pieces.push(sql`${text(literal)}`);
      literal = '';
      pieces.push(str(args[at]));
      i = close;
    } else if (c === '}') {
      fail(`format(): unmatched '}' at ${i}`, fx.node);
    } else {
      literal += c;
    }
  }
  if (literal !== '' || pieces.length === 0) pieces.push(sql`${text(literal)}`);
  return expr(sql`(${join(pieces, ' || ')})`, 'String', args, { nullable: args.some((a) => a.nullable) });
});
textFn('reverseUTF8', 'reverse');
// An empty string stays empty.
define('string', 'appendTrailingCharIfAbsent', 2, 2, ([s, c]) => expr(sql`(CASE WHEN ${str(s)} = '' OR ends_with(${str(s)}, ${str(c)}) THEN ${str(s)} ELSE ${str(s)} || ${str(c)} END)`, 'String', [s, c]));
define('string', ['translate', 'translateUTF8'], 3, 3, ([s, from, to]) => expr(sql`translate(${str(s)}, ${str(from)}, ${str(to)})`, 'String', [s, from, to]));
