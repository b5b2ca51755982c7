// A sweep of PostHog's own HogQL examples, run unchanged through the real server: the queries
// of /work/shared/reference/hogql.md (the response example of §1, the join, CTE and window of
// §7, the frontend's default EventsQuery columns of §8), the twenty documented queries the
// parser suite only parses (test/hogql/parser.test.ts, DOCS), the patterns of PostHog's own
// HogQL skill (posthog/skills tools-and-features-hogql: {filters}, breakdowns, person
// properties, bracketed keys, a cohort and an action by name, dateTrunc, uniq) and the first
// example of the "Useful SQL functions" page, and two of PostHog's HogQL extensions reference
// (products/posthog_ai/skills/query-examples/references/hogql-extensions.md). Each answer's shape is asserted and, the data
// being small, its values, worked out by hand below. (More of the docs: docs-examples-2.)
//
// The events, on two days within the last week (UTC; day A is two days ago, B yesterday):
//   alice $pageview  A 08:00  /pricing  Chrome  screen height 1000   ($set email alice@posthog.com, plan pro)
//   alice $pageview  A 09:00  /pricing  Chrome  screen height 800
//   alice signup     A 10:00  plan pro
//   alice purchase   A 11:00  price 120
//   alice purchase   A 12:00  price 20
//   bob   $pageview  B 08:00  /         Safari  screen height 600  $feature/cool-flag true  ($set email bob@example.com)
//   bob   $pageleave B 08:10  $duration 30
//   bob   purchase   B 08:20  price 5
//   bob   $autocapture B 08:30  browser GoogleBot
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const d = suite('hogql: PostHog’s documented examples, a sweep');
let t: TestServer;
let api: ApiCall;

const URL = 'https://ex.com';
const DAY_MS = 86_400_000;
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const A = today - 2 * DAY_MS;
const B = today - DAY_MS;
const at = (day: number, hour: number, minute = 0) => new Date(day + hour * 3_600_000 + minute * 60_000).toISOString().replace('.000Z', 'Z');
const dayOf = (day: number) => new Date(day).toISOString().replace('.000Z', 'Z');

const query = async (q: Record<string, unknown>) => {
  const r = await api('POST', `/api/projects/${t.projectId}/query/`, t.personalKey, { query: q, refresh: 'force_blocking' });
  assert.is(r.status, 200, `${JSON.stringify(q)}: ${JSON.stringify(r.body)}`);
  return r.body;
};
const hogql = async (text: string) => query({ kind: 'HogQLQuery', query: text });
const rows = async (text: string) => (await hogql(text)).results as unknown[][];
const sorted = (xs: unknown[][]) => [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

d.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) =>
    ({ uuid: randomUUID(), event, distinct_id, timestamp, properties });
  const batch = [
    ev('$pageview', 'alice', at(A, 8), { $current_url: `${URL}/pricing`, $browser: 'Chrome', $screen_height: 1000, $lib: 'web', $set: { email: 'alice@posthog.com', plan: 'pro' } }),
    ev('$pageview', 'alice', at(A, 9), { $current_url: `${URL}/pricing`, $browser: 'Chrome', $screen_height: 800, $lib: 'web' }),
    ev('signup', 'alice', at(A, 10), { plan: 'pro' }),
    ev('purchase', 'alice', at(A, 11), { price: 120 }),
    ev('purchase', 'alice', at(A, 12), { price: 20 }),
    ev('$pageview', 'bob', at(B, 8), { $current_url: `${URL}/`, $browser: 'Safari', $screen_height: 600, '$feature/cool-flag': true, $set: { email: 'bob@example.com' } }),
    ev('$pageleave', 'bob', at(B, 8, 10), { $duration: 30 }),
    ev('purchase', 'bob', at(B, 8, 20), { price: 5 }),
    ev('$autocapture', 'bob', at(B, 8, 30), { $browser: 'GoogleBot' }),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
  assert.equal(await rows('select count() from events'), [[9]]);
});
d.after(async () => { await t?.close(); });

