// Issue 27's hostile code and queries against one real server (the CLI's `serve`, a
// process of its own, as hostile-input's crowd): Hog that asks for more memory than its
// bounds (in a destination, a test run and `hedgerow hog run`), a test run whose fetch
// never answers beside another project's, sources nested to stall the parser (Hog and an
// EventsQuery select), the queries that answered 500, an orderBy with trailing SQL, and an
// accepted event past DuckDB's default object size, which insights must count. Each fails
// alone with a 4xx or a logged error, or is served; /_liveness is probed from a thread of
// its own throughout: no probe fails and no answer is a 5xx. (The same cases in process,
// with their exact messages: test/hog/hostile-code, test/insights/hostile-query.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ServerResponse } from 'node:http';
import { request } from '../helpers/http.js';
import { eventually } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';
import { bannerKeys, cliServe, cliStop, type CliKeys, type CliServed } from '../helpers/cli-server.js';
import { startSink, type Sink } from '../helpers/http-sink.js';
import { watchServer, type Watch } from '../helpers/server-watch.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const MB = 1024 * 1024;

const s = suite('hostile code and queries beside everyone else');
let dataDir: string;
let keys: CliKeys;
let served: CliServed;
let sink: Sink;
let watch: Watch;
// Every answer the server gave in this suite: none may be a 5xx.
const answers: string[] = [];

const call = async (method: string, path: string, body?: unknown) => {
  const r = await request(`${served.url}${path}`, {
    method, headers: { Authorization: `Bearer ${keys.personal_api_key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  answers.push(`${r.status} ${method} ${path}`);
  return r;
};
const capture = async (batch: unknown[]) => {
  const r = await request(`${served.url}/batch/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: keys.project_api_key, batch }) });
  answers.push(`${r.status} POST /batch/`);
  return r;
};
const fns = (project = keys.project_id) => `/api/environments/${project}/hog_functions/`;
const invoke = (body: unknown, project?: number) => call('POST', `${fns(project)}new/invocations/`, body);
const query = (q: Record<string, unknown>, project = keys.project_id) => call('POST', `/api/environments/${project}/query/`, { query: q, refresh: 'force_blocking' });
const events = (extra: Record<string, unknown>) => query({ kind: 'EventsQuery', select: ['event'], ...extra });
const count = (event: string, project?: number) => query({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event }], dateRange: { date_from: '-1d' }, trendsFilter: { display: 'BoldNumber' } }, project);
const total = (r: { body: { results?: { aggregated_value?: number }[] } }) => (r.body.results ?? []).reduce((sum, x) => sum + (x.aggregated_value ?? 0), 0);
const nested = (depth: number) => '('.repeat(depth) + '1' + ')'.repeat(depth);
const EVENT = { uuid: '0190b4b4-0000-7000-8000-0000000000e1', event: 'hostile', distinct_id: 'mallory', properties: {}, timestamp: '2026-01-02T03:04:05.000Z' };

function refused(r: { status: number; body: { attr?: string | null } }, attr: string | null) {
  assert.is(r.status, 400, JSON.stringify(r.body));
  assert.is(r.body.attr, attr);
}

