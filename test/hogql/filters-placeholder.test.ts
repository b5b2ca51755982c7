// A HogQLQuery's `filters` (PostHog's HogQLFilters) through the real server: `{filters}`
// expands, in the SELECT that reads the events (or sessions, or groups) table, to the date
// range on its time, the property filters (event, person, cohort, value-set, HogQL and session
// ones) and, with filterTestAccounts, the project's test account filters; `{filters.dateRange.from}`
// and `{filters.dateRange.to}` are the bounds. Without a placeholder, `filters` does nothing
// (PostHog replaces only placeholders). Every count below is worked out from the six events.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const f = suite('hogql: {filters}');
let t: TestServer;
let api: ApiCall;

const hogql = async (query: string, filters: unknown, refresh = 'force_blocking') =>
  api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query, ...(filters === undefined ? {} : { filters }) }, refresh });
const rows = async (query: string, filters?: unknown) => {
  const r = await hogql(query, filters);
  assert.is(r.status, 200, `${query} ${JSON.stringify(filters)}: ${JSON.stringify(r.body)}`);
  return r.body.results as unknown[][];
};
const count = async (query: string, filters?: unknown) => (await rows(query, filters))[0][0];
const refused = async (query: string, detail: RegExp, filters?: unknown) => {
  const r = await hogql(query, filters);
  assert.is(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
  assert.match(r.body.detail, detail);
  return r.body;
};
const COUNT = 'select count() from events where {filters}';
const event = (key: string, value: unknown, operator = 'exact') => ({ key, value, operator, type: 'event' });
const person = (key: string, value: unknown, operator = 'exact') => ({ key, value, operator, type: 'person' });

f.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const ev = (name: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) =>
    ({ uuid: randomUUID(), event: name, distinct_id, timestamp, properties });
  // Persons: user-1 (anon-1 merged in; one@example.com, plan pro) and user-2 (qa@internal.test).
  const batch = [
    ev('$pageview', 'anon-1', '2024-06-01T09:00:00Z', { $browser: 'Chrome', $host: 'localhost:8000', price: 5, $session_id: 's1' }),
    ev('$identify', 'user-1', '2024-06-01T09:30:00Z', { $anon_distinct_id: 'anon-1', $set: { email: 'one@example.com', plan: 'pro' }, $session_id: 's1' }),
    ev('$pageview', 'user-1', '2024-06-02T10:00:00Z', { $browser: 'Chrome', $host: 'app.example', $app_version: '1.10.0' }),
    ev('$pageview', 'user-2', '2024-06-02T23:30:00Z', { $browser: 'Safari', $host: 'app.example', $app_version: '1.2.0', $session_id: 's2', $set: { email: 'qa@internal.test' } }),
    ev('purchase', 'user-2', '2024-06-03T12:00:00Z', { price: 30, $browser: 'Safari', $session_id: 's2' }),
    ev('purchase', 'user-1', '2024-06-03T13:00:00Z', { price: '7.5' }),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
  assert.is(await count('select count() from events'), 6);
});
f.after(async () => { await t?.close(); });

f('the date range: from inclusive, to exclusive, in the project’s zone; `all` and absent bounds are open', async () => {
  assert.is(await count(COUNT), 6, 'no filters: true');
  assert.is(await count(COUNT, {}), 6, 'empty filters: true');
  assert.is(await count(COUNT, { dateRange: { date_from: '2024-06-02', date_to: '2024-06-03' } }), 2);
  // No date_to: no upper bound (PostHog adds none), not "now".
  assert.is(await count(COUNT, { dateRange: { date_from: '2024-06-03' } }), 2);
  assert.is(await count(COUNT, { dateRange: { date_to: '2024-06-01T09:30:00Z' } }), 1);
  assert.is(await count(COUNT, { dateRange: { date_from: 'all' } }), 6);
  // Relative dates count back from now (these events are long past).
  assert.is(await count(COUNT, { dateRange: { date_from: '-7d' } }), 0);
  assert.is(await count(COUNT, { dateRange: { date_from: '-100y' } }), 6);
  await refused(COUNT, /Invalid date "yesterday-ish"/, { dateRange: { date_from: 'yesterday-ish' } });
  // The bounds apply to the table's own time wherever the events are aliased.
  assert.is(await count('select count() from events as e where {filters} and e.event = \'$pageview\'', { dateRange: { date_from: '2024-06-02' } }), 2);
});