d('reference §1 and §7: the response example, a join with persons, a CTE, a window', async () => {
  const listed = await hogql('SELECT event, timestamp, pdi.distinct_id, pdi.person_id FROM events LIMIT 10');
  assert.equal(listed.columns, ['event', 'timestamp', 'distinct_id', 'person_id']);
  assert.is(listed.results.length, 9);
  assert.equal(sorted(listed.results.map((r: unknown[]) => [r[0], r[2]])), sorted([
    ['$pageview', 'alice'], ['$pageview', 'alice'], ['signup', 'alice'], ['purchase', 'alice'], ['purchase', 'alice'],
    ['$pageview', 'bob'], ['$pageleave', 'bob'], ['purchase', 'bob'], ['$autocapture', 'bob'],
  ]));
  const joined = await hogql('SELECT e.event, p.properties.email AS email FROM events AS e LEFT JOIN persons AS p ON e.person_id = p.id WHERE e.timestamp > now() - INTERVAL 7 DAY LIMIT 10');
  assert.equal(joined.columns, ['event', 'email']);
  assert.equal(sorted(joined.results).map((r: unknown[]) => r[1]).filter((x: unknown) => x === 'alice@posthog.com').length, 5);
  assert.equal(joined.results.filter((r: unknown[]) => r[1] === 'bob@example.com').length, 4);
  assert.equal(await rows("WITH recent AS (SELECT distinct_id FROM events WHERE event = '$pageview') SELECT count() FROM recent"), [[3]]);
  const ranked = await rows('SELECT event, row_number() OVER (PARTITION BY distinct_id ORDER BY timestamp DESC) AS rn FROM events');
  assert.equal(sorted(ranked), sorted([['purchase', 1], ['purchase', 2], ['signup', 3], ['$pageview', 4], ['$pageview', 5], ['$autocapture', 1], ['purchase', 2], ['$pageleave', 3], ['$pageview', 4]]));
});

d('reference §8: the frontend’s default EventsQuery columns', async () => {
  const select = ['*', 'event', 'person_display_name -- Person', 'coalesce(properties.$current_url, properties.$screen_name) -- Url / Screen', 'properties.$lib', 'timestamp'];
  const body = await query({ kind: 'EventsQuery', select, orderBy: ['timestamp DESC'], after: '-7d' });
  assert.equal(body.columns, select);
  const results = body.results as unknown[][];
  assert.is(results.length, 9);
  // Newest first: bob's autocapture; alice's first pageview last, with its URL and library.
  assert.is((results[0][0] as { event: string }).event, '$autocapture');
  assert.is((results[0][2] as { display_name: string }).display_name, 'bob@example.com');
  assert.equal(results[8].slice(1, 5), ['$pageview', results[8][2], `${URL}/pricing`, 'web']);
  assert.is(results[8][5], at(A, 8));
  assert.is((results[8][2] as { display_name: string }).display_name, 'alice@posthog.com');
});