s.before(async () => {
  sink = await startSink();
  dataDir = tempDir('hedgerow-hostile-code-');
  // A first start on an empty data dir makes the project and prints its keys: no `init` child.
  served = await cliServe(dataDir, { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1' });
  keys = await bannerKeys(served);
  await eventually(async () => (await request(`${served.url}/_readiness`)).status === 200, 30_000);
  watch = watchServer(served.url, served.child.pid!);
});
s.after(async () => {
  await cliStop(served.child, 'SIGTERM');
  await sink.close();
  rmSync(dataDir, { recursive: true, force: true });
});

s('range(100000000) in a destination fails that function alone, logged; a test run of it answers its memory error; the server stays up', async () => {
  const fn = await call('POST', fns(), { enabled: true, hog: 'return length(range(100000000))', filters: { events: [{ id: 'hostile', type: 'events' }] } });
  assert.is(fn.status, 201, JSON.stringify(fn.body));
  assert.is((await capture([{ event: 'hostile', distinct_id: 'mallory' }])).status, 200);
  const logs = await eventually(async () => {
    const r = await call('GET', `${fns()}${fn.body.id}/logs/?level=error`);
    return r.body.results.length > 0 ? r.body.results as { message: string }[] : null;
  }, 30_000);
  assert.match(logs[0].message, /Memory limit of 67108864 bytes exceeded/);
  const run = await invoke({ configuration: { hog: 'return length(range(100000000))' }, globals: { event: EVENT } });
  assert.is(run.status, 200);
  assert.is(run.body.status, 'error');
  assert.match(run.body.errors[0], /^Memory limit of 67108864 bytes exceeded/);
  assert.is(served.child.exitCode, null);
});

s('hedgerow hog run of range(100000000) fails with the memory error, not an abort', async () => {
  const child = spawn(process.execPath, [MAIN, 'hog', 'run', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  child.stdout.resume();
  child.stdin.end('return length(range(100000000))');
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.once('exit', (c, sig) => resolve([c, sig])));
  assert.equal([code, signal], [1, null]);
  assert.match(stderr, /HogVMException: Memory limit of 67108864 bytes exceeded/);
});

s('a test run whose fetch never answers does not hold up another project: its test run and its save are answered', async () => {
  const held: ServerResponse[] = [];
  sink.respond = (req, res) => {
    if (req.path === '/hang') held.push(res);
    else res.end('{"ok":true}');
  };
  const hanging = invoke({ configuration: { hog: `return fetch('${sink.url}/hang')` }, globals: { event: EVENT }, mock_async_functions: false });
  await eventually(async () => held.length === 1);
  const other = await call('POST', '/api/projects/', { name: 'bystander' });
  assert.is(other.status, 201);
  const run = await invoke({ configuration: { hog: 'return 2' }, globals: { event: EVENT } }, other.body.id);
  assert.is(run.status, 200);
  assert.is(run.body.status, 'success');
  assert.is((await call('POST', fns(other.body.id), { hog: 'return 3' })).status, 201);
  // Answered while the first still waits on its fetch.
  assert.is(held.length, 1);
  for (const res of held) res.end('{"late":true}');
  assert.is((await hanging).status, 200);
});

s('400 nested parentheses in Hog and an EventsQuery select nested 400 levels are refused before the parser; another project counts meanwhile', async () => {
  const hog = await call('POST', fns(), { hog: `return ${nested(400)}` });
  refused(hog, 'hog');
  assert.is(hog.body.code, 'source_too_deep');
  const run = await invoke({ configuration: { hog: `return ${nested(400)}` }, globals: { event: EVENT } });
  assert.is(run.status, 400);
  assert.match(run.body.configuration.hog[0], /400 levels deep; at most 32 are accepted/);
  refused(await events({ select: [nested(400)] }), 'select.0');
  const other = await call('POST', '/api/projects/', { name: 'counting' });
  assert.is((await count('anything', other.body.id)).status, 200);
});

s('the queries that answered 500 answer 400 or their results; an orderBy with trailing SQL is refused as where refuses it', async () => {
  const batch = [1, 2].map((n) => ({ event: 'named', distinct_id: `n${n}`, properties: { constructor: 'c1', toString: 't1' } }));
  assert.is((await capture(batch)).status, 200);
  await eventually(async () => total(await count('named')) === 2, 30_000);
  refused(await events({ select: ['event', 'count()'], orderBy: ['timestamp'] }), 'orderBy.0');
  refused(await events({ personId: 'not-a-uuid' }), 'personId');
  const selected = await events({ select: ['properties.constructor', 'properties.__proto__'], where: ["event = 'named'", "properties.constructor = 'c1'"] });
  assert.is(selected.status, 200, JSON.stringify(selected.body));
  assert.equal(selected.body.results, [['c1', null], ['c1', null]]);
  const filtered = await query({
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'named' }], dateRange: { date_from: '-1d' }, trendsFilter: { display: 'BoldNumber' },
    properties: [{ key: 'constructor', value: 'c1', operator: 'exact', type: 'event' }],
  });
  assert.is(total(filtered), 2);
  const broken = await query({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'named' }], breakdownFilter: { breakdown: '__proto__', breakdown_type: 'event' } });
  assert.is(broken.status, 200);
  refused(await query({ kind: '__proto__' }), 'kind');
  refused(await events({ orderBy: ['timestamp; DROP TABLE events'] }), 'orderBy.0');
  refused(await events({ where: ['timestamp; DROP TABLE events'] }), 'where.0');
});

s('an accepted event of 17 MiB reaches insights', async () => {
  assert.is((await capture([{ event: 'huge', distinct_id: 'hugh', properties: { blob: 'x'.repeat(17 * MB) } }])).status, 200);
  await eventually(async () => total(await count('huge')) === 1, 30_000);
  const metrics = (await request(`${served.url}/metrics`)).body as string;
  assert.match(metrics, /^hedgerow_log_dead_letters 0$/m);
});

s('throughout, /_liveness answered every probe and no answer was a 5xx', async () => {
  const seen = await watch.stop();
  assert.ok(seen.probes >= 10, JSON.stringify(seen));
  assert.is(seen.failedProbes, 0, JSON.stringify(seen));
  assert.equal(answers.filter((a) => Number(a.slice(0, 3)) >= 500), []);
  assert.is(served.child.exitCode, null);
  // How slow the slowest probe was is measured, not asserted (bench/hostile-neighbours.js).
  console.log(`    hostile code and queries: ${answers.length} answers, ${seen.probes} probes, slowest ${seen.slowestProbeMs.toFixed(0)} ms, RSS ${(seen.startRssBytes / MB).toFixed(0)} MB at the start, peak ${(seen.peakRssBytes / MB).toFixed(0)} MB`);
});

s.run();
