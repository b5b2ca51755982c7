// Property and event definitions through the real server (issue 28): events captured over
// HTTP, recorded by the event store's pass with the types PostHog's ingestion gives them,
// listed and changed through PostHog's API, and read by HogQL as those types say.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, request, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

const s = suite('definitions API');
let t: TestServer;
let api: ApiCall;

const props = (query = '', project = t.projectId, path = 'projects') => api('GET', `/api/${path}/${project}/property_definitions/${query}`, t.personalKey);
const events = (query = '') => api('GET', `/api/projects/${t.projectId}/event_definitions/${query}`, t.personalKey);
const hogql = async (query: string) => {
  const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query } });
  assert.is(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  return r.body.results as unknown[][];
};
const named = (results: { name: string }[]) => results.map((r) => r.name);
const ev = (event: string, properties: Record<string, unknown>, distinct_id = 'user-1') => ({ uuid: randomUUID(), event, distinct_id, timestamp: '2024-06-01T10:00:00Z', properties });

async function capture(projectKey: string, batch: unknown[]): Promise<void> {
  assert.is((await postJson(`${t.url}/batch/`, { api_key: projectKey, batch })).status, 200);
  await t.applied();
}

s.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS });
  api = apiClient(t);
  await capture(t.projectKey, [
    ev('purchase', { price: 9, plan: 'pro', is_trial: 'true', signup_date: '2024-05-01', utm_source: 42, later: null, $set: { age: 30, email: 'a@example.com' }, $set_once: { first_seen: '2024-01-01T00:00:00Z' } }),
    ev('purchase', { price: 10, plan: 'basic', is_trial: 'false', signup_date: '2024-05-03', later: 5 }),
    // A later value of another kind leaves the type as it was first given.
    ev('purchase', { price: 'eleven', plan: 7, is_trial: 'maybe' }, 'user-2'),
    ev('$groupidentify', { $group_type: 'company', $group_key: 'acme', $group_set: { employees: 50, name: 'Acme' } }),
    ev('$pageview', { $browser: 'Chrome', $screen_width: 1280, distinct_id: 'x', $groups: { company: 'acme' } }),
  ]);
});
s.after(async () => { await t?.close(); });

