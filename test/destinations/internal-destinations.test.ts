// internal_destination functions run on hedgerow's own events (issue 30, item 3; PostHog
// issue #17361): a feature flag created, changed and deleted each reach a project's
// internal destination as `$activity_log_entry_created` (scope FeatureFlag), with who did
// it as the person; a plain destination never sees them. A destination or a transformation
// the watcher disables is told the same way (scope HogFunction).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiCall } from '../helpers/api.js';
import { eventually, postJson, type TestServer } from '../helpers/server.js';
import type { Sink } from '../helpers/http-sink.js';
import { startSinkServer, stopSinkServer } from '../helpers/sink-server.js';

const s = suite('destinations: internal destinations');
let t: TestServer;
let api: ApiCall;
let sink: Sink;

s.before(async () => {
  ({ t, api, sink } = await startSinkServer({ HEDGEROW_HOG_WATCHER_LOCK_SECONDS: '0' }));
});
s.after(() => stopSinkServer({ t, api, sink }));

s('a flag created, changed and deleted: one call each, in order, with its activity and changes', async () => {
  const fns = `/api/environments/${t.projectId}/hog_functions/`;
  const made = await api('POST', fns, t.personalKey, {
    type: 'internal_destination', template_id: 'template-webhook', enabled: true, name: 'flag changes to chat',
    inputs: {
      url: { value: `${sink.url}/flags` },
      body: { value: {
        activity: '{event.properties.activity}', scope: '{event.properties.scope}', flag: '{event.properties.detail.name}',
        item: '{event.properties.item_id}', changes: '{event.properties.detail.changes}', by: '{person.properties.email}',
      } },
    },
    filters: { events: [{ id: '$activity_log_entry_created', type: 'events', properties: [{ key: 'scope', value: 'FeatureFlag', operator: 'exact', type: 'event' }] }] },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  // A plain destination on every event sees none of it.
  const plain = await api('POST', fns, t.personalKey, { template_id: 'template-webhook', enabled: true, inputs: { url: { value: `${sink.url}/plain` } } });
  assert.is(plain.status, 201);

  const flags = `/api/projects/${t.projectId}/feature_flags/`;
  const flag = await api('POST', flags, t.personalKey, { key: 'new-checkout', name: 'New checkout', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  assert.is(flag.status, 201, JSON.stringify(flag.body));
  await eventually(async () => sink.requests.length === 1);
  assert.is((await api('PATCH', `${flags}${flag.body.id}/`, t.personalKey, { active: false })).status, 200);
  await eventually(async () => sink.requests.length === 2);
  assert.is((await api('PATCH', `${flags}${flag.body.id}/`, t.personalKey, { deleted: true })).status, 200);
  await eventually(async () => sink.requests.length === 3);

  const calls = sink.requests.map((r) => ({ path: r.path, ...r.json() }));
  assert.equal(calls.map((c) => [c.path, c.activity, c.scope, c.flag, c.item]), [
    ['/flags', 'created', 'FeatureFlag', 'new-checkout', String(flag.body.id)],
    ['/flags', 'updated', 'FeatureFlag', 'new-checkout', String(flag.body.id)],
    ['/flags', 'deleted', 'FeatureFlag', 'new-checkout', String(flag.body.id)],
  ]);
  assert.equal(calls[1].changes.map((c: any) => [c.field, c.before, c.after]), [['active', true, false]]);
  assert.match(calls[0].by, /@/);
  await eventually(async () => {
    const totals = (await api('GET', `${fns}${made.body.id}/metrics/totals/?breakdown_by=name`, t.personalKey)).body.totals;
    return totals.succeeded === 3 && totals.triggered === 3;
  });
  assert.ok((await api('GET', `${fns}${made.body.id}/logs/`, t.personalKey)).body.results.length >= 3);
});

s('a function the watcher disables is told to the project\'s internal destinations', async () => {
  sink.reset();
  const fns = `/api/environments/${t.projectId}/hog_functions/`;
  const told = await api('POST', fns, t.personalKey, {
    type: 'internal_destination', template_id: 'template-webhook', enabled: true, name: 'disabled functions to chat',
    inputs: {
      url: { value: `${sink.url}/disabled` },
      body: { value: { activity: '{event.properties.activity}', scope: '{event.properties.scope}', item: '{event.properties.item_id}', name: '{event.properties.detail.name}' } },
    },
    filters: { events: [{ id: '$activity_log_entry_created', type: 'events', properties: [{ key: 'scope', value: 'HogFunction', operator: 'exact', type: 'event' }] }] },
  });
  assert.is(told.status, 201, JSON.stringify(told.body));
  const failing = await api('POST', fns, t.personalKey, { name: 'always failing', hog: "throw Error('always')", enabled: true, filters: { events: [{ id: 'fail', type: 'events' }] } });
  assert.is(failing.status, 201, JSON.stringify(failing.body));
  const res = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: Array.from({ length: 130 }, (_, i) => ({ event: 'fail', distinct_id: `f${i}` })) });
  assert.is(res.status, 200);
  await eventually(async () => (await api('GET', `${fns}${failing.body.id}/`, t.personalKey)).body.status.state === 3, 20_000);
  await eventually(async () => sink.requests.some((r) => r.path === '/disabled'), 10_000);
  assert.equal(sink.requests.filter((r) => r.path === '/disabled').map((r) => r.json()), [
    { activity: 'disabled_by_watcher', scope: 'HogFunction', item: failing.body.id, name: 'always failing' },
  ]);
});

s('a transformation that keeps failing is disabled by the watcher: logged, told, passed by; enabling it again takes it back as degraded', async () => {
  sink.reset();
  const fns = `/api/environments/${t.projectId}/hog_functions/`;
  const told = await api('POST', fns, t.personalKey, {
    type: 'internal_destination', template_id: 'template-webhook', enabled: true, name: 'disabled transformations to chat',
    inputs: { url: { value: `${sink.url}/transformation-disabled` }, body: { value: { item: '{event.properties.item_id}', type: '{event.properties.detail.type}' } } },
    filters: { events: [{ id: '$activity_log_entry_created', type: 'events', properties: [{ key: 'activity', value: 'disabled_by_watcher', operator: 'exact', type: 'event' }] }] },
  });
  assert.is(told.status, 201, JSON.stringify(told.body));
  const failing = await api('POST', fns, t.personalKey, {
    type: 'transformation', name: 'always failing transformation', enabled: true, hog: "throw Error('always')",
    filters: { events: [{ id: 'tfail', type: 'events' }] },
  });
  assert.is(failing.status, 201, JSON.stringify(failing.body));
  const one = `${fns}${failing.body.id}/`;
  const totals = async () => (await api('GET', `${one}metrics/totals/?breakdown_by=name`, t.personalKey)).body.totals;
  // 101 failures at 100 tokens each empty its 10,000; it is judged after each chunk of 64.
  const res = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: Array.from({ length: 130 }, (_, i) => ({ event: 'tfail', distinct_id: `tf${i}` })) });
  assert.is(res.status, 200);
  // Its logs, metrics and watcher record are written in one transaction just after the batch is stored.
  await eventually(async () => (await api('GET', one, t.personalKey)).body.status.state === 3);
  const status = (await api('GET', one, t.personalKey)).body.status;
  assert.ok(status.tokens < 0);
  assert.equal(await totals(), { failed: 128, disabled_permanently: 2 });
  const lines = (await api('GET', `${one}logs/`, t.personalKey)).body.results as { level: string; message: string }[];
  assert.is(lines.filter((l) => /disabled by the watcher/.test(l.message)).length, 1);
  // Passed by: the event is stored as it came, the transformation among those skipped.
  const late = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [{ event: 'tfail', distinct_id: 'tf-late' }] });
  assert.is(late.status, 200);
  await t.applied();
  await eventually(async () => (await totals()).disabled_permanently === 3);
  const [stored] = (await api('GET', `/api/projects/${t.projectId}/events/?distinct_id=tf-late`, t.personalKey)).body.results;
  assert.equal(stored.properties.$transformations_skipped, [`always failing transformation (${failing.body.id})`]);
  assert.is(stored.properties.$transformations_failed, undefined);
  assert.equal(await totals(), { failed: 128, disabled_permanently: 3 });
  // Told once to the internal destination.
  await eventually(async () => sink.requests.some((r) => r.path === '/transformation-disabled'), 10_000);
  assert.equal(sink.requests.filter((r) => r.path === '/transformation-disabled').map((r) => r.json()), [{ item: failing.body.id, type: 'transformation' }]);
  // Enabled again: degraded, and it runs on the next event.
  const back = await api('PATCH', one, t.personalKey, { enabled: true });
  assert.equal(back.body.status, { state: 2, rating: 0.8, tokens: 8000 });
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [{ event: 'tfail', distinct_id: 'tf-again' }] })).status, 200);
  await eventually(async () => (await totals()).failed === 129);
  assert.equal(await totals(), { failed: 129, disabled_permanently: 3 });
  for (const id of [failing.body.id, told.body.id]) assert.is((await api('PATCH', `${fns}${id}/`, t.personalKey, { deleted: true })).status, 200);
});

s.run();
