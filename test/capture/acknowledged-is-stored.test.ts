// What capture acknowledges is stored, however odd: a request is either refused with a
// 400 that says why, or every kept event of it ends up in the event store (issue 13,
// items 1 and 2). Nothing is acknowledged and then lost, nor set aside.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, request, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { listDeadLetters } from '../../src/log/consumers/index.js';

const s = suite('acknowledged events are stored');
let t: TestServer;
let api: ApiCall;
const get = (path: string) => api('GET', `/api/environments/${t.projectId}${path}`, t.personalKey);
const post = (path: string, body: string) => request(`${t.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
const storedEvent = (uuid: string) => eventually(async () => { const r = await get(`/events/${uuid}/`); return r.status === 200 ? r.body : null; });

let n = 0;
const uuid = () => `0190a0e4-1c4e-7b1a-9e5b-${String(++n).padStart(12, '0')}`;

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  api = apiClient(t);
});
s.after(async () => { await t.close(); });

s('a `_` of twenty digits is ignored, not a lost record: the request and the requests committed with it are stored', async () => {
  const hostile = uuid();
  const bystanders = [uuid(), uuid(), uuid(), uuid()];
  const single = (id: string, name: string) => JSON.stringify({ api_key: t.projectKey, event: name, distinct_id: `d-${id}`, uuid: id });
  // Sent together, so they are likely to share one group commit (one log record).
  const answers = await Promise.all([
    post('/i/v0/e/?_=99999999999999999999', single(hostile, 'hostile')),
    ...bystanders.map((id) => post('/i/v0/e/', single(id, 'bystander'))),
  ]);
  assert.equal(answers.map((r) => r.status), [200, 200, 200, 200, 200]);
  for (const id of [hostile, ...bystanders]) assert.is((await storedEvent(id)).uuid, id);
  assert.equal(listDeadLetters(t.server.store), []);
});

s('objects of 65,536 keys and more are stored: in properties, $set, $set_once and $group_set', async () => {
  const wide: Record<string, number> = {};
  for (let i = 0; i < 70_000; i++) wide[`k${i}`] = i;
  const ev = uuid();
  const group = uuid();
  const r = await post('/batch/', JSON.stringify({
    api_key: t.projectKey,
    batch: [
      { event: 'wide', distinct_id: 'wendy', uuid: ev, properties: { wide, $set: wide, $set_once: { once: wide } } },
      { event: '$groupidentify', distinct_id: 'wendy', uuid: group, properties: { $group_type: 'company', $group_key: 'acme', $group_set: wide } },
    ],
  }));
  assert.is(r.status, 200);
  const stored = await storedEvent(ev);
  assert.is(Object.keys(stored.properties.wide).length, 70_000);
  assert.is(stored.properties.wide.k69999, 69_999);
  const person = (await get('/persons/?distinct_id=wendy')).body.results[0];
  assert.is(person.properties.k69999, 69_999);
  assert.is(Object.keys(person.properties.once).length, 70_000);
  await storedEvent(group);
  const acme = (await get('/groups/find?group_type_index=0&group_key=acme')).body;
  assert.is(Object.keys(acme.group_properties).length, 70_000);
  assert.equal((await get('/ingestion_warnings/')).body.results, []);
});

s('keys named __proto__ or toJSON, at any depth and however escaped, are refused with a 400 that names them; nothing of the request is stored', async () => {
  // Event members as JSON text, written by hand: JSON.stringify cannot write an own "__proto__" key.
  const cases: [string, string][] = [
    ['"properties":{"constructor":"x","toJSON":"y"}', 'toJSON'],
    ['"properties":{"a":[{"b":{"__proto__":{"polluted":1}}}]}', '__proto__'],
    ['"$set":{"toJSON":1}', 'toJSON'],
    ['"properties":{"\\u0074oJSON":1}', 'toJSON'],
    ['"properties":{"\\u005f_proto__":1}', '__proto__'],
  ];
  for (const [members, key] of cases) {
    const body = `{"api_key":"${t.projectKey}","batch":[{"event":"fine","distinct_id":"otto","uuid":"${uuid()}"},`
      + `{"event":"odd","distinct_id":"otto","uuid":"${uuid()}",${members}}]}`;
    const r = await post('/batch/', body);
    assert.is(r.status, 400, `${members}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body, {
      type: 'validation_error', code: 'invalid_payload', attr: 'properties',
      detail: `Property keys named "__proto__" or "toJSON" cannot be stored: event 1 of the request has a key "${key}". Rename it.`,
    });
  }
  // The names as values, or inside longer keys, are fine.
  const fine = uuid();
  const ok = await post('/i/v0/e/', JSON.stringify({ api_key: t.projectKey, event: 'toJSON', distinct_id: 'otto', uuid: fine, properties: { note: '__proto__', toJSONish: 1, '\u00e9': 'é' } }));
  assert.is(ok.status, 200);
  assert.is((await storedEvent(fine)).properties.toJSONish, 1);
  const rows = [...t.server.store.eventRows.getRange()].filter(({ value }) => value?.distinct_id === 'otto');
  assert.is(rows.length, 1);
});

s.run();
