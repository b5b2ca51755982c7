// End to end with the real posthog-node SDK: a program captures, identifies, aliases
// and group-identifies; the persons and groups APIs then show what PostHog would.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PostHog } from 'posthog-node';
import { startTestServer, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { personUuid } from '../../src/persons/person-uuid.js';

const s = suite('posthog-node end to end: persons and groups');
let t: TestServer;
let api: ApiCall;
const get = (path: string) => api('GET', `/api/environments/${t.projectId}${path}`, t.personalKey);
// What a browser SDK would have generated before login: listed last among the ids.
const ANON = '0190f6c1-7a9e-7c2b-8f3a-0123456789ab';

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  api = apiClient(t);
  // One flush at shutdown: every call travels, in order, in one gzipped /batch/ request.
  const client = new PostHog(t.projectKey, { host: t.url, flushAt: 1000, flushInterval: 0 });
  client.capture({ distinctId: ANON, event: 'landing viewed', properties: { $set: { landing: 'pricing' } } });
  client.identify({ distinctId: 'user-42', properties: { $set: { email: 'ada@example.com', plan: 'free' }, $set_once: { signup_source: 'ads' }, $anon_distinct_id: ANON } });
  client.identify({ distinctId: 'user-42', properties: { $set: { plan: 'pro' }, $set_once: { signup_source: 'organic' } } });
  client.alias({ distinctId: 'user-42', alias: 'ada@example.com' });
  client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { name: 'Acme Inc', employees: 50 } });
  client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { employees: 55 } });
  client.capture({ distinctId: 'user-42', event: 'plan upgraded', groups: { company: 'acme' } });
  client.capture({ distinctId: 'visitor-7', event: 'landing viewed', properties: { $process_person_profile: false, $set: { ignored: true } } });
  await client.shutdown();
  await eventually(async () => (await get('/events/?event=plan%20upgraded')).body?.results?.length === 1, 10_000);
});
s.after(async () => { await t.close(); });

s('identify, a second identify and an alias leave one identified person with every id', async () => {
  const r = await get('/persons/?distinct_id=user-42');
  assert.is(r.body.results.length, 1);
  const p = r.body.results[0];
  // Created by the anonymous pageview, so named after the anonymous id.
  assert.is(p.uuid, personUuid(t.projectId, ANON));
  assert.equal(p.distinct_ids, ['user-42', 'ada@example.com', ANON]);
  assert.is(p.is_identified, true);
  assert.is(p.name, 'ada@example.com');
  const { $creator_event_uuid, ...props } = p.properties;
  assert.type($creator_event_uuid, 'string');
  // $set_once kept the first source; $set took the latest plan.
  assert.equal(props, { landing: 'pricing', email: 'ada@example.com', plan: 'pro', signup_source: 'ads' });
  for (const id of [ANON, 'ada@example.com']) {
    assert.is((await get(`/persons/?distinct_id=${encodeURIComponent(id)}`)).body.results[0].uuid, p.uuid, id);
  }
});

s('group identify creates the group with merged properties and registers the group type', async () => {
  const types = await get('/groups_types/');
  assert.equal(types.body.map((x: { group_type: string; group_type_index: number }) => [x.group_type, x.group_type_index]), [['company', 0]]);
  const found = await get('/groups/find?group_type_index=0&group_key=acme');
  assert.is(found.status, 200);
  assert.equal(found.body.group_properties, { name: 'Acme Inc', employees: 55 });
  const list = await get('/groups/?group_type_index=0');
  assert.equal(list.body.results.map((g: { group_key: string }) => g.group_key), ['acme']);
});

s('the SDK\'s group identify sender is a person of its own, as in PostHog', async () => {
  const r = await get('/persons/?distinct_id=$company_acme');
  assert.is(r.body.results.length, 1);
  assert.equal(Object.keys(r.body.results[0].properties), ['$creator_event_uuid']);
});

s('events carry their person and their groups; person-less events carry neither', async () => {
  const upgraded = (await get('/events/?event=plan%20upgraded')).body.results[0];
  assert.is(upgraded.person.id, personUuid(t.projectId, ANON));
  assert.is(upgraded.properties.$group_0, 'acme');
  assert.equal(upgraded.properties.$groups, { company: 'acme' });
  const visitor = (await get('/events/?distinct_id=visitor-7')).body.results[0];
  assert.is(visitor.person, null);
  assert.is(visitor.properties.$set, undefined);
  assert.equal((await get('/persons/?distinct_id=visitor-7')).body.results, []);
});

s('the people are exactly these two', async () => {
  const all = await get('/persons/?include_total');
  assert.is(all.body.count, 2);
});

s.run();
