// The fast HogQL parser (src/hogql/parser/) against @posthog/hogql-parser: for every text the
// fast path takes, its JSON is the WASM parser's, deep-equal, positions included; a text it
// is unsure of (or an invalid one) it leaves to the WASM parser. The texts: every HogQL
// SELECT and every expression-like string in this repo's tests, PostHog's documented
// example queries, the tricky corners of the grammar, and generated mixes of operators,
// precedence and nesting. Prints how many texts took the fast path.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import createHogQLParser from '@posthog/hogql-parser';
import { fastParse, type FastParseKind } from '../../src/hogql/parser/index.js';
import { literalShape, TOO_DEEP_TO_PARSE } from '../../src/hogql/index.js';
import { mulberry32 } from '../helpers/mulberry32.js';

const s = suite('hogql: fast parser');
const wasm = await createHogQLParser();

const viaWasm = (kind: FastParseKind, text: string): unknown => JSON.parse(
  kind === 'select' ? wasm.parseSelect(text, false) : kind === 'expr' ? wasm.parseExpr(text, true) : wasm.parseOrderExpr(text, false));

/** Checks each text; returns how many took the fast path. */
function differential(kind: FastParseKind, texts: Iterable<string>): { fast: number; total: number } {
  let fast = 0;
  let total = 0;
  for (const text of texts) {
    total++;
    const json = fastParse(kind, text);
    if (json === null) continue;
    fast++;
    assert.equal(JSON.parse(json), viaWasm(kind, text), `${kind}: ${text}`);
  }
  return { fast, total };
}

const report = (name: string, r: { fast: number; total: number }) => console.log(`  ${name}: ${r.fast} of ${r.total} texts took the fast path`);

// Every string literal of the repo's test files that hold HogQL (compiled tests run from dist/test/).
function testStrings(): string[] {
  const root = fileURLToPath(new URL('../../../test/', import.meta.url));
  const out = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) {
        const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
        const visit = (node: ts.Node) => {
          if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.add(node.text);
          ts.forEachChild(node, visit);
        };
        visit(file);
      }
    }
  };
  // Where the repo's HogQL texts are: walking every test file cost the file 2.5 s of CPU.
  for (const dir of ['insights', 'hogql', 'events', 'exports']) walk(join(root, dir));
  return [...out];
}

const STRINGS = testStrings();
const SELECT_START = /^\s*(select|with)\b/i;

s('every HogQL SELECT in the repo’s tests', () => {
  // One text per shape (texts that differ only in their constants read alike): the WASM
  // parser's tens of milliseconds a text are the cost of this test.
  const shapes = new Map<string, string>();
  for (const text of STRINGS.filter((t) => SELECT_START.test(t))) {
    const key = literalShape(text)?.key ?? text;
    if (!shapes.has(key)) shapes.set(key, text);
  }
  // And every third of those: a SELECT costs the WASM parser 10–100 ms, and the rest of this
  // file and the generated SELECTs cover the same constructions.
  const r = differential('select', [...shapes.values()].filter((_, i) => i % 3 === 0));
  report('test SELECTs', r);
  assert.ok(r.fast >= r.total / 2, `most test SELECTs take the fast path (${r.fast} of ${r.total})`);
});

s('every expression-like string in the repo’s tests (math_hogql, breakdowns, EventsQuery select/where/orderBy)', () => {
  // A plain name is one Field (the names that are keywords are kept); the rest is every short string.
  // One text per shape here too: the WASM parser's time is this test's cost.
  const shapes = new Map<string, string>();
  for (const t of STRINGS) {
    if (t.length > 200 || SELECT_START.test(t) || /^[a-z_$][a-z0-9_$]*$/i.test(t)) continue;
    const key = literalShape(t)?.key ?? t;
    if (!shapes.has(key)) shapes.set(key, t);
  }
  const texts = [...shapes.values()];
  const expr = differential('expr', texts);
  report('test expressions', expr);
  const order = differential('orderExpr', texts.filter((t) => /\b(asc|desc)\s*$/i.test(t)));
  report('test ORDER BY elements', order);
  assert.ok(expr.fast > 300, `expressions take the fast path (${expr.fast})`);
});

