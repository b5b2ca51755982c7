// Each invocation's `person` is the person as of its event, as PostHog's events carry it
// (its properties once the event is applied, the event's own `$set` on top), however far
// the destinations consumer runs behind the event store: here one /batch/ holds the whole
// sequence, so the event store has applied all of it before any of it is delivered.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { eventually, postJson, startTestServer, NO_INSIGHTS, type TestServer } from '../helpers/server.js';
import { startSink, type Sink } from '../helpers/http-sink.js';

const s = suite('destinations globals');
let t: TestServer;
let api: ApiCall;
let sink: Sink;

s.before(async () => {
  sink = await startSink();
  t = await startTestServer({ env: { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1' }, consumers: NO_INSIGHTS });
  api = apiClient(t);
});
s.after(async () => {
  await t.close();
  await sink.close();
});

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

s.run();
