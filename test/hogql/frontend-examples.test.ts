// The HogQL that PostHog's own app offers a user to start from, run unchanged through the real
// server: the notebook's and query examples' "SQL" table ({filters} with the last 24 hours,
// person properties, grouped and ordered by count(), asked with `explain: true`), the data
// visualization's daily counts (an INTERVAL written as text, `'7 days'`, and {filters} with
// the last 7 days), the data warehouse example grouping by its own alias, and the sparkline
// table of PostHog's data visualization tests. The events are placed relative to now, so the
// relative ranges keep the same ones whenever the test runs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const f = suite('hogql: the queries PostHog’s app starts a user with');
let t: TestServer;
let api: ApiCall;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
// alice (an email): two page views and a purchase in the last hours; bob (no email): a page
// view an hour ago; alice again three days ago, and ten days ago (outside both ranges).
const at = { h1: now - HOUR, h2: now - 2 * HOUR, h3: now - 3 * HOUR, d3: now - 3 * DAY, d10: now - 10 * DAY };
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const hogql = async (query: string, extra: Record<string, unknown> = {}) => {
  const r = await api('POST', `/api/projects/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query, ...extra }, refresh: 'force_blocking' });
  assert.is(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  return r.body;
};

f.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const ev = (event: string, distinct_id: string, ms: number, properties: Record<string, unknown> = {}) =>
    ({ uuid: randomUUID(), event, distinct_id, timestamp: new Date(ms).toISOString(), properties });
  const batch = [
    ev('$identify', 'alice', at.d10, { $browser: 'Chrome', $set: { email: 'alice@example.com' } }),
    ev('$pageview', 'alice', at.d3, { $browser: 'Chrome' }),
    ev('$pageview', 'alice', at.h3, { $browser: 'Chrome' }),
    ev('$pageview', 'alice', at.h2, { $browser: 'Firefox' }),
    ev('purchase', 'alice', at.h2 + 60_000, { $browser: 'Chrome' }),
    ev('$pageview', 'bob', at.h1, { $browser: 'Safari' }),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
  assert.equal((await hogql('select count() from events')).results, [[6]]);
});
f.after(async () => { await t?.close(); });

f('the "SQL" table: the last 24 hours by {filters}, people with an email, by count() descending', async () => {
  const body = await hogql(`   select event,
          person.properties.email,
          properties.$browser,
          count()
     from events
    where {filters} -- replaced with global date and property filters
      and person.properties.email is not null
 group by event,
          properties.$browser,
          person.properties.email
 order by count() desc
    limit 100`, { explain: true, filters: { dateRange: { date_from: '-24h' } } });
  assert.equal(body.columns, ['event', 'email', '$browser', 'count()']);
  const rows = (body.results as unknown[][]).sort((a, b) => (b[3] as number) - (a[3] as number) || String(a[0] + String(a[2])).localeCompare(String(b[0]) + String(b[2])));
  // alice's page views in Chrome and Firefox, her purchase; bob has no email; the page view three days ago is outside.
  assert.equal(rows, [
    ['$pageview', 'alice@example.com', 'Chrome', 1],
    ['$pageview', 'alice@example.com', 'Firefox', 1],
    ['purchase', 'alice@example.com', 'Chrome', 1],
  ]);
});

f('the data visualization’s daily counts: an INTERVAL written as text, and {filters} for the last 7 days', async () => {
  const perDay = (ms: number[]) => {
    const counts = new Map<string, number>();
    for (const m of ms) counts.set(day(m), (counts.get(day(m)) ?? 0) + 1);
    return [...counts].sort(([a], [b]) => a.localeCompare(b));
  };
  const recent = perDay([at.d3, at.h3, at.h2, at.h2 + 60_000, at.h1]);
  const text = await hogql(`select toDate(timestamp) as timestamp, count()
from events
where timestamp >= now() - interval '7 days'
group by timestamp
order by timestamp asc
limit 100`);
  assert.equal(text.results, recent);
  const filtered = await hogql(`select toDate(timestamp) as timestamp, count()
from events
where {filters} and timestamp <= now()
group by timestamp
order by timestamp asc
limit 100`, { explain: true, filters: { dateRange: { date_from: '-7d' } } });
  assert.equal(filtered.results, recent);
});

f('the data warehouse example: grouped by its own alias, every day of the history', async () => {
  const body = await hogql(`select toDate(timestamp) as timestamp, count()
from events
group by timestamp
limit 100`, { explain: true });
  const all = new Map<string, number>();
  for (const m of [at.d10, at.d3, at.h3, at.h2, at.h2 + 60_000, at.h1]) all.set(day(m), (all.get(day(m)) ?? 0) + 1);
  assert.equal((body.results as [string, number][]).sort(([a], [b]) => a.localeCompare(b)), [...all].sort(([a], [b]) => a.localeCompare(b)));
});

f('the sparkline table: a HogQLX tuple per row over numbers()', async () => {
  const body = await hogql("SELECT number AS n, tuple('__hx_tag', 'Sparkline', 'data', arrayMap(x -> (number + x) % 10, range(14))) AS trend FROM numbers(500)");
  assert.is(body.results.length, 100);
  assert.equal(body.columns, ['n', 'trend']);
  assert.equal(body.results[3], [3, ['__hx_tag', 'Sparkline', 'data', [3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6]]]);
  assert.is(body.hasMore, true);
});

f.run();