// PostHog's documented example queries (their behaviour as /work/shared/reference/hogql.md and
// PostHog's HogQL docs describe it), written here.
const DOCS = [
  "SELECT e.event, p.properties.email AS email FROM events AS e LEFT JOIN persons AS p ON e.person_id = p.id WHERE e.timestamp > now() - INTERVAL 7 DAY LIMIT 10",
  "WITH recent AS (SELECT distinct_id FROM events WHERE event = '$pageview') SELECT count() FROM recent",
  'SELECT event, count() FROM events GROUP BY event ORDER BY count() DESC',
  "SELECT properties.$current_url AS url, count() AS views FROM events WHERE event = '$pageview' AND timestamp > now() - INTERVAL 30 DAY GROUP BY url ORDER BY views DESC LIMIT 20",
  "SELECT toStartOfDay(timestamp) AS day, uniq(distinct_id) AS users FROM events WHERE event = '$pageview' GROUP BY day ORDER BY day",
  "SELECT person.properties.email, count() FROM events WHERE event = 'purchase' GROUP BY person.properties.email HAVING count() > 1",
  "SELECT event, timestamp FROM events WHERE {filters} ORDER BY timestamp DESC LIMIT 100",
  "SELECT distinct_id, argMax(properties.plan, timestamp) AS plan FROM events GROUP BY distinct_id",
  "SELECT quantile(0.95)(toFloat(properties.$duration)) FROM events WHERE event = '$pageleave'",
  "SELECT countIf(event = 'signup') / countIf(event = '$pageview') AS conversion FROM events WHERE timestamp >= '2024-01-01'",
  "SELECT multiIf(toFloat(properties.price) > 100, 'high', toFloat(properties.price) > 10, 'mid', 'low') AS band, count() FROM events GROUP BY band",
  "SELECT event FROM events WHERE event IN ('$pageview', '$autocapture') AND properties.$browser NOT ILIKE '%bot%'",
  "SELECT arrayMap(x -> x * 2, [1, 2, 3]), arrayFilter(x -> x > 1, [1, 2, 3]), (1, 'a').2",
  "SELECT count() FROM events WHERE person_id IN (SELECT id FROM persons WHERE properties.email LIKE '%@posthog.com')",
  "SELECT dateDiff('day', min(timestamp), max(timestamp)) AS days FROM events GROUP BY distinct_id",
  "select event, count() as c from events where timestamp > now() - interval 7 day and properties.$browser = 'Chrome' group by event having c > 1 order by c desc limit 100",
  "SELECT e.event FROM events e INNER JOIN (SELECT distinct_id FROM events WHERE event = 'signup') s ON s.distinct_id = e.distinct_id",
  "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3",
  "SELECT CASE WHEN properties.plan = 'pro' THEN 'paid' WHEN properties.plan IS NULL THEN 'unknown' ELSE 'free' END AS tier, count() FROM events GROUP BY tier",
  "SELECT event, timestamp FROM events WHERE timestamp BETWEEN '2024-01-01' AND '2024-02-01' AND NOT event LIKE '$%' ORDER BY timestamp ASC, event DESC LIMIT 50 OFFSET 100",
];

s('PostHog’s documented example queries', () => {
  const r = differential('select', DOCS);
  report('docs examples', r);
  assert.is(r.fast, DOCS.length, 'every documented example takes the fast path');
});

