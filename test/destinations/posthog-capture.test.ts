// postHogCapture() in destinations (issue 30 item 4), as PostHog's CDP has it: the event is
// captured into the function's project through the capture path (so it is an event like
// any other, with its uuid, timestamp and person), at most once per invocation, with the
// triggering event's distinct id unless the call gives one; a chain of functions capturing
// the events that trigger them stops after ten captures, with a warning in the log.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, postJson } from '../helpers/server.js';
import { bearer, request } from '../helpers/http.js';
import { startSinkServer, stopSinkServer, type SinkServer } from '../helpers/sink-server.js';
import { runTemplate, templateEvent } from '../helpers/run-template.js';
import { MAX_CAPTURE_CHAIN } from '../../src/destinations/runtime/captured.js';

const s = suite('destinations: postHogCapture');
let server: SinkServer;

s.before(async () => {
  server = await startSinkServer({ HEDGEROW_HOG_WATCHER_LOCK_SECONDS: '0' });
});
s.after(() => stopSinkServer(server));

// A function of `hog` run on one event in this process (nothing is captured here).
const inProcess = (hog: string, event = templateEvent()) => runTemplate({ hog, inputs: {} }, event, () => ({ status: 200, body: {} }));

s('the rules, in the Hog workers\' steps: one call, an event name, the distinct id; what a call records', async () => {
  const once = await inProcess("postHogCapture({'event': 'a', 'properties': {'x': [1, 2]}})\nreturn 1");
  assert.is(once.invocations[0].error, null);
  const [call] = once.invocations[0].captured as any[];
  assert.equal({ ...call, timestamp: typeof call.timestamp }, { event: 'a', distinct_id: 'd-1', properties: { x: [1, 2], $hog_function_execution_count: 1 }, timestamp: 'string' });
  const given = await inProcess("postHogCapture({'event': 'a', 'distinct_id': 'other'})");
  assert.is((given.invocations[0].captured[0] as any).distinct_id, 'other');
  const twice = await inProcess("postHogCapture({'event': 'a'})\npostHogCapture({'event': 'b'})");
  assert.match(twice.invocations[0].error!, /postHogCapture was called more than once. Only one call is allowed per function/);
  const nameless = await inProcess("postHogCapture({'properties': {}})");
  assert.match(nameless.invocations[0].error!, /postHogCapture call missing 'event' property/);
  // After a fetch, the call counts with the one before it.
  const afterFetch = await inProcess("postHogCapture({'event': 'a'})\nfetch('https://example.com', {})\npostHogCapture({'event': 'b'})");
  assert.match(afterFetch.invocations[0].error!, /called more than once/);
  const tenth = await inProcess("postHogCapture({'event': 'a'})", templateEvent({ properties: { $hog_function_execution_count: MAX_CAPTURE_CHAIN } }));
  assert.is(tenth.invocations[0].error, null);
  assert.match(tenth.invocations[0].logs.join('\n'), /already executed this function 10 times previously/);
});

s('a captured event lands in the project, built by capture, with the trigger\'s distinct id and the execution count', async () => {
  const { t, api } = server;
  const fns = `/api/environments/${t.projectId}/hog_functions/`;
  const made = await api('POST', fns, t.personalKey, {
    enabled: true, name: 'upgrade follow-up',
    hog: "postHogCapture({'event': 'upgrade nudged', 'properties': {'plan': event.properties.plan, 'by': inputs.by}})",
    inputs_schema: [{ key: 'by', type: 'string' }], inputs: { by: { value: '{source.name}' } },
    filters: { events: [{ id: 'plan viewed', type: 'events' }] },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const res = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [{ event: 'plan viewed', distinct_id: 'buyer-1', properties: { plan: 'team' } }] });
  assert.is(res.status, 200);
  const events = `${t.url}/api/environments/${t.projectId}/events/?event=${encodeURIComponent('upgrade nudged')}&limit=10`;
  let found: any[] = [];
  await eventually(async () => (found = (await request(events, { headers: bearer(t.personalKey) })).body.results).length === 1);
  assert.is(found[0].distinct_id, 'buyer-1');
  assert.equal({ plan: found[0].properties.plan, by: found[0].properties.by, count: found[0].properties.$hog_function_execution_count },
    { plan: 'team', by: 'upgrade follow-up', count: 1 });
  assert.match(found[0].uuid, /^[0-9a-f-]{36}$/);
  await api('PATCH', `${fns}${made.body.id}/`, t.personalKey, { enabled: false });
});

s('a function capturing the event that triggers it stops after ten captures, and says so', async () => {
  const { t, api } = server;
  const fns = `/api/environments/${t.projectId}/hog_functions/`;
  const made = await api('POST', fns, t.personalKey, {
    enabled: true, name: 'echo', hog: "postHogCapture({'event': 'echo', 'properties': {'n': (event.properties.n ?? 0) + 1}})",
    filters: { events: [{ id: 'echo', type: 'events' }] },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [{ event: 'echo', distinct_id: 'looper', properties: { n: 0 } }] })).status, 200);
  const logs = `${fns}${made.body.id}/logs/?limit=100`;
  const events = `${t.url}/api/environments/${t.projectId}/events/?event=echo&limit=100`;
  await eventually(async () => (await api('GET', logs, t.personalKey)).body.results.some((l: any) => /10 times previously/.test(l.message)));
  let found: any[] = [];
  await eventually(async () => (found = (await request(events, { headers: bearer(t.personalKey) })).body.results).length === 1 + MAX_CAPTURE_CHAIN);
  assert.equal(found.map((e) => e.properties.n).sort((a, b) => a - b), Array.from({ length: 1 + MAX_CAPTURE_CHAIN }, (_, i) => i));
  // Nothing further is captured once the chain stopped.
  await eventually(async () => (await api('GET', `${fns}${made.body.id}/metrics/totals/?breakdown_by=name`, t.personalKey)).body.totals.triggered === 1 + MAX_CAPTURE_CHAIN);
  assert.is((await request(events, { headers: bearer(t.personalKey) })).body.results.length, 1 + MAX_CAPTURE_CHAIN);
});

s.run();
