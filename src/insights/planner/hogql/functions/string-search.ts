// Searching text and cutting it up: positions, regular expressions and their groups, counts of
// substrings and matches, splitting into parts and tokens.
import { int, join, raw, sql, type Sql } from '../../sql.js';
import { expr, fail, num, str, type Expr } from '../expr.js';
import { catalogue, type Fx } from './catalogue.js';
import { constantInt, constantText } from './helpers.js';

const { functions, define } = catalogue();
export { functions as stringSearch };

// position(haystack, needle, start): the match's place in the whole string, searching from start.
define('string', ['position', 'positionUTF8', 'locate'], 2, 3, ([h, n, from]) => {
  if (from === undefined) return expr(sql`strpos(${str(h)}, ${str(n)})`, 'UInt', [h, n]);
  const start = sql`CAST(${num(from)} AS BIGINT)`;
  const found = sql`strpos(substr(${str(h)}, ${start}), ${str(n)})`;
  return expr(sql`(CASE WHEN ${start} < 1 OR ${start} > length(${str(h)}) + 1 OR ${found} = 0 THEN 0 ELSE ${found} + ${start} - 1 END)`, 'UInt', [h, n, from]);
});
define('string', ['positionCaseInsensitive', 'positionCaseInsensitiveUTF8'], 2, 2, ([h, n]) => expr(sql`strpos(lower(${str(h)}), lower(${str(n)}))`, 'UInt', [h, n]));
define('string', 'match', 2, 2, ([s, re]) => expr(sql`regexp_matches(${str(s)}, ${str(re)})`, 'Bool', [s, re]));
// Whether a constant pattern has a capturing group (a '(' not escaped, not in a class, not '(?').
function capturingGroups(re: Expr): boolean {
  const v = re.constant?.value;
  if (typeof v !== 'string') return false;
  return /\((?!\?)/.test(v.replace(/\\./g, '').replace(/\[[^\]]*\]/g, ''));
}

// DuckDB takes a group index only as a constant: a whole number from 0 to 9.
function groupIndex(g: Expr | undefined, fx: Fx): number {
  if (g === undefined) return 1;
  const v = g.constant?.value;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 9) return fail(`${fx.name}() takes its group index as a whole number from 0 to 9`, fx.node);
  return v;
}

// extractAll(s, re): every match, each the first group's when the pattern has one.
define('string', 'extractAll', 2, 2, ([s, re]) => expr(sql`regexp_extract_all(${str(s)}, ${str(re)}, ${raw(capturingGroups(re) ? '1' : '0')})`, 'Array', [s, re]));
// extract(s, re): the first group's match when the pattern has one, else the whole match
// ('' without a match, as ClickHouse's); regexpExtract(s, re, n): group n (default 1).
define('string', 'extract', 2, 2, ([s, re]) => expr(sql`regexp_extract(${str(s)}, ${str(re)}, ${raw(capturingGroups(re) ? '1' : '0')})`, 'String', [s, re]));
define('string', 'regexpExtract', 2, 3, ([s, re, g], fx) => expr(sql`regexp_extract(${str(s)}, ${str(re)}, ${raw(String(groupIndex(g, fx)))})`, 'String', [s, re]));
// The split functions' max_substrings: at most that many parts, the rest dropped (ClickHouse's default).
const atMost = (parts: Sql, max: Expr | undefined) => (max === undefined ? parts : sql`(CASE WHEN ${num(max)} > 0 THEN list_slice(${parts}, 1, CAST(${num(max)} AS BIGINT)) ELSE ${parts} END)`);
define('string', ['splitByChar', 'splitByString'], 2, 3, ([sep, s, max]) => expr(atMost(sql`string_split(${str(s)}, ${str(sep)})`, max), 'Array', [sep, s]));