f('dates without an offset read in the project’s time zone, those with one as given', async () => {
  const patch = (timezone: string) => api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone });
  assert.is((await patch('America/New_York')).status, 200);
  try {
    // 06:00 in New York is 10:00 UTC: the two events of the 1st (09:00, 09:30 UTC) are before it.
    assert.is(await count(COUNT, { dateRange: { date_from: '2024-06-01T06:00:00' } }), 4);
    // The 2nd in New York ends at 04:00 UTC on the 3rd.
    assert.is(await count(COUNT, { dateRange: { date_from: '2024-06-02', date_to: '2024-06-03' } }), 2);
    assert.is(await count(COUNT, { dateRange: { date_from: '2024-06-02T23:00:00Z' } }), 3);
  } finally {
    await patch('UTC');
  }
  assert.is(await count(COUNT, { dateRange: { date_from: '2024-06-01T06:00:00' } }), 6);
});

f('property filters: event, person, cohort, value sets and HogQL, over the SELECT’s events', async () => {
  assert.is(await count(COUNT, { properties: [event('$browser', 'Chrome')] }), 2);
  assert.is(await count(COUNT, { properties: [event('$browser', 'Chrome', 'is_not')] }), 4);
  // Several filters AND, with the date range.
  assert.is(await count(COUNT, { properties: [event('$browser', 'Safari'), event('price', 10, 'gt')], dateRange: { date_from: '2024-06-03' } }), 1);
  // A person's properties as they are now; anon-1's event is user-1's.
  assert.equal(await rows('select distinct_id from events where {filters} order by timestamp', { properties: [person('email', 'one@example.com')] }), [['anon-1'], ['user-1'], ['user-1'], ['user-1']]);
  // Semantic versions: the runner resolves the value set first.
  assert.equal(await rows('select properties.$app_version from events where {filters}', { properties: [event('$app_version', '1.2.0', 'semver_gt')] }), [['1.10.0']]);
  // Property filters of type "hogql".
  assert.is(await count(COUNT, { properties: [{ type: 'hogql', key: 'toFloat(properties.price) > 6' }] }), 2);
  assert.is(await count(COUNT, { properties: [{ type: 'hogql', key: "person.properties.plan = 'pro'" }] }), 4);
  // A cohort.
  const made = await api('POST', `/api/projects/${t.projectId}/cohorts/`, t.personalKey, { name: 'Pro', filters: { properties: { type: 'AND', values: [person('plan', 'pro')] } } });
  assert.is(made.status, 201, JSON.stringify(made.body));
  assert.is(await count(COUNT, { properties: [{ type: 'cohort', key: 'id', value: made.body.id }] }), 4);
  assert.is(await count(COUNT, { properties: [{ type: 'cohort', key: 'id', value: made.body.id, operator: 'not_in' }] }), 2);
  await refused(COUNT, /Cohort 987654 does not exist/, { properties: [{ type: 'cohort', key: 'id', value: 987654 }] });
  // In a join of events with persons, on the events; in a subquery, there.
  assert.is(await count('select count() from events e join persons p on p.id = e.person_id where {filters}', { properties: [person('email', 'qa@internal.test')] }), 2);
  assert.is(await count('select count() from (select event from events where {filters}) where event = \'purchase\'', { properties: [event('$browser', 'Safari')] }), 1);
  assert.is(await count('with chrome as (select distinct_id from events where {filters}) select count(distinct distinct_id) from chrome', { properties: [event('$browser', 'Chrome')] }), 2);
  // A bad filter is a 400 naming it.
  const bad = await refused(COUNT, /Unknown property operator "nearly"/, { properties: [event('$browser', 'x', 'nearly')] });
  assert.is(bad.attr, 'filters.properties.0');
});

f('filterTestAccounts: the project’s test account filters, with the query’s own', async () => {
  const internal = [person('email', 'internal.test', 'not_icontains'), event('$host', '^localhost', 'not_regex')];
  const filters = { filterTestAccounts: true };
  assert.is(await count(COUNT, filters), 6, 'the project has none yet');
  assert.is((await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { test_account_filters: internal })).status, 200);
  try {
    // Out: user-2's two events (an internal email), anon-1's page view on localhost.
    const first = await hogql(COUNT, filters, 'blocking');
    assert.equal(first.body.results, [[3]], JSON.stringify(first.body));
    assert.is(await count(COUNT, { ...filters, properties: [event('$browser', 'Chrome')] }), 1);
    assert.is(await count(COUNT, { ...filters, dateRange: { date_from: '2024-06-03' } }), 1);
    assert.is(await count(COUNT, { filterTestAccounts: false }), 6);
    assert.is(await count('select count() from events', filters), 6, 'no placeholder: nothing applies');
    // The answer depends on the project's filters: an edit is not answered from the cache.
    assert.is((await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { test_account_filters: [internal[0]] })).status, 200);
    const edited = await hogql(COUNT, filters, 'blocking');
    assert.equal(edited.body.results, [[4]], JSON.stringify(edited.body));
    assert.is.not(edited.body.cache_key, first.body.cache_key);
  } finally {
    await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { test_account_filters: [] });
  }
});