const TRICKY_EXPRS = [
  // unary minus against literals and precedence
  '-1', '- 1', '-1.5', '-x', '- -1', '-(1)', '1 - -1', '2 * -3', '-a * b', '-a.b', '-1e5', '-0x10', 'a - 1', 'a-1', 'a -1', '-f(x)[1]', '-x is null',
  // not
  'not a', 'not a = b', 'not a and b', 'not not a', 'a = not b = c', 'a and not b or c', 'not a between 1 and 2', 'not a like b', 'not a is null',
  // chains and access
  'a.b.c', 'a.b.c.d.e', 'a.1', 'a.1.2', 'a.1.b', 'x[1]', 'x[1][2]', 'a.b[1].c', 'f(x).b', 'f(x)[1].b', '(a).b', '`a b`.c', '"x".y', 'properties.$browser',
  'a.from', 'a.select', 'events.timestamp', 'person.properties.`$os`', 't.*', '*',
  // keywords as names
  'timestamp', 'date', 'id', 'name', 'key', 'time', 'day', 'year', 'first', 'last', 'date(x)', 'year(timestamp)', 'range(3)', 'range(0, 10, 2)', 'any(x)', 'if(a, b, c)', 'left(s, 2)',
  // numbers
  '1e5', '1E5', '1e-3', '2.5e+3', '0x1F', '0xff', '.5', '1.', '1.e5', '0123', '1.5', '0.1', '123456789012345', '9007199254740991', '99999999999999999999', 'inf', 'nan',
  // strings and escapes
  "'a'", "''", "'it''s'", "'a\\'b'", "'a\\\\b'", "'\\n\\t\\r'", "'\\x41'", "'\\0'", "'a\"b'", "'%bot%'",
  // comments and space
  'a -- c', 'a /* x */ + b', '/* x */ a', 'a\n+\nb', ' a ', '\ta\t', 'a // b',
  // operators
  'a + b * c - d / e % f', 'a || b', 'a || b || c', 'concat(a, b) || c', '(a || b) || c', 'a || (b || c)',
  'a = b', 'a == b', 'a != b', 'a <> b', 'a < b', 'a <= b', 'a > b', 'a >= b', 'a like b', 'a ilike b', 'a not like b', 'a not ilike b',
  'a in b', 'a not in b', 'a in (1, 2)', 'a not in [1]', 'a in (select 1)', 'a in cohort 5', 'a =~ b', 'a !~ b', 'a =~* b', 'a !~* b', 'a ~ b', 'a ~* b',
  'a is null', 'a is not null', 'a ?? b', 'a ?? b ?? c', 'a and b and c', 'a or b or c', '(a and b) and c', 'a and (b and c)', 'a and b or c and d',
  'a between 1 and 2', 'a not between 1 and 2', 'a between 1 + 1 and 2 * 3', 'a and b between 1 and 2', 'a = 1 between 0 and 2', 'a between 1 and 2 and c',
  'a ? b : c', 'a ? b : c ? d : e', 'x = 1 ? 2 : 3', 'a as b', 'a as b as c', "a as 'b'", '(a as b)', 'a as `b c`', 'a as team_id', 'a as true',
  // calls, lambdas, collections
  'count()', 'count(*)', 'count( )', 'f(a)(b)', 'quantile(0.5)(x)', 'f(distinct a)', 'uniq(a) filter (where b)', 'sum(a) over (partition by b)', '(a)(b)',
  // window functions (the insights' own hogql texts use them): partition, order, frames; named windows are the WASM parser's
  'count() over ()', 'count(*) over ()', 'row_number() over (order by t)', 'lag(x, 1) over (partition by a, b order by t desc, u)', 'sum(x) over (partition by pid order by ts asc)',
  'min(t) over (partition by pid, sid)', 'max(x) over (order by t rows between unbounded preceding and current row)',
  'first_value(x) over (partition by p order by t rows between unbounded preceding and unbounded following)', 'sum(x) over (range 3 preceding)',
  'sum(x) over (order by t rows between 2 preceding and 1 following)', 'sum(x) over (rows current row)', 'sum(x) over (rows between current row and unbounded following)',
  'sum(x) over w', 'lagInFrame(item) over w as prev', 'sum(distinct x) over ()',
  // `not (…)` is a call of not, a primary; range() and a column or alias named cohort are ordinary
  'not (a)', 'not (a) and b', 'not (a) = b', 'not (a, b)', 'not(a)', 'not a', 'not not (a)', 'not (a) + 1', 'range(0, 3)', 'arrayJoin(range(0, toInt(n) + 1))', 'cohort', 'a as cohort', 'quantile(0.5)(x) over ()', 'sum(x) over (rows 1.5 preceding)', 'sum(x) over (partition by a + 1 order by b) + 1', 'f(sum(x) over (order by t))',
  'x -> x + 1', '(x, y) -> x', 'x -> x -> 1', 'arrayMap(x -> x * 2, arr)', 'f(a, b -> b)', 'x -> x > 1 and y', '[]', '[1, 2]', '[1, 2,]', '(1, 2)', '(1,)', '()',
  '{x}', '{a.b}', "{'a': 1}", '{}', "f'abc {x}'", "date '2024-01-01'", "timestamp '2024-01-01'", 'cast(a as Int)', 'a::String', "trim(both ' ' from x)", 'x?.y',
  // IN COHORT: a cohort's id or name; `cohort` as a column, or followed by anything else, is the WASM parser's
  'a not in cohort 5', "a in cohort 'name'", "a not in cohort 'name'", 'a IN COHORT 5', 'a Not In Cohort 7', 'a in cohort', 'a in cohort.x', 'a in cohort (5)',
  'a in (cohort)', 'a in cohort x', 'a in cohort -5', 'a in cohort 5 + 1', 'a in cohort + 1', "a in cohort 'x' = 1", 'not a in cohort 5', 'a in cohort 5 and b',
  'a not in cohort 5 or b', 'a in cohort 5 is null', "a in cohort '5' ?? 1", 'a like cohort 5', 'a in cohort 5[1]', 'a in cohort 5.5', "a in cohort 'x'.y",
  'a in cohort {x}', 'a in /* c */ cohort 5', 'a in cohort 5 as c', 'cohort in cohort 5', 'coalesce(person_id IN COHORT 1, false)',
  "if(coalesce(person_id in cohort 2, false), '2', NULL)", 'a in cohort 5 between 0 and 1',
  // CASE and INTERVAL
  'case when a then b end', 'case when a then b else c end', 'case when a then 1 when b then 2 else 3 end', 'case x when 1 then 2 end', 'case x when 1 then 2 when 3 then 4 else 5 end',
  'interval 1 day', 'interval 7 DAY', 'interval 2 weeks', "interval '7 day'", 'now() - interval 1 hour', 'interval x day',
  // trailing text and invalid texts: left to the WASM parser
  'a b', 'a;', 'a +', '(a', 'f(a', "'unterminated", '1 2', 'a =', 'héllo', "'wörld'",
];