s('event properties are recorded with the type of their first value, PostHog\'s fields, ordered by name', async () => {
  const r = await props();
  assert.is(r.status, 200, JSON.stringify(r.body));
  const byName = Object.fromEntries(r.body.results.map((d: { name: string }) => [d.name, d]));
  assert.equal(Object.keys(byName[`price`]).sort(), ['id', 'is_numerical', 'is_seen_on_filtered_events', 'name', 'property_type', 'tags']);
  const typeOf = (n: string) => [byName[n]?.property_type, byName[n]?.is_numerical];
  assert.equal(typeOf('price'), ['Numeric', true]);
  assert.equal(typeOf('plan'), ['String', false]);
  assert.equal(typeOf('is_trial'), ['Boolean', false]);
  assert.equal(typeOf('signup_date'), ['DateTime', false]);
  assert.equal(typeOf('utm_source'), ['String', false]);
  // First seen null (no type), typed by the first value that has one.
  assert.equal(typeOf('later'), ['Numeric', true]);
  assert.equal(typeOf('$screen_width'), ['Numeric', true]);
  assert.match(byName.price.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal([byName.price.tags, byName.price.is_seen_on_filtered_events], [[], null]);
  // Ingestion's own keys are never listed ($set, $groups, distinct_id, $group_type…).
  for (const hidden of ['$set', '$set_once', 'distinct_id', '$group_type', '$group_set']) assert.not.ok(byName[hidden], hidden);
  const names = named(r.body.results);
  assert.equal(names, [...names].sort());
  assert.is(r.body.count, names.length);
  // The environments path is the same resource.
  assert.equal((await props('', t.projectId, 'environments')).body, r.body);
});

s('person properties come from $set and $set_once (with those lifted from the event), group properties from $groupidentify', async () => {
  const person = await props('?type=person&properties=age,email,first_seen');
  assert.equal(person.body.results.map((d: { name: string; property_type: string }) => [d.name, d.property_type]),
    [['age', 'Numeric'], ['email', 'String'], ['first_seen', 'DateTime']]);
  // $browser of the $pageview is lifted onto the person as $browser and $initial_browser.
  assert.ok(named((await props('?type=person&search=browser')).body.results).includes('$initial_browser'));
  const group = await props('?type=group&group_type_index=0');
  assert.equal(group.body.results.map((d: { name: string; property_type: string }) => [d.name, d.property_type]), [['employees', 'Numeric'], ['name', 'String']]);
  assert.equal((await props('?type=group&group_type_index=1')).body.results, []);
  // $groupidentify defines no event properties of its own.
  assert.not.ok(named((await props()).body.results).includes('$group_key'));
});

s('search, is_numerical, properties, excluded_properties and is_feature_flag filter; limit and offset page with next and previous', async () => {
  assert.equal(named((await props('?search=PRI')).body.results), ['price']);
  assert.equal(named((await props('?search=s%20tri')).body.results), ['is_trial']);
  assert.equal(named((await props('?is_numerical=true')).body.results), ['$screen_width', 'later', 'price']);
  assert.equal(named((await props(`?excluded_properties=${encodeURIComponent('["price","plan"]')}&properties=price,plan,later`)).body.results), ['later']);
  assert.equal((await props('?is_feature_flag=true')).body.results, []);
  const all = named((await props()).body.results);
  const first = await props('?limit=2');
  assert.equal([first.body.count, named(first.body.results), first.body.previous], [all.length, all.slice(0, 2), null]);
  const next = await request(first.body.next, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  assert.equal(named(next.body.results), all.slice(2, 4));
  assert.match(next.body.previous, /limit=2/);
});

s('event_names: is_seen_on_filtered_events says which properties those events carried, first; filter_by_event_names keeps only those', async () => {
  const q = `?event_names=${encodeURIComponent('["$pageview"]')}`;
  const r = await props(q);
  const seen = r.body.results.filter((d: { is_seen_on_filtered_events: boolean }) => d.is_seen_on_filtered_events);
  // $ip: capture adds it to every event.
  assert.equal(named(seen), ['$browser', '$ip', '$screen_width']);
  assert.equal(named(r.body.results).slice(0, 3), ['$browser', '$ip', '$screen_width']);
  assert.is(r.body.results.find((d: { name: string }) => d.name === 'price').is_seen_on_filtered_events, false);
  assert.equal(named((await props(`${q}&filter_by_event_names=true`)).body.results), ['$browser', '$ip', '$screen_width']);
  assert.equal(named((await props(`?event_names=${encodeURIComponent('["purchase","$pageview"]')}&filter_by_event_names=true&search=e`)).body.results),
    ['$browser', '$screen_width', 'later', 'price', 'signup_date', 'utm_source']);
});

s('event definitions: each event name with when it was first and last seen, searched, paged, read and deleted by id', async () => {
  const r = await events();
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(named(r.body.results), ['$groupidentify', '$pageview', 'purchase']);
  const purchase = r.body.results[2];
  assert.ok(Date.parse(purchase.created_at) > 0 && purchase.last_seen_at >= purchase.created_at);
  assert.equal([purchase.tags, purchase.is_action, purchase.created_by], [[], false, null]);
  assert.equal(named((await events('?search=PUR')).body.results), ['purchase']);
  assert.equal(named((await events('?event_type=event_posthog')).body.results), ['$groupidentify', '$pageview']);
  assert.equal(named((await events('?event_type=event_custom')).body.results), ['purchase']);
  assert.equal(named((await events('?ordering=-name&limit=1')).body.results), ['purchase']);
  const one = await api('GET', `/api/projects/${t.projectId}/event_definitions/${purchase.id}/`, t.personalKey);
  assert.equal(one.body, purchase);
  const pageview = r.body.results[1];
  assert.is((await api('DELETE', `/api/projects/${t.projectId}/event_definitions/${pageview.id}/`, t.personalKey)).status, 204);
  assert.is((await api('GET', `/api/projects/${t.projectId}/event_definitions/${pageview.id}/`, t.personalKey)).status, 404);
  assert.equal(named((await events()).body.results), ['$groupidentify', 'purchase']);
  const bad = await events('?event_type=nope');
  assert.equal([bad.status, bad.body.attr, bad.body.type], [400, 'event_type', 'validation_error']);
});

s('HogQL reads properties by their types: max of a numeric property compares numbers; a PATCHed type changes the answer', async () => {
  // 9 and 10 (and "eleven", no number): as numbers the max is 10, as text it would be "9".
  assert.equal(await hogql("select max(properties.price), sum(properties.price) from events where event = 'purchase'"), [[10, 19]]);
  assert.equal(await hogql("select properties.is_trial, toDate(properties.signup_date) from events where event = 'purchase' order by properties.price"), [
    [true, '2024-05-01'], [false, '2024-05-03'], [null, null],
  ]);
  assert.equal(await hogql("select count() from events where properties.$screen_width > 1000"), [[1]]);
  assert.equal(await hogql("select max(person.properties.age) from events where event = 'purchase'"), [[30]]);
  assert.equal(await hogql("select sum(group_0.properties.employees) from events where event = '$pageview'"), [[50]]);
  // EventsQuery's columns read them the same way; a property typed String (plan) compares as text.
  const eventsQuery = async (select: string[], orderBy: string[] = []) => {
    const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'EventsQuery', select, event: 'purchase', after: 'all', orderBy } });
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body.results as unknown[][];
  };
  assert.equal(await eventsQuery(['max(properties.price)', 'max(properties.plan)', 'max(person.properties.age)']), [[10, 'pro', 30]]);
  assert.equal(await eventsQuery(['properties.is_trial', 'properties.price'], ['properties.price ASC']), [[true, 9], [false, 10], [null, null]]);
  const price = (await props('?properties=price')).body.results[0];
  const patched = await api('PATCH', `/api/projects/${t.projectId}/property_definitions/${price.id}/`, t.personalKey, { property_type: 'String' });
  assert.equal([patched.status, patched.body.property_type, patched.body.is_numerical], [200, 'String', false]);
  assert.equal((await api('GET', `/api/projects/${t.projectId}/property_definitions/${price.id}/`, t.personalKey)).body, patched.body);
  assert.equal(await hogql("select max(properties.price) from events where event = 'purchase'"), [['eleven']]);
  assert.equal(await eventsQuery(['max(properties.price)']), [['eleven']]);
  assert.equal(await hogql("select max(properties.price) from events where event = 'purchase' and properties.price != 'eleven'"), [['9']]);
  const back = await api('PATCH', `/api/projects/${t.projectId}/property_definitions/${price.id}/`, t.personalKey, { property_type: 'Numeric' });
  assert.equal([back.body.property_type, back.body.is_numerical], ['Numeric', true]);
  assert.equal(await hogql("select max(properties.price) from events where event = 'purchase'"), [[10]]);
});

