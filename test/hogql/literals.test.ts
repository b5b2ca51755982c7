// A query's shape (src/hogql/literals.ts): the tree built from its shape's parse with the
// literals put back is the tree the parser gives the text itself, position for position,
// or none is built. Checked against the parser over queries with every kind of literal,
// in every place the grammar takes one, and texts around them (comments, quoted names,
// non-ASCII text, several lines).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import createHogQLParser from '@posthog/hogql-parser';
import { literalShape, treeWithLiterals } from '../../src/hogql/index.js';

const s = suite('hogql: literal shapes');
const parser = await createHogQLParser();
const tree = (text: string) => JSON.parse(parser.parseSelect(text, false)) as Record<string, unknown>;

// The tree from the shape, or null; asserted equal to the parser's own when built.
function fromShape(text: string): Record<string, unknown> | null {
  const shape = literalShape(text);
  if (shape === null) return null;
  const shaped = tree(shape.key);
  if (shaped.error === true) return null;
  const list = JSON.parse(parser.parseExpr(`[${shape.literals.map((l) => l.text).join(', ')}]`, true)) as { exprs: Record<string, unknown>[] };
  const built = treeWithLiterals(shaped, shape, list.exprs);
  if (built !== null) assert.equal(built, tree(text), text);
  return built;
}

const SHAPED = [
  "select event, count() from events where event = '$pageview' and timestamp > '2024-06-01' group by event order by 2 desc limit 10",
  "select properties.$browser as browser, count() as c, uniq(distinct_id) from events where timestamp > now() - interval 7 day and properties.plan = 'pro' group by event, browser having c > 10 order by c desc limit 50",
  "select 1.5, 1e3, 2.5e-3, 99999999999999999999, 'it''s', 'a\\'b\\\\c\\n', 'héllo wörld ✓' from events",
  "select toDateTime('2024-06-01 00:00:00'), dateDiff('day', timestamp, now()), round(toFloat(properties.price), 2) from events where properties['$current_url'] like '%/x%'",
  "select event from events where event in ('a', 'b', 'c') and toFloat(properties.price) between 10 and 20 limit 5 offset 10",
  "select arr[1], tuple(1, 'a').1, arrayMap(x -> x * 2, [1, 2, 3]) from (select [1, 2] as arr)",
  "with c as (select 5 as n) select n + 1 from c union all select 7",
  "-- a comment with 5 and 'x'\nselect /* 7 */ 'é' as \"quoted 9\", `col 3` from events\nwhere distinct_id = 'u-1'\n  and properties.n = 42",
  "select multiIf(x > 10, 'big', x > 1, 'some', 'none') from (select 3 as x)",
  "select event, count() from events where {filters} and event = 'x' group by event",
  "select 'x' as \"it's 5\", `a''b` , 5 from events where properties.`we'ird` = '\\\\' and 1 = 1",
  "select e.event, p.properties.email from events e left join persons p on p.id = e.person_id where e.timestamp >= toDateTime('2024-06-01T00:00:00Z') and p.properties.age > 30 limit 3",
];

s('queries differing in constants share a shape, and the tree built is the parser’s own', () => {
  for (const text of SHAPED) assert.ok(fromShape(text) !== null, `a tree from the shape: ${text}`);
  const a = literalShape("select count() from events where event = 'a' and n > 5");
  const b = literalShape("select count() from events where event = 'purchase' and n > 12345");
  assert.is(a?.key, b?.key);
  assert.is(a?.key, "select count() from events where event = '' and n > 0");
});

s('a literal the grammar reads otherwise leaves the shape unused; the parse is the text’s own', () => {
  for (const text of [
    "select interval '7 day'",
    'select -5, 3 from events',
    "select 1 as 'named'",
    "select f'{event} x' from events",
    'select t.1 from (select tuple(1, 2) as t)',
    'select 0x1F, 1d from events',
    'select count() from events',
  ]) {
    // null, or (checked inside) equal to the parser's tree.
    fromShape(text);
  }
  assert.is(literalShape('select count() from events'), null);
  assert.is(literalShape("select f'{event}' from events"), null);
  assert.is(fromShape('select -5, 3 from events'), null);
  assert.is(fromShape("select interval '7 day'"), null);
});

s.run();