const TRICKY_SELECTS = [
  'select 1', 'select 1;', 'select 1 ;', 'select 1; ', 'SELECT 1', 'Select Event From Events', 'select distinct a from t', 'select a from t limit 5 offset 3', 'select a from t limit 3, 5',
  'select a from t order by a, b desc', 'select a from t order by a desc nulls first', 'select * from t as x', 'select * from t x', 'select * from t `x y`', 'select * from t team_id',
  'select * from t x inner join u y on x.a = y.a left join v on 1 = 1', 'select * from t join u on 1', 'select * from t left outer join u on 1', 'select * from t full outer join u on 1',
  'select * from t right join u on 1', 'select * from t cross join u', 'select * from t full join u on 1', 'select * from t join u using a', 'select * from t, u',
  'with a as (select 1) select * from a', 'with a as (select 1), b as (select 2) select * from a, b', 'select a from (select 1 as a)', 'select a from (select 1 as a) as s',
  'select * from t where a group by b having c', 'select a from t union all select b from u', 'select a from t union select b from u', 'select a from t union distinct select b from u',
  '(select 1)', 'select 1 from t sample 0.1', 'select 1 from t final', 'select x from t array join arr as x', 'select a from t limit 1 by a', 'select a from t settings x = 1',
  'select a, from t', 'select a b from t', 'select a from t where', 'select', '', '  ', 'select 1 -- trailing comment', '-- leading comment\nselect 1', '/* c */ select 1',
  'select\n  a,\n  b\nfrom\n  events\nwhere\n  x = 1\n  and y = 2', "select 'é' from t", 'select * from numbers(10)', 'select a from t prewhere b where c',
  'select pid, ts, min(ts) over (partition by pid, sid) as first, row_number() over (partition by pid order by ts, uuid) as n from e',
  'select a, sum(b) over (partition by a order by c rows between unbounded preceding and current row) as running from (select 1 as a, 2 as b, 3 as c)',
  'select lagInFrame(item) over w as prev, row_number() over w from e window w as (partition by pid, sid order by pos rows between unbounded preceding and unbounded following)',
  'select sum(x) over a, sum(x) over b from e window a as (order by t), b as (partition by p)', 'select sum(x) over w from e window w as ()',
  'select sum(x) over w from e window w as (partition by a) order by 1', 'select 1 from e window w as (partition by a), w as (order by b)', 'select 1 from e window as as (order by b)',
  'select actor_id, min(start) as cohort from target group by actor_id having not (count() = 0)', 'select cohort from t',
  'select * from numbers(4)', 'select n from numbers(2, 5) n', 'select number from numbers(3) as n where number > 1', 'select 1 from e join numbers(3) as n on 1',
  'select * from numbers()', 'select * from a.numbers(3)', 'select * from numbers(3) final', 'select * from numbers(1,)',
  "select e.day, count() from (select toDate(timestamp) as day from events) e cross join (select addDays(toDate('2024-06-01'), number) as day_start from numbers(4)) d where e.day < d.day_start group by e.day",
  'select count() from events where event = {event} and timestamp > {date_from}', 'select a from t order by a limit 10 offset 5', 'select 1 as x, 2 as y order by x',
  // ARRAY JOIN: its kinds, aliases (every array needs one), several arrays, where it stands among the clauses
  'select x from t left array join arr as x', 'select x from t inner array join arr as x', 'select x from t LEFT ARRAY JOIN arr AS x', 'select x from t Array Join arr As x',
  'select x, y from t array join a as x, b as y', 'select x from t array join arr', 'select x from t array join a as x, b', "select x from t array join a as 'x'",
  'select x from t array join (a as x)', 'select x from t as e left array join e.arr as `x y` where x > 1 order by x', 'select x from t array join [1, 2] as x',
  'select x from t array join a as x array join b as y', 'select x from t array join a as x,', 'select x from t join u on 1 array join a as x',
  'select x from t left join u on 1 left array join a as x', 'select x from t u inner array join u.a as x', 'select x from t array join a as x prewhere 1 where 2',
  'select x from t e array join arr x', 'select 1 array join [1] as x', 'select x from (select [1] as a) array join a as x', 'select x from t full array join a as x',
  'select x from t array join a as x limit 1', 'select x from t array join a as x left join u on 1', 'select x from t array join a as x group by x having count() > 1',
  'select x from t array join arrayFilter(y -> y is not null, [if(coalesce(person_id in cohort 1, false), 1, null), 2]) as x where person_id not in cohort 3',
  'select a from (select x as a from t array join a as x) array join [a] as b', 'with w as (select x from t array join a as x) select * from w',
  'select x from t array join a as x union all select y from u left array join b as y',
];