d('the parser suite’s twenty documented queries, run', async () => {
  assert.equal(sorted(await rows('SELECT event, count() FROM events GROUP BY event ORDER BY count() DESC')), sorted([['$pageview', 3], ['purchase', 3], ['signup', 1], ['$pageleave', 1], ['$autocapture', 1]]));
  assert.equal(await rows("SELECT properties.$current_url AS url, count() AS views FROM events WHERE event = '$pageview' AND timestamp > now() - INTERVAL 30 DAY GROUP BY url ORDER BY views DESC LIMIT 20"), [[`${URL}/pricing`, 2], [`${URL}/`, 1]]);
  assert.equal(await rows("SELECT toStartOfDay(timestamp) AS day, uniq(distinct_id) AS users FROM events WHERE event = '$pageview' GROUP BY day ORDER BY day"), [[dayOf(A), 1], [dayOf(B), 1]]);
  assert.equal(await rows("SELECT person.properties.email, count() FROM events WHERE event = 'purchase' GROUP BY person.properties.email HAVING count() > 1"), [['alice@posthog.com', 2]]);
  const latest = await rows('SELECT event, timestamp FROM events WHERE {filters} ORDER BY timestamp DESC LIMIT 100');
  assert.equal(latest[0], ['$autocapture', at(B, 8, 30)]);
  assert.is(latest.length, 9);
  // argMax of a property: ClickHouse's aggregates skip a NULL argument, so alice's plan is her signup's.
  assert.equal(sorted(await rows('SELECT distinct_id, argMax(properties.plan, timestamp) AS plan FROM events GROUP BY distinct_id')), [['alice', 'pro'], ['bob', null]]);
  assert.equal(await rows("SELECT quantile(0.95)(toFloat(properties.$duration)) FROM events WHERE event = '$pageleave'"), [[30]]);
  assert.equal(await rows("SELECT countIf(event = 'signup') / countIf(event = '$pageview') AS conversion FROM events WHERE timestamp >= '2024-01-01'"), [[1 / 3]]);
  assert.equal(sorted(await rows("SELECT multiIf(toFloat(properties.price) > 100, 'high', toFloat(properties.price) > 10, 'mid', 'low') AS band, count() FROM events GROUP BY band")), [['high', 1], ['low', 7], ['mid', 1]]);
  assert.equal(await rows("SELECT event FROM events WHERE event IN ('$pageview', '$autocapture') AND properties.$browser NOT ILIKE '%bot%'"), [['$pageview'], ['$pageview'], ['$pageview']]);
  assert.equal(await rows("SELECT arrayMap(x -> x * 2, [1, 2, 3]), arrayFilter(x -> x > 1, [1, 2, 3]), (1, 'a').2"), [[[2, 4, 6], [2, 3], 'a']]);
  assert.equal(await rows("SELECT count() FROM events WHERE person_id IN (SELECT id FROM persons WHERE properties.email LIKE '%@posthog.com')"), [[5]]);
  assert.equal(await rows('SELECT dateDiff(\'day\', min(timestamp), max(timestamp)) AS days FROM events GROUP BY distinct_id'), [[0], [0]]);
  assert.equal(await rows("select event, count() as c from events where timestamp > now() - interval 7 day and properties.$browser = 'Chrome' group by event having c > 1 order by c desc limit 100"), [['$pageview', 2]]);
  assert.equal(sorted(await rows("SELECT e.event FROM events e INNER JOIN (SELECT distinct_id FROM events WHERE event = 'signup') s ON s.distinct_id = e.distinct_id")), [['$pageview'], ['$pageview'], ['purchase'], ['purchase'], ['signup']]);
  assert.equal(sorted(await rows('SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3')), [[1], [2], [3]]);
  assert.equal(sorted(await rows("SELECT CASE WHEN properties.plan = 'pro' THEN 'paid' WHEN properties.plan IS NULL THEN 'unknown' ELSE 'free' END AS tier, count() FROM events GROUP BY tier")), [['paid', 1], ['unknown', 8]]);
  const old = await hogql("SELECT event, timestamp FROM events WHERE timestamp BETWEEN '2024-01-01' AND '2024-02-01' AND NOT event LIKE '$%' ORDER BY timestamp ASC, event DESC LIMIT 50 OFFSET 100");
  assert.equal([old.columns, old.results], [['event', 'timestamp'], []]);
});

