// Destinations (issue 16, item 6): the real `hedgerow serve` (its own process, pinned to
// CPU 0 with all its threads: HTTP, event store, destinations consumer, Hog workers) with
// HEDGEROW_HOG_FETCH_ALLOW=127.0.0.1, a local sink in another process (bench/destinations-sink,
// CPU 1) and 10 webhook functions made through the API from the webhook template, with
// mixed filters of which 3 match the captured $pageview events (the others: other event
// names, which the name pre-check settles, and property filters that run and fail).
//   1. Through the consumer: `--events` (default 20,000) $pageview events captured on
//      /batch/ (500 per request, 4 in flight) as fast as the server takes them; reported: the
//      time until the event store had them, until the destinations consumer's position
//      reached the end, and until the sink had all 3 × events deliveries (events/s = events
//      ÷ that; or until the 3 matching functions' metrics settle every event, when the
//      machine timed some out), and the filter evaluations that took (10 per event). The
//      sink's counts and the functions' metrics are checked against what they must be.
//   2. Filter evaluations/s: tinybench over the filter bytecode the API compiled, on the
//      filter globals of one such event (each function's filters alone, the 10 in a row as
//      the pipeline runs them, and the worker's whole prepare step for the event).
//   3. Capture with and without destinations, same run: `--rounds` (3) rounds of a closed
//      loop on /i/v0/e/ (one event per request, 64 keep-alive connections, from this process
//      on CPU 1) for `--seconds` (5) with the 10 functions disabled and with them enabled,
//      the order alternating by round. Between phases the functions are disabled (what
//      was still queued is dropped) and the event store and destinations consumers catch up.
//   node dist/bench/destinations.js [--events 20000] [--rounds 3] [--seconds 5] [--time 1000] [--record]
// --record appends a dated section to bench/RESULTS.md. BENCH_SERVER_NODE_ARGS passes node
// options to the server (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
// The server runs with HEDGEROW_RATE_LIMIT_PER_MINUTE raised: the bench polls the API.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { initHog, execute } from '../src/hog/index.js';
import { filterGlobals, type EventContext } from '../src/destinations/runtime/globals.js';
import { passes, prepareInvocations } from '../src/destinations/runtime/prepare.js';
import type { RunnableFunction } from '../src/destinations/runtime/runnable.js';
import type { StoredFilters } from '../src/destinations/types.js';
import { captureEvent, cpuOf, root, startPinned } from './ceiling.js';
import { percentile, postRequest } from './fixed-rate.js';
import { cliEntry } from './cli-entry.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '20000' },
  rounds: { type: 'string', default: '3' },
  seconds: { type: 'string', default: '5' },
  time: { type: 'string', default: '1000' },
  record: { type: 'boolean', default: false },
} });
const EVENTS = Number(args.events);
const ROUNDS = Number(args.rounds);
const SECONDS = Number(args.seconds);
const TIME_MS = Number(args.time);
const PER_REQUEST = 500;
const IN_FLIGHT = 4;
const CONNECTIONS = 64;

const lines: string[] = [];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

// This process (load generator, API calls) on CPU 1.
execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });

function startSink(): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', '1', process.execPath, 'dist/bench/destinations-sink.js'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout!.once('data', (d) => resolve({ child, port: JSON.parse(String(d).split('\n')[0]).port }));
    child.on('exit', (code) => reject(new Error(`sink exited (${code})`)));
  });
}