f('without {filters} in the text, filters do nothing', async () => {
  assert.is(await count('select count() from events', { properties: [event('$browser', 'Chrome')], dateRange: { date_from: '2024-06-03' } }), 6);
});

f('{filters.dateRange.from} and {filters.dateRange.to}: the bounds, or a comparison that holds', async () => {
  const q = 'select count() from events where timestamp >= {filters.dateRange.from} and timestamp < {filters.dateRange.to}';
  assert.is(await count(q, { dateRange: { date_from: '2024-06-02', date_to: '2024-06-03' } }), 2);
  assert.is(await count(q, { dateRange: { date_from: '2024-06-03' } }), 2, 'no date_to: that comparison holds');
  assert.is(await count(q), 6);
  assert.equal(await rows('select toDate({filters.dateRange.from})', { dateRange: { date_from: '2024-06-02' } }), [['2024-06-02']]);
  await refused('select toDate({filters.dateRange.from})', /The `\{filters\.dateRange\.from\}` placeholder must be used directly in a comparison/);
  await refused('select count() from events where {filters.properties}', /Unsupported filters placeholder `\{filters\.properties\}`\. Supported filters placeholders are: `\{filters\}`, `\{filters\.dateRange\.from\}`, `\{filters\.dateRange\.to\}`\./);
});

f('{filters} needs a SELECT reading events, sessions or groups; sessions take the range on $start_timestamp', async () => {
  const message = /Cannot use 'filters' placeholder in a SELECT clause that does not select from the events, sessions or groups table\./;
  await refused('select count() from persons where {filters}', message);
  await refused('select count() from persons where {filters}', message, { dateRange: { date_from: '2024-06-02' } });
  await refused('select count() from (select event from events) where {filters}', message);
  // Sessions s1 (from 09:00 on the 1st) and s2 (from 23:30 on the 2nd).
  assert.equal(await rows('select session_id from sessions where {filters}', { dateRange: { date_from: '2024-06-02' } }), [['s2']]);
  assert.equal(await rows('select count() from sessions where {filters}', { dateRange: { date_to: '2024-06-02' } }), [[1]]);
  await refused('select count() from sessions where {filters}', /Can only use session properties in a filter when selecting from only the sessions table\./, { properties: [event('$browser', 'Chrome')] });
  // Joined to sessions, the events' time and properties.
  assert.is(await count("select count() from events e join sessions s on s.session_id = e.$session_id where {filters}", { dateRange: { date_from: '2024-06-02' }, properties: [event('$browser', 'Safari')] }), 2);
  // Session property filters: on the sessions table, else on the events' sessions (s2 lasts 12.5 hours, s1 half an hour).
  const long = { type: 'session', key: '$session_duration', operator: 'gt', value: 3600 };
  assert.equal(await rows('select session_id from sessions where {filters}', { properties: [long] }), [['s2']]);
  assert.equal(await rows('select session_id from sessions where {filters}', { properties: [{ ...long, operator: 'lt' }], dateRange: { date_from: '2024-06-01' } }), [['s1']]);
  assert.is(await count(COUNT, { properties: [long] }), 2);
  assert.is(await count(COUNT, { properties: [long, event('$browser', 'Safari')] }), 2);
  assert.is(await count(COUNT, { properties: [{ type: 'session', key: '$session_duration', operator: 'is_not_set' }] }), 2, 'the two events without a session');
  assert.is(await count("select count() from events e join sessions s on s.session_id = e.$session_id where {filters}", { properties: [long, event('$browser', 'Safari')] }), 2);
  await refused(COUNT, /Unknown session property "\$nonsense" in \{filters\}/, { properties: [{ type: 'session', key: '$nonsense', operator: 'is_set' }] });
  const semver = await refused(COUNT, /Session property filters cannot use the operator "semver_gt"/, { properties: [event('$browser', 'Safari'), { type: 'session', key: '$entry_current_url', operator: 'semver_gt', value: '1.0.0' }] });
  assert.is(semver.attr, 'filters.properties.1');
  // Groups: the range on created_at (there are none here).
  assert.equal(await rows('select count() from groups where {filters}', { dateRange: { date_from: '2024-06-02' } }), [[0]]);
  await refused('select count() from groups where {filters}', /Property filters in \{filters\} are not supported over the groups table/, { properties: [event('$browser', 'Chrome')] });
});

f.run();