s('the tricky parts: unary minus, not, chains, keywords as names, numbers, escapes, comments, semicolons, IN COHORT, ARRAY JOIN', () => {
  report('tricky expressions', differential('expr', TRICKY_EXPRS));
  report('tricky ORDER BY elements', differential('orderExpr', ['a', 'a desc', 'a DESC', 'a asc', 'a ascending', 'a descending', '(a) desc', 'a + 1 desc', 'a desc nulls last', 'a, b', 'a desc x']));
  report('tricky SELECTs', differential('select', TRICKY_SELECTS));
  // The forms the insights' cohort breakdowns and cohort filters write take the fast path (on
  // the WASM parser alone their texts took seconds of a core).
  for (const text of ['a in cohort 5', 'a NOT IN COHORT 5', "a in cohort 'name'", "a not in cohort 'name'", 'not a in cohort 5 and b', 'coalesce(person_id IN COHORT 1, false)']) {
    assert.ok(fastParse('expr', text) !== null, text);
  }
  for (const text of [
    'select x from t array join arr as x', 'select x from t LEFT ARRAY JOIN arr AS x', 'select x from t inner array join arr as x', 'select x, y from t array join a as x, b as y',
    'select x from t join u on 1 left array join a as x where x > 1', 'with w as (select x from t array join a as x) select * from w',
  ]) assert.ok(fastParse('select', text) !== null, text);
  // Texts the WASM parser refuses are never read by the fast path: their error stays PostHog's.
  for (const text of ['a b', '(a', "'unterminated", 'héllo', '{}', "{'a': 1}"]) assert.is(fastParse('expr', text), null, text);
  for (const text of ['select a b from t', 'select', '', 'select a from t where', 'select event as team_id from events']) assert.is(fastParse('select', text), null, text);
  // Nesting past the stack without parentheses (past the WASM parser's too, which traps on it
  // after seconds) is answered as a parse failure, not thrown.
  for (const text of [`${'not '.repeat(200_000)}1`, Array(20_000).fill('1').join('+')]) {
    assert.equal(JSON.parse(fastParse('expr', text) ?? 'null'), { error: true, message: TOO_DEEP_TO_PARSE });
  }
});

// Seeded random texts: operators of every level mixed and nested, with space, comments and case varied.
const ATOMS = ['a', 'b.c', 'events.timestamp', 'properties.$browser', '`q n`', '"dq"', 'id', 'timestamp', 'date', '1', '0', '42', '1.5', '.5', '1e5', '2.5e-3', '0x1F',
  "'x'", "'it''s'", "'a\\'b'", "''", 'true', 'false', 'null', 'count()', 'f(x)', 'f(x, y)', 'quantile(0.5)(x)', 'uniq(distinct x)', 'if(a, b, c)', 'x[1]', 'x.1', 'f(x).b',
  '[1, 2]', '[]', '(1, 2)', '{p}', 'interval 7 day', 'now()', '*', 't.*'];