// multiSearch*(haystack, [needles]): each needle's first position (0: absent), the leftmost, any.
const positions = (h: Expr, needles: Expr) => sql`list_transform(${needles.sql}, lambda hq_needle: strpos(${str(h)}, hq_needle))`;
define('string', ['multiSearchAllPositions', 'multiSearchAllPositionsUTF8'], 2, 2, ([h, n]) => expr(positions(h, n), 'Array', [h, n]));
define('string', 'multiSearchFirstPosition', 2, 2, ([h, n]) => expr(sql`coalesce(list_min(list_filter(${positions(h, n)}, lambda hq_p: hq_p > 0)), 0)`, 'UInt', [h, n]));
define('string', 'multiSearchAny', 2, 2, ([h, n]) => expr(sql`(len(list_filter(${positions(h, n)}, lambda hq_p: hq_p > 0)) > 0)`, 'Bool', [h, n]));
define('string', 'multiMatchAny', 2, 2, ([h, res]) => expr(sql`(len(list_filter(${res.sql}, lambda hq_re: regexp_matches(${str(h)}, hq_re))) > 0)`, 'Bool', [h, res]));
// Non-overlapping occurrences, left to right; an empty needle counts none.
const occurrences = (h: Sql, n: Sql) => sql`(CASE WHEN length(${n}) = 0 THEN 0 ELSE (length(${h}) - length(replace(${h}, ${n}, ''))) // length(${n}) END)`;
define('string', 'countSubstrings', 2, 2, ([h, n]) => expr(occurrences(str(h), str(n)), 'UInt', [h, n]));
define('string', ['countSubstringsCaseInsensitive', 'countSubstringsCaseInsensitiveUTF8'], 2, 2, ([h, n]) => expr(occurrences(sql`lower(${str(h)})`, sql`lower(${str(n)})`), 'UInt', [h, n]));
define('string', 'countMatches', 2, 2, ([h, re]) => expr(sql`len(regexp_extract_all(${str(h)}, ${str(re)}))`, 'UInt', [h, re]));
// A backslash before each of \0 \ | ( ) ^ $ . [ ] ? * + { : - (ClickHouse's list; not '}').
define('string', 'regexpQuoteMeta', 1, 1, ([a]) => expr(sql`replace(regexp_replace(${str(a)}, '([\\\\|()^$.\\[\\]?*+{:-])', '\\\\\\1', 'g'), chr(0), '\\0')`, 'String', [a]));
define('string', 'splitByRegexp', 2, 3, ([re, s, max]) => expr(atMost(sql`regexp_split_to_array(${str(s)}, ${str(re)})`, max), 'Array', [re, s]));
// Runs of ASCII whitespace separate; none are empty.
define('string', 'splitByWhitespace', 1, 2, ([s, max]) => expr(atMost(sql`regexp_extract_all(${str(s)}, '[^ \\t\\n\\r\\f\\v]+')`, max), 'Array', [s]));
// Runs of ASCII whitespace and punctuation separate.
define('string', 'splitByNonAlpha', 1, 2, ([s, max]) => expr(atMost(sql`regexp_extract_all(${str(s)}, '[^ \\t\\n\\r\\f\\v!-/:-@\\[-\`{-~]+')`, max), 'Array', [s]));
define('string', 'alphaTokens', 1, 2, ([s, max]) => expr(atMost(sql`regexp_extract_all(${str(s)}, '[a-zA-Z]+')`, max), 'Array', [s]));
// ASCII letters and digits, and every character past ASCII, make tokens.
define('string', 'tokens', 1, 1, ([s]) => expr(sql`regexp_extract_all(${str(s)}, '[0-9A-Za-z\\x{80}-\\x{10FFFF}]+')`, 'Array', [s]));
// Every substring of n characters, in order; none when the string is shorter.
define('string', 'ngrams', 2, 2, ([s, n], fx) => {
  const k = constantInt(n, fx, 'the length');
  if (k < 1) fail('ngrams() takes a length of 1 or more', fx.node);
  return expr(sql`list_transform(range(1, length(${str(s)}) - ${int(k)} + 2), lambda hq_i: substr(${str(s)}, hq_i, ${int(k)}))`, 'Array', [s]);
});
// PostHog's split_part: the n-th part by a separator, '' past the end.
define('string', 'split_part', 3, 3, ([s, sep, n]) => {
  const parts = sql`string_split(${str(s)}, ${str(sep)})`;
  return expr(sql`(CASE WHEN len(${parts}) >= ${num(n)} THEN coalesce((${parts})[CAST(${num(n)} AS BIGINT)], '') ELSE '' END)`, 'String', [s, sep, n]);
});
// Every match's groups: per match (vertical) or per group (horizontal). A pattern needs a group.
const groupCount = (re: Expr, fx: Fx): number => {
  const v = constantText(re, fx, 'the pattern');
  const n = (v.replace(/\\./g, '').replace(/\[[^\]]*\]/g, '').match(/\((?!\?)/g) ?? []).length;
  if (n === 0 || n > 9) fail(`${fx.name}() needs a pattern with 1 to 9 capturing groups`, fx.node);
  return n;
};
const groupLists = (s: Expr, re: Expr, n: number) => Array.from({ length: n }, (_, i) => sql`regexp_extract_all(${str(s)}, ${str(re)}, ${raw(String(i + 1))})`);
define('string', 'extractAllGroupsHorizontal', 2, 2, ([s, re], fx) => expr(sql`[${join(groupLists(s, re, groupCount(re, fx)), ', ')}]`, 'Array', [s, re]));
define('string', ['extractAllGroupsVertical', 'extractAllGroups'], 2, 2, ([s, re], fx) => {
  const lists = groupLists(s, re, groupCount(re, fx));
  return expr(sql`list_transform(range(1, len(${lists[0]}) + 1), lambda hq_i: [${join(lists.map((l) => sql`(${l})[hq_i]`), ', ')}])`, 'Array', [s, re]);
});
