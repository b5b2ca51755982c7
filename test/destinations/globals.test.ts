// Each invocation's `person` is the person as of its event, as PostHog's events carry it
// (its properties once the event is applied, the event's own `$set` on top), however far
// the destinations consumer runs behind the event store: here one /batch/ holds the whole
// sequence, so the event store has applied all of it before any of it is delivered.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiCall } from '../helpers/api.js';
import { eventually, postJson, type TestServer } from '../helpers/server.js';
import type { Sink } from '../helpers/http-sink.js';
import { startSinkServer, stopSinkServer } from '../helpers/sink-server.js';

const s = suite('destinations globals');
let t: TestServer;
let api: ApiCall;
let sink: Sink;

s.before(async () => {
  ({ t, api, sink } = await startSinkServer());
});
s.after(() => stopSinkServer({ t, api, sink }));

const fns = () => `/api/environments/${t.projectId}/hog_functions/`;

s('person as of each event: A gets v1, B (its own $set) and C v2, the $set event v3', async () => {
  const made = await api('POST', fns(), t.personalKey, {
    enabled: true, template_id: 'template-webhook', name: 'people',
    inputs: {
      url: { value: `${sink.url}/hook` },
      body: { value: {
        label: '{event.properties.label}', email: '{person.properties.email}', id: '{person.id}', name: '{person.name}', url: '{person.url}',
      } },
    },
    filters: { events: [{ id: '$pageview', type: 'events' }, { id: '$set', type: 'events' }] },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const res = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [
    { event: '$identify', distinct_id: 'pat', properties: { $anon_distinct_id: 'anon-pat', $set: { email: 'v1' } } },
    { event: '$pageview', distinct_id: 'pat', properties: { label: 'A' } },
    { event: '$pageview', distinct_id: 'pat', properties: { label: 'B', $set: { email: 'v2' } } },
    { event: '$pageview', distinct_id: 'pat', properties: { label: 'C' } },
    { event: '$set', distinct_id: 'pat', properties: { label: 'D', $set: { email: 'v3' } } },
  ] });
  assert.is(res.status, 200);
  await t.applied();
  await eventually(async () => sink.requests.length >= 4);
  const got = Object.fromEntries(sink.requests.map((r) => [r.json().label, r.json()]));
  assert.equal(Object.keys(got).sort(), ['A', 'B', 'C', 'D']);
  assert.equal(['A', 'B', 'C', 'D'].map((l) => got[l].email), ['v1', 'v2', 'v2', 'v3']);
  assert.equal(['A', 'B', 'C', 'D'].map((l) => got[l].name), ['v1', 'v2', 'v2', 'v3']);
  // The person the store holds now, whose id and url each invocation carries.
  const person = (await api('GET', `/api/environments/${t.projectId}/persons/?distinct_id=pat`, t.personalKey)).body.results[0];
  assert.is(person.properties.email, 'v3');
  for (const l of ['A', 'B', 'C', 'D']) {
    assert.is(got[l].id, person.uuid);
    assert.match(got[l].url, new RegExp(`/project/${t.projectId}/person/pat$`));
  }
});

s('a function disabled and enabled again does not deliver what was queued before it was disabled', async () => {
  const held: import('node:http').ServerResponse[] = [];
  let holding = true;
  sink.respond = (_req, res) => {
    if (holding) held.push(res);
    else res.end('{"ok":true}');
  };
  const made = await api('POST', fns(), t.personalKey, {
    enabled: true, template_id: 'template-webhook', name: 'paused',
    inputs: { url: { value: `${sink.url}/paused` }, body: { value: { n: '{event.properties.n}' } } },
    filters: { events: [{ id: 'queued', type: 'events' }] },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const id = made.body.id as string;
  const paused = () => sink.requests.filter((r) => r.path === '/paused');
  const res = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: Array.from({ length: 40 }, (_, n) => ({ event: 'queued', distinct_id: `q${n}`, properties: { n } })) });
  assert.is(res.status, 200);
  // 16 requests in flight (the per-function cap), the other 24 invocations queued.
  await eventually(async () => held.length === 16);
  await t.applied();
  assert.is(paused().length, 16);
  assert.is((await api('PATCH', `${fns()}${id}/`, t.personalKey, { enabled: false })).status, 200);
  assert.is((await api('PATCH', `${fns()}${id}/`, t.personalKey, { enabled: true })).status, 200);
  holding = false;
  for (const r of held.splice(0)) r.end('{"ok":true}');
  // A later event is delivered; nothing queued before the disable is.
  const later = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [{ event: 'queued', distinct_id: 'after', properties: { n: 99 } }] });
  assert.is(later.status, 200);
  await eventually(async () => paused().some((r) => r.json().n === 99));
  await t.applied();
  await eventually(async () => {
    const totals = (await api('GET', `${fns()}${id}/metrics/totals/?breakdown_by=name`, t.personalKey)).body.totals;
    return totals.triggered === 41 && totals.succeeded === 17;
  });
  assert.equal(paused().map((r) => r.json().n).filter((n: number) => n !== 99).length, 16);
  assert.is(paused().length, 17);
});

s.run();