d('PostHog’s HogQL skill: {filters}, a breakdown, person properties, a bracketed key, a cohort and an action by name', async () => {
  assert.equal(sorted(await rows('SELECT event, count()\nFROM events\nWHERE {filters}\nGROUP BY event\nORDER BY count() DESC')), sorted([['$pageview', 3], ['purchase', 3], ['signup', 1], ['$pageleave', 1], ['$autocapture', 1]]));
  assert.equal(sorted(await rows("SELECT properties.$browser AS browser, count()\nFROM events\nWHERE event = '$pageview' AND {filters}\nGROUP BY browser")), [['Chrome', 2], ['Safari', 1]]);
  assert.equal(sorted(await rows('SELECT person.properties.email, count()\nFROM events\nWHERE {filters}\nGROUP BY person.properties.email')), [['alice@posthog.com', 5], ['bob@example.com', 4]]);
  assert.equal(await rows("SELECT count() FROM events WHERE properties['$feature/cool-flag'] = 'true'"), [[1]]);
  const cohort = await api('POST', `/api/projects/${t.projectId}/cohorts/`, t.personalKey, { name: 'Pro', filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }] } } });
  assert.is(cohort.status, 201, JSON.stringify(cohort.body));
  assert.equal(await rows("SELECT count() FROM events WHERE person_id IN COHORT 'Pro'"), [[5]]);
  const action = await api('POST', `/api/projects/${t.projectId}/actions/`, t.personalKey, { name: 'Purchases', steps: [{ event: 'purchase' }] });
  assert.is(action.status, 201, JSON.stringify(action.body));
  assert.equal(await rows("SELECT count() FROM events WHERE matchesAction('Purchases')"), [[3]]);
  assert.equal(await rows("SELECT dateTrunc('day', timestamp) AS day, count() FROM events WHERE timestamp >= now() - INTERVAL 7 DAY GROUP BY day ORDER BY day"), [[dayOf(A), 5], [dayOf(B), 4]]);
  assert.equal(await rows('SELECT uniq(distinct_id) FROM events WHERE timestamp >= now() - INTERVAL 7 DAY'), [[2]]);
});

d('PostHog’s HogQL extensions reference: sortableSemVer, and countEqual in the sparkline example’s counts', async () => {
  assert.equal(await rows("SELECT sortableSemVer('1.20.3'), sortablesemver('v2.0-beta'), sortableSemVer('none')"), [[[1, 20, 3], [2, 0], [0]]]);
  // Versions as numbers, not text: 1.10.0 after 1.9.1 (as text it would sort first).
  assert.equal(await rows("SELECT v FROM (SELECT arrayJoin(['1.9.1', '1.10.0', '1.2.3']) AS v) ORDER BY sortableSemVer(v) DESC"), [['1.10.0'], ['1.9.1'], ['1.2.3']]);
  // The sparkline example's per-hour counts (sparkline itself draws them): alice's pageviews at 8 and 9, bob's at 8.
  assert.equal(await rows("SELECT arrayMap(h -> countEqual(groupArray(hour), h), range(7, 11)) FROM (SELECT toHour(timestamp) AS hour FROM events WHERE event = '$pageview')"), [[[0, 2, 1, 0]]]);
});

d('Useful SQL functions: the aggregate functions’ example', async () => {
  const text = "SELECT\n   avg(properties.$screen_height),\n   sum(properties.$screen_height),\n   max(properties.$screen_height),\n   min(properties.$screen_height)\nFROM events\nWHERE event = '$pageview' AND properties.$screen_height IS NOT NULL";
  const [[avg, sum, max, min]] = await rows(text);
  assert.equal([avg, sum], [800, 2400]);
  // PostHog's ingestion defines a property sent as a number as Numeric and its PropertySwapper
  // reads it through toFloat, so max and min compare numbers (as text they would be '800' and
  // '1000'); hedgerow records the definition (src/definitions/) and reads it so too. Written
  // with toFloat, the example gives the same numbers.
  assert.equal([max, min], [1000, 600]);
  assert.equal(await rows(text.replace(/(max|min)\(properties\.\$screen_height\)/g, '$1(toFloat(properties.$screen_height))')), [[800, 2400, 1000, 600]]);
});

d.run();
