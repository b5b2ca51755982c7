// The persons, groups, group types and ingestion warnings APIs over real HTTP, fed
// through capture and the consumer worker.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, postJson, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { personUuid } from '../../src/persons/person-uuid.js';

const s = suite('persons and groups API');
let t: TestServer;
let api: ApiCall;
let base: string;

async function capture(batch: Record<string, unknown>[]) {
  const r = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch });
  assert.is(r.status, 200);
}

const get = (path: string, key = t.personalKey) => api('GET', `${base}${path}`, key);
const keyWith = async (scopes: string[]) => {
  const owner = t.server.tenancy.userByEmail('admin@hedgerow.local')!;
  return (await t.server.tenancy.createPersonalKey(owner.id, scopes, null, 'persons test')).key;
};

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  api = apiClient(t);
  base = `/api/environments/${t.projectId}`;
  await capture([
    { event: '$pageview', distinct_id: 'anon-1', properties: { $set: { utm: 'ad' } }, timestamp: '2026-01-01T00:00:00Z' },
    { event: '$identify', distinct_id: 'alice', properties: { $anon_distinct_id: 'anon-1', $set: { email: 'alice@example.com', plan: 'pro', seats: 12 } }, timestamp: '2026-01-01T00:01:00Z' },
    { event: 'signed up', distinct_id: 'bob', properties: { $set: { name: 'Bob', plan: 'free' } }, timestamp: '2026-01-01T00:02:00Z' },
    { event: 'opened app', distinct_id: 'carol', timestamp: '2026-01-01T00:03:00Z' },
    // Both have persons and alice's is identified: refused.
    { event: '$identify', distinct_id: 'carol', properties: { $anon_distinct_id: 'alice' }, timestamp: '2026-01-01T00:03:30Z' },
    { event: '$groupidentify', distinct_id: '$company_acme', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', size: 10 } }, timestamp: '2026-01-01T00:04:00Z' },
    { event: '$groupidentify', distinct_id: '$company_umbrella', properties: { $group_type: 'company', $group_key: 'umbrella', $group_set: { name: 'Umbrella' } }, timestamp: '2026-01-01T00:05:00Z' },
    { event: 'used', distinct_id: 'bob', properties: { $groups: { company: 'umbrella', team: 'red' } }, timestamp: '2026-01-01T00:06:00Z' },
  ]);
  // alice, bob, carol and the two group-identify senders.
  await eventually(async () => (await get('/persons/?include_total')).body?.count === 5);
});
s.after(async () => { await t.close(); });

s('the person list is newest first, in PostHog\'s shape', async () => {
  const r = await get('/persons/');
  assert.is(r.status, 200);
  assert.equal(Object.keys(r.body).sort(), ['next', 'previous', 'results']);
  const names = r.body.results.map((p: { name: string }) => p.name);
  assert.equal(names, ['$company_umbrella', '$company_acme', 'carol', 'Bob', 'alice@example.com']);
  const alice = r.body.results[4];
  assert.equal(alice, {
    id: 1, uuid: personUuid(t.projectId, 'anon-1'), name: 'alice@example.com', distinct_ids: ['anon-1', 'alice'],
    properties: alice.properties, created_at: '2026-01-01T00:00:00.000Z', is_identified: true,
  });
  assert.equal({ ...alice.properties, $creator_event_uuid: 'x' }, { utm: 'ad', email: 'alice@example.com', plan: 'pro', seats: 12, $creator_event_uuid: 'x' });
});

s('an identified person is not merged into another by $identify: a warning says why', async () => {
  const carol = (await get('/persons/?distinct_id=carol')).body.results[0];
  assert.equal(carol.distinct_ids, ['carol']);
  assert.ok(carol.is_identified);
  const w = await get('/ingestion_warnings/');
  assert.is(w.status, 200);
  const merge = w.body.results.find((x: { type: string }) => x.type === 'cannot_merge_already_identified');
  assert.is(merge.count, 1);
  assert.equal({ ...merge.warnings[0].details, eventUuid: 'x' }, {
    sourcePersonDistinctId: 'alice', targetPersonDistinctId: 'carol', eventUuid: 'x', category: 'merge', severity: 'warning',
  });
});

s('filters: distinct_id, search, email, properties', async () => {
  const ids = async (q: string) => (await get(`/persons/?${q}`)).body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids[0]);
  assert.equal(await ids('distinct_id=anon-1'), ['anon-1']);
  assert.equal(await ids('distinct_id=nobody'), []);
  assert.equal(await ids('search=EXAMPLE.com'), ['anon-1']);
  assert.equal(await ids('search=bo'), ['bob']);
  assert.equal(await ids('email=alice@example.com'), ['anon-1']);
  const props = (f: unknown) => ids(`properties=${encodeURIComponent(JSON.stringify(f))}`);
  assert.equal(await props([{ key: 'plan', value: 'free', type: 'person' }]), ['bob']);
  assert.equal(await props([{ key: 'seats', value: 10, operator: 'gt' }]), ['anon-1']);
  const bad = await get('/persons/?properties=notjson');
  assert.is(bad.status, 400);
  assert.is(bad.body.attr, 'properties');
  assert.is((await get(`/persons/?properties=${encodeURIComponent('[{"key":"x","value":1,"type":"cohort"}]')}`)).status, 400);
});

s('pagination follows limit and offset with absolute next and previous links', async () => {
  const first = await get('/persons/?limit=2');
  assert.is(first.body.results.length, 2);
  assert.is(first.body.previous, null);
  assert.match(first.body.next, /^http:\/\/127\.0\.0\.1:\d+\/api\/environments\/\d+\/persons\/\?limit=2&offset=2$/);
  const second = await api('GET', new URL(first.body.next).pathname + new URL(first.body.next).search, t.personalKey);
  assert.equal(second.body.results.map((p: { name: string }) => p.name), ['carol', 'Bob']);
  assert.ok(second.body.previous);
  const last = await get('/persons/?limit=2&offset=4');
  assert.is(last.body.next, null);
  assert.is(last.body.results.length, 1);
  assert.is((await get('/persons/?include_total&limit=1')).body.count, 5);
});