const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-destinations-'));
const dataDir = join(work, 'data');
const init = JSON.parse(execFileSync(process.execPath, [cliEntry(root), 'init', '--data', dataDir, '--json'], { cwd: root, encoding: 'utf8' }));
const sink = await startSink();
const sinkUrl = `http://127.0.0.1:${sink.port}`;
process.env.HEDGEROW_HOG_FETCH_ALLOW = '127.0.0.1';
// The bench polls the management API (metrics) and PATCHes functions between phases: not
// what the management rate limit (480 a minute by default) is for.
process.env.HEDGEROW_RATE_LIMIT_PER_MINUTE = '1000000';
// BENCH_SERVER_NODE_ARGS: node options for the server (e.g. --cpu-prof --cpu-prof-dir=/tmp/p).
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const server = await startPinned([...serverNodeArgs, cliEntry(root), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info', '--geoip-db', 'none']);
const base = `http://127.0.0.1:${server.port}`;
const auth = { Authorization: `Bearer ${init.personal_api_key}`, 'Content-Type': 'application/json' };
const fnsPath = `${base}/api/environments/${init.project_id}/hog_functions/`;

async function api(method: string, url: string, body?: unknown): Promise<any> {
  const r = await fetch(url, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

async function metric(name: string, consumer: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = new RegExp(`^${name}\\{consumer="${consumer}"\\} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}
const lag = (consumer: string) => metric('hedgerow_consumer_lag_events', consumer);
const sinkCounts = async (): Promise<Record<string, number>> => (await fetch(`${sinkUrl}/_counts`)).json() as Promise<Record<string, number>>;
const delivered = async () => Object.values(await sinkCounts()).reduce((a, b) => a + b, 0);

// The captured events: captureEvent's $pageview (pricing URL, Firefox, Linux, plan pro).
const F = (key: string, value: unknown, operator: string, type = 'event') => ({ key, value, operator, type });
const pageview = (properties: unknown[] = []) => ({ events: [{ id: '$pageview', name: '$pageview', type: 'events', order: 0, properties }] });
const FUNCTIONS: { name: string; matches: boolean; filters: Record<string, unknown> }[] = [
  { name: 'pageviews', matches: true, filters: pageview() },
  { name: 'pricing pageviews', matches: true, filters: pageview([F('$current_url', 'pricing', 'icontains')]) },
  { name: 'pro plan, any event', matches: true, filters: { properties: [F('plan', ['pro'], 'exact')] } },
  { name: 'signups', matches: false, filters: { events: [{ id: 'signed up', type: 'events' }] } },
  { name: 'autocapture', matches: false, filters: { events: [{ id: '$autocapture', type: 'events' }] } },
  { name: 'Safari pageviews', matches: false, filters: pageview([F('$browser', ['Safari'], 'exact')]) },
  { name: 'docs pageviews', matches: false, filters: pageview([F('$current_url', '/docs/', 'regex')]) },
  { name: 'free plan pageviews', matches: false, filters: { ...pageview(), properties: [F('plan', ['pro'], 'is_not')] } },
  { name: 'staff, any event', matches: false, filters: { properties: [F('email', '@example.com', 'icontains', 'person')] } },
  { name: 'Windows pageviews or identifies', matches: false, filters: { events: [{ id: '$pageview', type: 'events' }, { id: '$identify', type: 'events' }], properties: [F('$os', ['Windows'], 'exact')] } },
];

// A closed loop on one path: each connection sends its next request when the last is answered.
async function closedLoop(path: string, bodies: string[], ms: number): Promise<{ rps: number; p50: number; p99: number; non2xx: number; cpuUsPerReq: number }> {
  const requests = bodies.map((b) => postRequest('127.0.0.1', path, b));
  const latencies: number[] = [];
  let non2xx = 0;
  let next = 0;
  let running = true;
  const sockets: Socket[] = [];
  await Promise.all(Array.from({ length: CONNECTIONS }, () => new Promise<void>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, noDelay: true }, () => resolve());
    socket.on('error', reject);
    sockets.push(socket);
  })));
  const cpu0 = cpuOf(server.child.pid!);
  const start = performance.now();
  await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => {
    let buf: Buffer = Buffer.alloc(0);
    let sent = 0;
    const send = () => {
      sent = performance.now();
      socket.write(requests[next++ % requests.length]);
    };
    socket.on('data', (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.toString('latin1', 0, end);
        const total = end + 4 + Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < total) return;
        buf = buf.subarray(total);
        const status = Number(head.slice(9, 12));
        if (status < 200 || status >= 300) non2xx++;
        const now = performance.now();
        latencies.push(now - sent);
        if (running && now - start < ms) send();
        else return resolve();
      }
    });
    send();
  })));
  running = false;
  const elapsed = performance.now() - start;
  const cpu1 = cpuOf(server.child.pid!);
  for (const s of sockets) s.destroy();
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: latencies.length / (elapsed / 1000), p50: percentile(sorted, 50), p99: percentile(sorted, 99), non2xx,
    cpuUsPerReq: (cpu1.total - cpu0.total) / latencies.length,
  };
}

async function caughtUp(limitMs: number): Promise<number> {
  const t = performance.now();
  while (performance.now() - t < limitMs) {
    if ((await lag('event_store')) === 0 && (await lag('destinations')) === 0) return performance.now() - t;
    await sleep(100);
  }
  throw new Error('the consumers did not catch up');
}

const ids: string[] = [];
// Events the 3 matching functions have settled: delivered, failed or not filtered.
async function settled(): Promise<number> {
  let n = 0;
  for (const [i, id] of ids.entries()) {
    if (!FUNCTIONS[i].matches) continue;
    const totals = (await api('GET', `${fnsPath}${id}/metrics/totals/?breakdown_by=name`)).totals as Record<string, number>;
    n += (totals.succeeded ?? 0) + (totals.failed ?? 0) + (totals.filtering_failed ?? 0) + (totals.inputs_failed ?? 0);
  }
  return n;
}
async function setEnabled(enabled: boolean): Promise<void> {
  for (const id of ids) await api('PATCH', `${fnsPath}${id}/`, { enabled });
}

try {
  while ((await fetch(`${base}/_readiness`).then((r) => r.status, () => 0)) !== 200) await sleep(100);
  say(`Node ${process.version}; hedgerow serve pinned to CPU 0 (HTTP, consumers and its Hog worker pool, HEDGEROW_HOG_WORKERS default), this process and the sink on CPU 1; load average before: ${load()}`);

  const created: any[] = [];
  for (const [i, f] of FUNCTIONS.entries()) {
    created.push(await api('POST', fnsPath, {
      template_id: 'template-webhook', name: f.name, enabled: true, filters: f.filters,
      inputs: { url: { value: `${sinkUrl}/fn-${i}` }, body: { value: { event: '{event.event}', uuid: '{event.uuid}', url: '{event.properties.$current_url}', person: '{person.id}' } } },
    }));
    ids.push(created[i].id);
  }

  // 1. Events through the destinations consumer.
  const bodies: string[] = [];
  for (let sent = 0; sent < EVENTS; sent += PER_REQUEST) {
    const n = Math.min(PER_REQUEST, EVENTS - sent);
    bodies.push(JSON.stringify({ api_key: init.project_api_key, batch: Array.from({ length: n }, (_, i) => captureEvent('', (sent + i) % 5000)) }));
  }
  const expected = 3 * EVENTS;
  const cpuStart = cpuOf(server.child.pid!);
  const t0 = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (const body of bodies) {
    const p = fetch(`${base}/batch/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
      .then(async (r) => { await r.arrayBuffer(); if (r.status !== 200) throw new Error(`capture answered ${r.status}`); })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const captured = performance.now() - t0;
  let storeDone = 0;
  let consumerDone = 0;
  let sinkDone = 0;
  let lastSettledCheck = 0;
  while (!sinkDone || !consumerDone) {
    if (performance.now() - t0 > 600_000) throw new Error('deliveries did not finish in 10 minutes');
    if (!storeDone && (await lag('event_store')) === 0) storeDone = performance.now() - t0;
    if (storeDone && !consumerDone && (await lag('destinations')) === 0) consumerDone = performance.now() - t0;
    // Done when the sink has every delivery, or once the consumer is through and every
    // matching function has settled each event (an overloaded machine can time a program
    // out: those count as failed, or filtering_failed, and are reported below).
    if (!sinkDone && (await delivered()) >= expected) sinkDone = performance.now() - t0;
    if (!sinkDone && consumerDone && performance.now() - lastSettledCheck > 1000) {
      lastSettledCheck = performance.now();
      if ((await settled()) >= expected) sinkDone = performance.now() - t0;
    }
    await sleep(50);
  }
  const cpuEnd = cpuOf(server.child.pid!);
  await sleep(1000);
  const counts = await sinkCounts();
  const perFunction = FUNCTIONS.map((_, i) => counts[`/fn-${i}`] ?? 0);
  const wrong = FUNCTIONS.map((f, i) => (f.matches ? EVENTS : 0) - perFunction[i]).some((d) => d !== 0);
  // Every metric of the 7 that do not match, summed by name (filtered; anything else is a surprise).
  const others: Record<string, number> = {};
  const otherErrors: string[] = [];
  for (const [i, id] of ids.entries()) {
    if (FUNCTIONS[i].matches) continue;
    const totals = (await api('GET', `${fnsPath}${id}/metrics/totals/?breakdown_by=name`)).totals as Record<string, number>;
    for (const [name, n] of Object.entries(totals)) others[name] = (others[name] ?? 0) + n;
    if (Object.keys(totals).some((name) => name !== 'filtered')) {
      const errors = (await api('GET', `${fnsPath}${id}/logs/?level=ERROR&limit=5`)).results as { message: string }[];
      for (const e of errors) otherErrors.push(`${FUNCTIONS[i].name}: ${e.message}`);
    }
  }
  const filteredTotal = others.filtered ?? 0;
  // The 3 that match: their metrics, and any retry their logs record.
  const matching: string[] = [];
  for (const [i, id] of ids.entries()) {
    if (!FUNCTIONS[i].matches) continue;
    const totals = (await api('GET', `${fnsPath}${id}/metrics/totals/?breakdown_by=name`)).totals as Record<string, number>;
    const warnings = (await api('GET', `${fnsPath}${id}/logs/?level=WARN,ERROR&limit=500`)).results as { message: string }[];
    matching.push(`${Object.entries(totals).map(([name, n]) => `${name} ${fmt(n)}`).join(', ')}; ${warnings.length} WARN/ERROR log lines${warnings.length ? ` (first: ${warnings[warnings.length - 1].message})` : ''}`);
  }
  const otherMetrics = Object.entries(others).filter(([name]) => name !== 'filtered').map(([name, n]) => `${name} ${fmt(n)}`).join(', ');
  const statuses = (await Promise.all(ids.map(async (id) => (await api('GET', `${fnsPath}${id}/`)).status?.state)));
  const rate = (ms: number) => fmt(EVENTS / (ms / 1000));
  say();
  say(`**Through the destinations consumer**: ${fmt(EVENTS)} $pageview events on /batch/ (${PER_REQUEST} per request, ${IN_FLIGHT} in flight), 10 enabled functions, 3 matching: ` +
    `captured in ${(captured / 1000).toFixed(1)} s (${rate(captured)}/s); in the event store after ${(storeDone / 1000).toFixed(1)} s (${rate(storeDone)}/s); ` +
    `destinations consumer at the log's end after ${(consumerDone / 1000).toFixed(1)} s (${rate(consumerDone)}/s); ` +
    `all ${fmt(expected)} deliveries settled after ${(sinkDone / 1000).toFixed(1)} s: **${rate(sinkDone)} events/s, ${fmt(expected / (sinkDone / 1000))} deliveries/s, ` +
    `${fmt((10 * EVENTS) / (sinkDone / 1000))} filter evaluations/s** in the pipeline. Server CPU (all threads) ${fmt((cpuEnd.total - cpuStart.total) / EVENTS)} µs per event over that time.`);
  say(`Sink per function: ${perFunction.join(', ')} (${wrong ? 'NOT as expected' : `as expected: ${fmt(EVENTS)} for each matching function, 0 for the others`}); ` +
    `the 7 others' metrics count ${fmt(filteredTotal)} filtered (expected ${fmt(7 * EVENTS)})${otherMetrics ? ` and ${otherMetrics}` : ''}; watcher states: ${statuses.join(', ')}.`);
  say(`Metrics of the 3 matching: ${matching.join(' | ')}.`);
  if (otherErrors.length > 0) say(`Errors logged by the 7 others: ${otherErrors.join(' | ')}`);

  // 2. Filter evaluations/s on the bytecode the API compiled.
  await initHog();
  const sample = captureEvent('', 7);
  const ctx: EventContext = {
    project: { id: init.project_id, name: 'Default project', url: `http://localhost/project/${init.project_id}` },
    event: { uuid: '0193a7a0-0000-7000-8000-000000000001', event: sample.event, distinct_id: sample.distinct_id, properties: sample.properties, timestamp: sample.timestamp, elements_chain: '' },
    person: { id: '0193a7a0-0000-7000-8000-0000000000aa', properties: {} },
    groups: {},
  };
  const globals = filterGlobals(ctx);
  const filters = created.map((c) => c.filters as StoredFilters);
  const runnables: RunnableFunction[] = created.map((c) => ({
    id: c.id, name: c.name, bytecode: c.bytecode, inputs: c.inputs, secretKeys: [], filters: c.filters, mappings: null, masking: null,
  }));
  for (const [i, f] of filters.entries()) {
    if ((await passes(f, ctx.event.event, globals)) !== FUNCTIONS[i].matches) throw new Error(`filters of ${FUNCTIONS[i].name} disagree with the pipeline`);
  }
  const bench = new Bench({ time: TIME_MS, warmupTime: 200 });
  const pricing = filters[1].bytecode!;
  const staff = filters[8].bytecode!;
  bench
    .add('filter bytecode alone: $pageview + $current_url icontains (matches)', () => execute(pricing, globals, { timeoutMs: 100 }))
    .add('filter bytecode alone: person email icontains (no match)', () => execute(staff, globals, { timeoutMs: 100 }))
    .add('the 10 functions\' filters in a row (name pre-check, then bytecode)', async () => {
      for (const f of filters) await passes(f, ctx.event.event, globals);
    })
    .add('prepare step for one event (10 filters, inputs of the 3 matching)', () => prepareInvocations({ functions: runnables, events: [{ ctx, functions: runnables.map((_, i) => i) }] }));
  await bench.run();
  const ops = (name: string) => bench.getTask(name)?.result?.throughput.mean ?? NaN;
  say();
  say(`**Filter evaluations** (tinybench, ${TIME_MS} ms per task, one thread; the event's filter globals built once):`);
  say();
  say('| task | ops/s | filter evaluations/s | p99 µs |');
  say('|---|---:|---:|---:|');
  for (const t of bench.tasks) {
    const perOp = t.name.startsWith('filter bytecode') ? 1 : 10;
    say(`| ${t.name} | ${fmt(ops(t.name))} | ${fmt(ops(t.name) * perOp)} | ${fmt((t.result?.latency.p99 ?? NaN) * 1000)} |`);
  }

  // 3. Capture with and without destinations, alternating.
  const singles = Array.from({ length: 1000 }, (_, i) => JSON.stringify(captureEvent(init.project_api_key, i)));
  const results: { on: boolean; round: number; r: Awaited<ReturnType<typeof closedLoop>>; deliveries: number; behind: number }[] = [];
  await setEnabled(false);
  await caughtUp(120_000);
  // Unmeasured warm-up of the capture path (JIT, connections, the first log commits).
  await closedLoop('/i/v0/e/', singles, 2000);
  await caughtUp(120_000);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? [false, true] : [true, false];
    for (const on of order) {
      await setEnabled(on);
      await sleep(1100);
      const before = await delivered();
      const r = await closedLoop('/i/v0/e/', singles, SECONDS * 1000);
      const deliveries = (await delivered()) - before;
      const behind = await lag('destinations');
      results.push({ on, round, r, deliveries, behind });
      if (on) await setEnabled(false);
      await caughtUp(180_000);
    }
  }
  say();
  say(`**Capture with and without destinations**, same run: closed loop on /i/v0/e/ (one ~250-byte event per request, ${CONNECTIONS} connections) for ${SECONDS} s per phase, ` +
    `the 10 functions enabled ("with") or disabled ("without"), order alternating by round; the consumers caught up before each phase, after 2 s of unmeasured warm-up:`);
  say();
  say('| round | destinations | capture req/s | p50 ms | p99 ms | non-2xx | server CPU µs/req | deliveries/s during the phase | destinations lag at the end (events) |');
  say('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const { on, round, r, deliveries, behind } of results) {
    say(`| ${round} | ${on ? 'with' : 'without'} | ${fmt(r.rps)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.non2xx} | ${fmt(r.cpuUsPerReq)} | ${fmt(deliveries / SECONDS)} | ${fmt(behind)} |`);
  }
  const mean = (on: boolean) => {
    const xs = results.filter((x) => x.on === on).map((x) => x.r.rps);
    return xs.reduce((a, b) => a + b, 0) / xs.length;
  };
  say();
  say(`Capture req/s with ÷ without destinations (means of ${ROUNDS} rounds): ${(mean(true) / mean(false)).toFixed(2)}; per round: ${
    Array.from({ length: ROUNDS }, (_, i) => {
      const w = results.find((x) => x.round === i + 1 && x.on)!.r.rps;
      const wo = results.find((x) => x.round === i + 1 && !x.on)!.r.rps;
      return (w / wo).toFixed(2);
    }).join(', ')}. Load average after: ${load()}.`);
} finally {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
  sink.child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}

if (args.record) {
  const command = `npm run build && node dist/bench/destinations.js ${process.argv.slice(2).join(' ')}`.trim();
  appendFileSync(new URL('../../bench/RESULTS.md', import.meta.url), `\n## Destinations: events through the consumer, filter evaluations, capture beside them (${new Date().toISOString().slice(0, 10)})\n\nCommand: \`${command}\`\n\n${lines.join('\n')}\n`);
}
