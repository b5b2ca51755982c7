// A trends breakdown of type hogql by arrayJoin(...) (issue 28): as PostHog, each element of
// the event's array is its own breakdown value, so an event with ['a', 'b'] counts in both, an
// element twice counts twice, and an empty or NULL array counts in none. Numbers worked out
// by hand over seven pageviews; the insight's hogql text, run as a HogQLQuery, gives them too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const a = suite('insights: breakdown by arrayJoin');
let t: TestServer;
let api: ApiCall;

const NULL = '$$_posthog_breakdown_null_$$';
const OTHER = '$$_posthog_breakdown_other_$$';
const TAGS = "arrayJoin(JSONExtractArrayRaw(properties, 'tags'))";
const CSV = "arrayJoin(splitByChar(',', properties.csv))";

const post = (query: Record<string, unknown>) => api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query, refresh: 'force_blocking' });
type Item = { breakdown_value: string; data: number[]; days: string[] };
const trends = async (breakdown: string, extra: Record<string, unknown> = {}, series: Record<string, unknown> = {}) => {
  const r = await post({
    kind: 'TrendsQuery', interval: 'day', dateRange: { date_from: '2024-06-01', date_to: '2024-06-03' },
    series: [{ kind: 'EventsNode', event: '$pageview', ...series }], breakdownFilter: { breakdown_type: 'hogql', breakdown, ...extra },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body as { results: Item[]; hogql: string };
};
const byValue = (results: Item[]) => Object.fromEntries(results.map((i) => [i.breakdown_value, i.data]));

// The insight's hogql text, run in the same project: its (day, value) totals are the insight's, and nothing more.
async function textAgrees(body: { results: Item[]; hogql: string }): Promise<void> {
  const r = await post({ kind: 'HogQLQuery', query: body.hogql });
  assert.is(r.status, 200, `${body.hogql}: ${JSON.stringify(r.body)}`);
  const fromText = new Map((r.body.results as unknown[][]).map((row) => [`${String(row[1]).slice(0, 10)}|${String(row[2])}`, Number(row[0])]));
  let nonZero = 0;
  for (const item of body.results) {
    item.days.forEach((day, i) => {
      assert.is(fromText.get(`${day}|${item.breakdown_value}`) ?? 0, item.data[i], `${day} ${item.breakdown_value}: ${body.hogql}`);
      if (item.data[i] !== 0) nonZero++;
    });
  }
  assert.is([...fromText.values()].filter((v) => v !== 0).length, nonZero, body.hogql);
}

a.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const ev = (event: string, who: string, day: string, properties: Record<string, unknown>) => ({ uuid: randomUUID(), event, distinct_id: who, timestamp: `2024-06-0${day}T10:00:00Z`, properties });
  const batch = [
    ev('$pageview', 'u1', '1', { tags: ['a', 'b'], csv: 'x,y', a: 'p' }),
    ev('$pageview', 'u2', '1', { tags: ['a'], csv: 'x', a: 'p', b: 'q' }),
    ev('$pageview', 'u1', '2', { tags: [] }),
    ev('$pageview', 'u3', '2', { csv: 'y', b: 'q' }),
    ev('$pageview', 'u2', '2', { tags: ['b', 'c', 'b'], csv: 'x,,x' }),
    ev('$pageview', 'u3', '3', { tags: ['a', 'd'], csv: 'y' }),
    ev('$pageview', 'u1', '3', { tags: 'a' }),
    ev('other', 'u1', '1', { tags: ['z'], csv: 'z' }),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
});
a.after(async () => { await t?.close(); });

a('each element its own value: counted once per element, an empty array, a non-array and a missing one in none', async () => {
  // JSONExtractArrayRaw keeps each element's JSON text: "a" with its quotes.
  const body = await trends(TAGS);
  assert.equal(byValue(body.results), { '"a"': [2, 0, 1], '"b"': [1, 2, 0], '"c"': [0, 1, 0], '"d"': [0, 0, 1] });
  assert.equal(body.results.map((i) => i.breakdown_value), ['"a"', '"b"', '"c"', '"d"']);
  await textAgrees(body);
  // Text split into an array: a missing property is a NULL array (no value), an empty piece is ''.
  const csv = await trends(CSV);
  assert.equal(byValue(csv.results), { x: [2, 2, 0], y: [1, 1, 1], '': [0, 1, 0] });
  await textAgrees(csv);
});

a('NULL elements are the null value; distinct users count a person once per value', async () => {
  const pair = await trends('arrayJoin([properties.a, properties.b])');
  assert.equal(byValue(pair.results), { [NULL]: [1, 5, 4], p: [2, 0, 0], q: [1, 1, 0] });
  await textAgrees(pair);
  // u2's pageview tagged b twice is one user on June 2nd.
  const users = await trends(TAGS, {}, { math: 'dau' });
  assert.equal(byValue(users.results), { '"a"': [2, 0, 1], '"b"': [1, 1, 0], '"c"': [0, 1, 0], '"d"': [0, 0, 1] });
  await textAgrees(users);
  const hogqlMath = await trends(CSV, {}, { math: 'hogql', math_hogql: 'count()' });
  assert.equal(byValue(hogqlMath.results), { x: [2, 2, 0], y: [1, 1, 1], '': [0, 1, 0] });
});

a('past the limit, the elements fold into other; an expression over the element', async () => {
  const top = await trends(TAGS, { breakdown_limit: 1 });
  assert.equal(byValue(top.results), { '"a"': [2, 0, 1], [OTHER]: [1, 3, 1] });
  await textAgrees(top);
  const upper = await trends(`upper(${CSV}) || '!'`);
  assert.equal(byValue(upper.results), { 'X!': [2, 2, 0], 'Y!': [1, 1, 1], '!': [0, 1, 0] });
  await textAgrees(upper);
  // The same arrayJoin written twice is one column (ClickHouse's): not its elements crossed.
  const twice = await trends(`concat(${CSV}, '-', ${CSV})`);
  assert.equal(byValue(twice.results), { 'x-x': [2, 2, 0], 'y-y': [1, 1, 1], '-': [0, 1, 0] });
  await textAgrees(twice);
});

a('refused with a 400 where an event has one value: two arrays, maths and filters (funnels and retention: hogql-arrayjoin-funnels-retention)', async () => {
  const refused = async (query: Record<string, unknown>, attr: string, detail: RegExp) => {
    const r = await post(query);
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.is(r.body.attr, attr, JSON.stringify(r.body));
    assert.match(r.body.detail, detail);
  };
  const range = { dateRange: { date_from: '2024-06-01', date_to: '2024-06-03' } };
  const pageview = { kind: 'EventsNode', event: '$pageview' };
  await refused({ kind: 'TrendsQuery', ...range, series: [pageview], breakdownFilter: { breakdown_type: 'hogql', breakdown: `concat(${TAGS}, ${CSV})` } }, 'breakdownFilter.breakdown', /one array/);
  await refused({ kind: 'TrendsQuery', ...range, series: [pageview], breakdownFilter: { breakdowns: [{ type: 'hogql', property: TAGS }, { type: 'hogql', property: CSV }] } }, 'breakdownFilter.breakdowns.1.property', /arrayJoin/);
  await refused({ kind: 'TrendsQuery', ...range, series: [{ ...pageview, math: 'hogql', math_hogql: `count(${TAGS})` }] }, 'series.0.math_hogql', /arrayJoin/);
  await refused({ kind: 'TrendsQuery', ...range, series: [pageview], properties: [{ type: 'hogql', key: `${TAGS} = '"a"'` }] }, 'properties', /arrayJoin/);
});

a.run();