s('one person by uuid or numeric id; 404 for unknown; 400 for a distinct id in the path', async () => {
  const uuid = personUuid(t.projectId, 'bob');
  const byUuid = await get(`/persons/${uuid}/`);
  assert.is(byUuid.status, 200);
  assert.is(byUuid.body.name, 'Bob');
  const byId = await get(`/persons/${byUuid.body.id}/`);
  assert.equal(byId.body, byUuid.body);
  assert.is((await get('/persons/00000000-0000-4000-8000-000000000000/')).status, 404);
  const notAnId = await get('/persons/bob/');
  assert.is(notAnId.status, 400);
  assert.match(notAnId.body.detail, /persons\?distinct_id=bob/);
});

s('the projects path serves the same persons', async () => {
  const r = await api('GET', `/api/projects/${t.projectId}/persons/?distinct_id=bob`, t.personalKey);
  assert.is(r.body.results[0].name, 'Bob');
});

s('groups: list by type, find by key, group types by index', async () => {
  const types = await get('/groups_types/');
  assert.equal(types.body.map((x: { group_type: string; group_type_index: number }) => [x.group_type, x.group_type_index]), [['company', 0], ['team', 1]]);
  assert.equal(Object.keys(types.body[0]).sort(), ['created_at', 'default_columns', 'detail_dashboard', 'group_type', 'group_type_index', 'name_plural', 'name_singular']);

  const list = await get('/groups/?group_type_index=0');
  assert.is(list.status, 200);
  assert.equal(list.body.results.map((g: { group_key: string }) => g.group_key), ['umbrella', 'acme']);
  assert.equal(list.body.results[1], { group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme', size: 10 }, created_at: '2026-01-01T00:04:00.000Z' });
  assert.equal((await get('/groups/?group_type_index=0&search=umb')).body.results.length, 1);
  assert.equal((await get('/groups/?group_type_index=0&group_key=ACM')).body.results.map((g: { group_key: string }) => g.group_key), ['acme']);
  // $groups on an event registers the type, not a group.
  assert.equal((await get('/groups/?group_type_index=1')).body.results, []);

  const found = await get('/groups/find?group_type_index=0&group_key=acme');
  assert.equal(found.body, { group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme', size: 10 }, created_at: '2026-01-01T00:04:00.000Z', notebook: null });
  assert.is((await get('/groups/find?group_type_index=0&group_key=nope')).status, 404);

  const missing = await get('/groups/');
  assert.is(missing.status, 400);
  assert.is(missing.body.attr, 'group_type_index');
});

s('events carry their person; events of a merged person point to the survivor', async () => {
  const r = await get('/events/?distinct_id=anon-1');
  assert.is(r.body.results[0].person.id, personUuid(t.projectId, 'anon-1'));
  const used = await get('/events/?event=used');
  assert.equal({ ...used.body.results[0].properties, $ip: undefined, $lib: undefined }, { $groups: { company: 'umbrella', team: 'red' }, $group_0: 'umbrella', $group_1: 'red', $ip: undefined, $lib: undefined });
});

s('scopes: person:read reads persons, person:write deletes, group:read reads groups', async () => {
  const reader = await keyWith(['person:read']);
  assert.is((await get('/persons/', reader)).status, 200);
  assert.is((await get('/groups_types/', reader)).status, 403);
  assert.is((await get('/groups_types/', await keyWith(['group:read']))).status, 200);
  const uuid = personUuid(t.projectId, '$company_acme');
  assert.is((await api('DELETE', `${base}/persons/${uuid}/`, reader)).status, 403);
});

s('DELETE removes the person and its distinct ids; a later event starts a new person', async () => {
  const uuid = personUuid(t.projectId, '$company_acme');
  const writer = await keyWith(['person:write']);
  const del = await api('DELETE', `${base}/persons/${uuid}/`, writer);
  assert.is(del.status, 202);
  assert.is((await get(`/persons/${uuid}/`)).status, 404);
  assert.equal((await get('/persons/?distinct_id=$company_acme')).body.results, []);
  assert.is((await api('DELETE', `${base}/persons/${uuid}/`, writer)).status, 404);
  await capture([{ event: 'back', distinct_id: '$company_acme' }]);
  const back = await eventually(async () => (await get('/persons/?distinct_id=$company_acme')).body.results[0]);
  assert.is(back.uuid, uuid);
  assert.is(back.id, 6);
});

s('a deletion is no event, and no capture request makes one: an event shaped like it deletes nothing', async () => {
  const bob = personUuid(t.projectId, 'bob');
  // What a server-written deletion holds, sent as an event (its frame kind byte included).
  await capture([{
    event: 'persons.delete', distinct_id: 'bob',
    properties: { kind: 'persons.delete', uuid: bob, project_id: t.projectId, payload: { uuid: bob }, frame: '\u0003\u0000\u0000\u0000' },
  }]);
  await eventually(async () => (await get('/events/?event=persons.delete')).body.results.length === 1);
  assert.is((await get(`/persons/${bob}/`)).status, 200);
  const events = async () => (await get('/events/?limit=1000')).body.results.map((e: { id: string }) => e.id);
  const before = await events();
  const del = await api('DELETE', `${base}/persons/${bob}/`, await keyWith(['person:write']));
  assert.is(del.status, 202);
  assert.is((await get(`/persons/${bob}/`)).status, 404);
  assert.equal(await events(), before);
});

s.run();
