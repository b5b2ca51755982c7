// Hostile Hog through the real server (issue 27): a program that asks for more memory than
// its bounds, sources nested to stall the parser, test runs that never end. Each fails
// alone with a 4xx or a logged error; the server stays up and its liveness probe answers
// throughout; other functions, other projects' test runs and saves are served meanwhile.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { eventually, postJson, startTestServer, type TestServer } from '../helpers/server.js';
import { startSink, type Sink } from '../helpers/http-sink.js';
import { assertServedThroughout, watchServer, type Watch } from '../helpers/server-watch.js';

const s = suite('hostile Hog code');
let t: TestServer;
let api: ApiCall;
let sink: Sink;
let watch: Watch;
// Every answer the server gave in this suite: none may be a 5xx.
const statuses: number[] = [];

const EVENT = { uuid: '0190b4b4-0000-7000-8000-0000000000e1', event: 'hostile', distinct_id: 'mallory', properties: {}, timestamp: '2026-01-02T03:04:05.000Z' };
const fns = (project = t.projectId) => `/api/environments/${project}/hog_functions/`;
const call: ApiCall = async (method, path, key, body) => {
  const res = await api(method, path, key, body);
  statuses.push(res.status);
  return res;
};
const create = (body: Record<string, unknown>, project?: number) => call('POST', fns(project), t.personalKey, { enabled: true, ...body });
const invoke = (body: unknown, project?: number) => call('POST', `${fns(project)}new/invocations/`, t.personalKey, body);
const totals = async (id: string) => (await call('GET', `${fns()}${id}/metrics/totals/?breakdown_by=name`, t.personalKey)).body.totals;
const errorLogs = async (id: string) => ((await call('GET', `${fns()}${id}/logs/?level=error`, t.personalKey)).body.results as { message: string }[]).map((l) => l.message);
const nested = (depth: number) => '('.repeat(depth) + '1' + ')'.repeat(depth);

s.before(async () => {
  sink = await startSink();
  t = await startTestServer({ env: { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1' } });
  api = apiClient(t);
  watch = watchServer(t.url, process.pid);
});
s.after(async () => {
  await t.close();
  await sink.close();
});

s('range(100000000) in a destination, its inputs or its filters fails that function alone, logged and counted; the others deliver', async () => {
  const filters = { events: [{ id: 'hostile', type: 'events' }] };
  const code = await create({ hog: 'return length(range(100000000))', filters });
  const inputs = await create({
    hog: 'return 1', filters,
    inputs_schema: [{ key: 'n', type: 'string', label: 'n', required: true }], inputs: { n: { value: '{length(range(100000000))}' } },
  });
  const filtered = await create({ hog: 'return 1', filters: { ...filters, properties: [{ type: 'hogql', key: 'length(range(100000000)) > 0' }] } });
  const bystander = await create({ template_id: 'template-webhook', inputs: { url: { value: `${sink.url}/bystander` } }, filters });
  for (const fn of [code, inputs, filtered, bystander]) assert.is(fn.status, 201, JSON.stringify(fn.body));

  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [{ event: 'hostile', distinct_id: 'mallory' }] })).status, 200);
  await eventually(async () => (await totals(code.body.id)).failed === 1);
  assert.match((await errorLogs(code.body.id))[0], /^Error executing function on event [0-9a-f-]+: HogVMException: Memory limit of 67108864 bytes exceeded\. Tried to allocate 800000008 bytes\.$/);
  // The watcher counted the failure: its bucket is below full (it refills 10 tokens a second; a failure costs 100 and more).
  assert.ok((await call('GET', `${fns()}${code.body.id}/`, t.personalKey)).body.status.tokens < 10_000);
  await eventually(async () => (await totals(inputs.body.id)).inputs_failed === 1);
  assert.match((await errorLogs(inputs.body.id))[0], /^Error building inputs for event [0-9a-f-]+: Could not execute bytecode for input field: n$/);
  await eventually(async () => (await totals(filtered.body.id)).filtering_failed === 1);
  await eventually(async () => sink.requests.some((r) => r.path === '/bystander'));

  // The next event is handled as usual: nothing was left stuck behind the first.
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [{ event: 'hostile', distinct_id: 'mallory' }] })).status, 200);
  await eventually(async () => (await totals(code.body.id)).failed === 2 && sink.requests.filter((r) => r.path === '/bystander').length === 2);
});

s('a test run of range(100000000) answers its memory error', async () => {
  const res = await invoke({ configuration: { hog: 'return length(range(100000000))' }, globals: { event: EVENT } });
  assert.is(res.status, 200);
  assert.is(res.body.status, 'error');
  assert.match(res.body.errors[0], /^Memory limit of 67108864 bytes exceeded/);
});