const BINARY = ['+', '-', '*', '/', '%', '||', '=', '==', '!=', '<>', '<', '<=', '>', '>=', 'like', 'not like', 'ilike', 'not ilike', 'in', 'not in', '=~', '!~', '=~*', '!~*', '??', 'and', 'or', 'AND', 'OR'];

function expression(next: () => number, depth: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  if (depth <= 0 || next() < 0.25) return pick(ATOMS);
  const sub = () => expression(next, depth - 1);
  switch (Math.floor(next() * 14)) {
    case 0: return `-${sub()}`;
    case 1: return `- ${sub()}`;
    case 2: return `not ${sub()}`;
    case 3: return `(${sub()})`;
    case 4: return `${sub()} is ${next() < 0.5 ? 'not ' : ''}null`;
    case 5: return `${sub()} ${next() < 0.3 ? 'not ' : ''}between ${sub()} and ${sub()}`;
    case 6: return `${sub()} ? ${sub()} : ${sub()}`;
    case 7: return `f(${sub()}, ${sub()})`;
    case 8: return `arrayMap(x -> ${sub()}, [${sub()}])`;
    case 9: return `case when ${sub()} then ${sub()} ${next() < 0.5 ? `else ${sub()} ` : ''}end`;
    case 10: return `(${sub()}, ${sub()})`;
    case 11: return `${sub()}[${sub()}]`;
    default: return `${sub()} ${pick(BINARY)} ${sub()}`;
  }
}

// Space between tokens varied: newlines, tabs, comments.
function respaced(next: () => number, text: string): string {
  const spaces = [' ', '  ', '\n', '\t', ' /* c */ ', ' -- c\n', '\n  '];
  return text.replace(/ /g, () => (next() < 0.8 ? ' ' : spaces[Math.floor(next() * spaces.length)]));
}

s('generated expressions: random operator mixes, precedence and nesting', () => {
  const next = mulberry32(28);
  const texts: string[] = [];
  for (let i = 0; i < 300; i++) texts.push(respaced(next, expression(next, 1 + Math.floor(next() * 2))));
  const r = differential('expr', texts);
  report('generated expressions', r);
  assert.ok(r.fast > r.total / 3, `generated expressions take the fast path (${r.fast} of ${r.total})`);
});

s('generated SELECTs: clauses, joins, subqueries, CTEs and unions around random expressions', () => {
  const next = mulberry32(6);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const e = () => expression(next, Math.floor(next() * 2));
  const texts: string[] = [];
  for (let i = 0; i < 20; i++) {
    const columns = Array.from({ length: 1 + Math.floor(next() * 3) }, () => `${e()}${next() < 0.4 ? ` as c${Math.floor(next() * 3)}` : ''}`);
    let text = `select ${next() < 0.2 ? 'distinct ' : ''}${columns.join(', ')}`;
    if (next() < 0.9) {
      text += ` from ${pick(['events', 'events e', 'events as e', 'persons p', '(select event, timestamp from events) s'])}`;
      if (next() < 0.3) text += ` ${pick(['left join', 'inner join', 'join', 'left outer join'])} ${pick(['persons p', '(select id from persons) p'])} on ${e()}`;
    }
    if (next() < 0.7) text += ` where ${e()}`;
    if (next() < 0.4) text += ` group by ${e()}, ${e()}`;
    if (next() < 0.2) text += ` having ${e()}`;
    if (next() < 0.4) text += ` order by ${e()} ${pick(['', 'asc', 'desc', 'DESC'])}`;
    if (next() < 0.4) text += ` limit ${Math.floor(next() * 100)}${next() < 0.3 ? ` offset ${Math.floor(next() * 10)}` : ''}`;
    if (next() < 0.1) text = `with w as (select ${e()} as x) ${text}`;
    if (next() < 0.1) text += ` union all select ${e()}`;
    if (next() < 0.1) text += ';';
    if (next() < 0.3) text = text.replace(/\b(select|from|where|group by|order by|limit|and|or)\b/g, (k) => k.toUpperCase());
    texts.push(respaced(next, text));
  }
  const r = differential('select', texts);
  report('generated SELECTs', r);
  assert.ok(r.fast > r.total / 3, `generated SELECTs take the fast path (${r.fast} of ${r.total})`);
});

s.run();