s('type=session lists the sessions table\'s fields as PostHog does: its types, $session_duration a Duration, aliases and lists hidden, searched', async () => {
  const r = await props('?type=session&limit=100');
  assert.is(r.status, 200);
  const byName = new Map((r.body.results as { name: string }[]).map((d) => [d.name, d]));
  assert.equal(byName.get('$session_duration'), { id: '$session_duration', name: '$session_duration', is_numerical: true, property_type: 'Duration', tags: [], is_seen_on_filtered_events: null });
  assert.equal(['$pageview_count', '$start_timestamp', '$is_bounce', '$entry_current_url', '$entry_utm_source'].map((n) => (byName.get(n) as { property_type?: string } | undefined)?.property_type),
    ['Numeric', 'DateTime', 'Boolean', 'String', 'String']);
  for (const hidden of ['session_id', 'distinct_id', 'duration', '$urls', '$num_uniq_urls', '$exit_current_url']) assert.not.ok(byName.has(hidden), hidden);
  assert.is(r.body.count, byName.size);
  // Every one listed is a field HogQL reads on sessions.
  const fields = [...byName.keys()];
  const read = await hogql(`select ${fields.map((f) => `\`${f}\``).join(', ')} from sessions limit 1`);
  assert.is(read.length <= 1, true);
  const searched = await props('?type=session&search=entry%20url');
  assert.equal(named(searched.body.results), ['$entry_current_url']);
});

s('PATCH takes property_type only (PostHog\'s choices); DELETE removes; unknown ids are 404', async () => {
  const plan = (await props('?properties=plan')).body.results[0];
  const url = `/api/projects/${t.projectId}/property_definitions/${plan.id}/`;
  const bad = await api('PATCH', url, t.personalKey, { property_type: 'Number' });
  assert.equal([bad.status, bad.body], [400, { type: 'validation_error', code: 'invalid_choice', detail: '"Number" is not a valid choice.', attr: 'property_type' }]);
  const premium = await api('PATCH', url, t.personalKey, { name: 'renamed' });
  assert.equal([premium.status, premium.body.code], [402, 'payment_required']);
  assert.is((await api('DELETE', url, t.personalKey)).status, 204);
  assert.is((await api('GET', url, t.personalKey)).status, 404);
  assert.is((await api('GET', `/api/projects/${t.projectId}/property_definitions/not-an-id/`, t.personalKey)).status, 404);
});

s('bad query parameters are PostHog\'s 400s', async () => {
  const cases: [string, string | null, RegExp][] = [
    ['?type=bogus', 'type', /not a valid choice/],
    ['?type=group', null, /must be set for `group` type/],
    ['?group_type_index=1', null, /can only set for `group` type/],
    ['?type=group&group_type_index=9', null, /Invalid value/],
    ['?type=group&group_type_index=x', 'group_type_index', /valid integer/],
    [`?type=person&event_names=${encodeURIComponent('["a"]')}`, null, /only be set for `event` type/],
    ['?event_names=notjson', 'event_names', /JSON/],
    ['?is_numerical=perhaps', 'is_numerical', /valid boolean/],
    ['?limit=abc', 'limit', /valid integer/],
  ];
  for (const [q, attr, detail] of cases) {
    const r = await props(q);
    assert.equal([r.status, r.body.type, r.body.attr], [400, 'validation_error', attr], q);
    assert.match(r.body.detail, detail, q);
  }
});

s('projects are isolated: another project\'s definitions are never listed or found', async () => {
  const other = await api('POST', '/api/projects/', t.personalKey, { name: 'other' });
  assert.is(other.status, 201, JSON.stringify(other.body));
  await capture(other.body.api_token, [ev('signup', { referrer_code: 'abc', price: 'free' })]);
  assert.equal(named((await props('', other.body.id)).body.results), ['$ip', 'price', 'referrer_code']);
  assert.equal((await props('?properties=price', other.body.id)).body.results[0].property_type, 'String');
  assert.equal(named((await api('GET', `/api/projects/${other.body.id}/event_definitions/`, t.personalKey)).body.results), ['signup']);
  const mine = (await props('?properties=price')).body.results[0];
  assert.is(mine.property_type, 'Numeric');
  assert.is((await api('GET', `/api/projects/${other.body.id}/property_definitions/${mine.id}/`, t.personalKey)).status, 404);
  assert.not.ok(named((await props()).body.results).includes('referrer_code'));
});

s('scopes: property_definition:read lists but does not change; event_definition needs its own scope', async () => {
  const reader = await addUser(t, { scopes: ['property_definition:read'] });
  const listed = await api('GET', `/api/projects/${t.projectId}/property_definitions/`, reader.key);
  assert.is(listed.status, 200);
  const id = listed.body.results[0].id;
  assert.is((await api('PATCH', `/api/projects/${t.projectId}/property_definitions/${id}/`, reader.key, { property_type: 'String' })).status, 403);
  assert.is((await api('GET', `/api/projects/${t.projectId}/event_definitions/`, reader.key)).status, 403);
});

s.run();