s('sources nested past the parser\'s bound are refused before parsing, with a 400 naming the limit and the field', async () => {
  const hog = await create({ hog: `return ${nested(400)}` });
  assert.is(hog.status, 400);
  assert.equal(hog.body, {
    type: 'validation_error', code: 'source_too_deep', attr: 'hog',
    detail: 'The Hog code nests parentheses, brackets and braces 400 levels deep; at most 32 are accepted.',
  });
  const input = await create({
    hog: 'return 1', inputs_schema: [{ key: 'n', type: 'string', label: 'n', required: true }], inputs: { n: { value: `{${nested(200)}}` } },
  });
  assert.is(input.status, 400);
  assert.is(input.body.code, 'source_too_deep');
  assert.is(input.body.attr, 'inputs');
  const filter = await create({ hog: 'return 1', filters: { properties: [{ type: 'hogql', key: nested(100) }] } });
  assert.is(filter.status, 400);
  assert.is(filter.body.code, 'source_too_deep');
  assert.is(filter.body.attr, 'filters');
  const run = await invoke({ configuration: { hog: `return ${nested(400)}` }, globals: { event: EVENT } });
  assert.is(run.status, 400);
  assert.match(run.body.configuration.hog[0], /400 levels deep; at most 32 are accepted/);
  // Within the bound, the same shape compiles.
  assert.is((await create({ hog: `return ${nested(20)}` })).status, 201);
});

s('a test run whose fetch never answers holds only its own project\'s slots: a third is refused, another project runs and saves meanwhile', async () => {
  const held: ServerResponse[] = [];
  sink.respond = (req, res) => {
    if (req.path === '/hang') held.push(res);
    else res.end('{"ok":true}');
  };
  const hanging = { configuration: { hog: `return fetch('${sink.url}/hang')` }, globals: { event: EVENT }, mock_async_functions: false };
  let settled = 0;
  const first = invoke(hanging).finally(() => { settled++; });
  const second = invoke(hanging).finally(() => { settled++; });
  await eventually(async () => held.length === 2);
  const third = await invoke(hanging);
  assert.is(third.status, 429);
  assert.is(third.body.code, 'throttled');
  assert.is(third.headers.get('retry-after'), '1');

  const other = await call('POST', '/api/projects/', t.personalKey, { name: 'bystander' });
  assert.is(other.status, 201);
  const run = await invoke({ configuration: { hog: "print('hello'); return 2" }, globals: { event: EVENT } }, other.body.id);
  assert.is(run.status, 200);
  assert.is(run.body.result, 2);
  assert.is((await create({ hog: 'return 3' }, other.body.id)).status, 201);
  // Answered while both hanging test runs still wait for their endpoint.
  assert.is(settled, 0);

  for (const res of held) res.end('{"late":true}');
  for (const res of await Promise.all([first, second])) {
    assert.is(res.status, 200);
    assert.is(res.body.status, 'success');
    assert.equal(res.body.result, { status: 200, body: { late: true } });
  }
  // Their slots are free again.
  assert.is((await invoke({ configuration: { hog: 'return 4' }, globals: { event: EVENT } })).body.result, 4);
});

s('throughout, the liveness probe answered every time it asked and no answer was a 5xx', () => assertServedThroughout(watch, statuses));

s('saves whose code keeps the parser busy past the fast lane\'s deadline, in two projects at once, move to the slow lane: a third project\'s save is answered while both still compile', async () => {
  // 40 chained float literals: the WASM parser's prediction takes ~20 s of a core on them, though
  // the source is short and flat (no bound before the parser can tell it from ordinary code).
  const slowCode = `return ${Array(40).fill('1.5').join(' + ')}`;
  const projects = await Promise.all(['slow a', 'slow b', 'bystander saves'].map((name) => call('POST', '/api/projects/', t.personalKey, { name })));
  for (const p of projects) assert.is(p.status, 201);
  let settled = 0;
  // Not awaited: each compiles up to the slow lane's deadline; the server's close, right
  // after this last case, ends them (they would burn a core beside the probes above).
  for (const p of projects.slice(0, 2)) void create({ hog: slowCode }, p.body.id).finally(() => { settled++; }).catch(() => undefined);
  // Both fast threads are busy with them now; this save waits for the fast lane's deadline
  // to free one, not for either compile to end. Its program is a few lines, so that its own
  // compile stays inside the fast lane's deadline even on a loaded machine (a template's
  // 0.1–0.4 s took more than the deadline at load ~20 and queued behind the slow two).
  const saved = await create({ hog: "let total := 0\nfor (let i := 0; i < 3; i := i + 1) { total := total + i }\nreturn total" }, projects[2].body.id);
  assert.is(saved.status, 201, JSON.stringify(saved.body));
  assert.is(settled, 0);
});

s.run();
