// The destinations pipeline alone, what each delivery costs in CPU (issue 26, item 2: at most
// 100 µs per delivery) and whether deliveries go on while a backlog is prepared. A real
// `hedgerow serve` takes `--events` posthog-js-like events (bench/sdk-traffic, 50 per
// /batch/ request) with bench/sustained's three webhook functions made disabled (every event,
// the whole event and person; masking once per distinct id per 10 minutes; ~10% by filters),
// stores them with their persons, and is stopped once the functions are enabled. Then this
// process runs the destinations consumer over the log from its start, as the service does
// (src/log/consumers runConsumer: the handler, its Hog worker pool, its fetches to a local
// sink in another process, bench/destinations-sink), and nothing else: its CPU (all
// threads, /proc) over the run divided by the deliveries made is the pipeline's cost per
// delivery, without capture, the event store or insights beside it. A timeline shows the
// consumer's position against the deliveries made; RSS is sampled.
// `--mix short`: three functions that each send four fields of every event instead (a short
// program: what a delivery costs beside its Hog program).
//   node dist/bench/destinations-cpu.js [--events 20000] [--mix sustained|short] [--devices 10000] [--record] [--label TEXT]
// With `node --cpu-prof --cpu-prof-dir=DIR dist/bench/destinations-cpu.js`, bench/profile-top
// reads the consumer (main thread) and the Hog worker apart. Runs against any tree whose
// consumer has the ConsumerHandler interface (the same file built in a baseline worktree).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { createLmdbLogReader, newestSeq } from '../src/log/lmdb-log.js';
import { LMDB_LOG_ID } from '../src/log/types.js';
import { consumerPosition, runConsumer } from '../src/log/consumers/index.js';
import { captureCodec } from '../src/capture/frames.js';
import { destinationsConsumer, openDestinationsStore, type DestinationsSettings } from '../src/destinations/index.js';
import { root } from './ceiling.js';
import { jsonLine } from './child-line.js';
import { memoryOf, threadsCpu } from './proc.js';
import { createTraffic } from './sdk-traffic.js';
import { initDataDir, managementApi, scrapeMetrics, startServe } from './serve-child.js';
import { sustainedDestinations } from './sustained-destinations.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '20000' },
  // sustained: bench/sustained's three functions; short: three that send a few fields of every event.
  mix: { type: 'string', default: 'sustained' },
  devices: { type: 'string', default: '10000' },
  record: { type: 'boolean', default: false },
  label: { type: 'string' },
} });
const EVENTS = Number(args.events);
const PER_BODY = 50;

const lines: string[] = [];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// The kernel's name of a thread of this process (V8's and libuv's threads are named; Node's
// worker threads are all "node").
const threadName = (tid: number) => {
  try {
    return readFileSync(`/proc/${process.pid}/task/${tid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
};
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-destinations-cpu-'));
const dataDir = join(work, 'data');
const keys = initDataDir(dataDir);
const sink = spawn(process.execPath, ['dist/bench/destinations-sink.js'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const sinkUrl = `http://127.0.0.1:${(await jsonLine(sink, 'listening', 'sink')).port}`;
const counts = async (): Promise<Record<string, number>> => (await fetch(`${sinkUrl}/_counts`)).json() as Promise<Record<string, number>>;

// bench/sustained's three destinations, or three short ones.
const short = (path: string) => ({
  name: `short ${path}`, inputs: { url: { value: `${sinkUrl}/${path}` }, body: { value: { event: '{event.event}', uuid: '{event.uuid}', url: '{event.properties.$current_url}', person: '{person.id}' } } },
});
const destinations = args.mix === 'short' ? [short('fn-a'), short('fn-b'), short('fn-c')] : sustainedDestinations(sinkUrl);

try {
  // 1. The events and their persons, stored by a real server; the functions enabled last. A
  // position of this bench's own keeps log retention from pruning what the server applied.
  const held = openStore(dataDir, tables);
  await held.positions.put('bench-destinations-cpu', 0);
  await held.close();
  const server = await startServe({ dataDir, env: { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1', HEDGEROW_RATE_LIMIT_PER_MINUTE: '1000000' } });
  const api = managementApi(server.base, keys.personal_api_key);
  const fnsPath = `/api/environments/${keys.project_id}/hog_functions/`;
  const ids: string[] = [];
  for (const d of destinations) ids.push((await api('POST', fnsPath, { template_id: 'template-webhook', enabled: false, ...d })).id);
  const traffic = createTraffic({ token: keys.project_api_key, devices: Number(args.devices), newDeviceShare: 0.02, seed: 26 });
  const started = Date.now();
  for (let sent = 0; sent < EVENTS; sent += PER_BODY) {
    const events = Array.from({ length: Math.min(PER_BODY, EVENTS - sent) }, (_, i) => traffic.next(started + sent * 2 + i));
    const r = await fetch(`${server.base}/batch/?compression=gzip-js&_=${Date.now()}`, { method: 'POST', body: gzipSync(JSON.stringify(events)), headers: { 'Content-Type': 'text/plain' } });
    if (r.status !== 200) throw new Error(`capture answered ${r.status}`);
  }
  for (;;) {
    const m = await scrapeMetrics(server.base);
    const lag = [...m].filter(([k]) => k.startsWith('hedgerow_consumer_lag_events{') && !k.includes('insights')).reduce((a, [, v]) => a + v, 0);
    if (lag === 0) break;
    await sleep(500);
  }
  for (const id of ids) await api('PATCH', `${fnsPath}${id}/`, { enabled: true });
  await server.stop();
  // The events were captured while the functions were off, which keeps a consumer reading
  // them later from running them (src/destinations/off-periods.ts): forgotten here, so the
  // consumer below runs them all, as it did before that rule.
  const edited = openStore(dataDir, tables);
  for (const { key, value } of edited.hogFunctions.getRange()) await edited.hogFunctions.put(key, { ...(value as object), off_periods: undefined });
  await edited.close();

  // 2. The destinations consumer over the whole log, in this process, from a fresh destinations store.
  rmSync(join(dataDir, 'destinations.lmdb'), { force: true });
  rmSync(join(dataDir, 'destinations.lmdb-lock'), { force: true });
  const store = openStore(dataDir, tables);
  const end = newestSeq(store);
  const position = consumerPosition(store, destinationsConsumer.name, LMDB_LOG_ID);
  await position.commit(0);
  const ds = openDestinationsStore(dataDir);
  const settings: DestinationsSettings = { dataDir, siteUrl: 'http://localhost:8000', fetchAllow: '127.0.0.1', hogWorkers: 1, watcherLockMs: 60_000 };
  const loadBefore = load();
  say(`Node ${process.version}; ${EVENTS} events (${fmt(end)} log records) from ${args.devices} devices; ${args.mix === 'short' ? '3 functions sending four fields of every event' : '3 functions (every event, masking, ~10% by filters)'}; 1 Hog worker; load average before: ${loadBefore}`);
  const controller = new AbortController();
  const cpu0 = threadsCpu(process.pid);
  const t0 = Date.now();
  const consumer = runConsumer(destinationsConsumer, { store, reader: createLmdbLogReader(store, captureCodec), signal: controller.signal, settings });
  const timeline: string[] = [];
  let peakRss = 0;
  let at = 0;
  let allPrepared: number | null = null;
  let deliveredWhilePreparing = 0;
  for (;;) {
    await sleep(250);
    at += 250;
    const c = await counts();
    const rss = memoryOf(process.pid).rss;
    peakRss = Math.max(peakRss, rss);
    const pos = position.read() ?? 0;
    const delivered = (c['/fn-a'] ?? 0) + (c['/fn-b'] ?? 0) + (c['/fn-c'] ?? 0);
    if (allPrepared === null && pos >= end) {
      allPrepared = (Date.now() - t0) / 1000;
      deliveredWhilePreparing = delivered;
    }
    if (at % 1000 === 0) timeline.push(`| ${(at / 1000).toFixed(0)} | ${fmt(pos)} of ${fmt(end)} | ${fmt(c['/fn-a'] ?? 0)} / ${fmt(c['/fn-b'] ?? 0)} / ${fmt(c['/fn-c'] ?? 0)} | ${fmt(ds.queue.getCount())} | ${fmt(rss / 1024)} |`);
    if (pos >= end && ds.queue.getCount() === 0) break;
    if (at > 1_800_000) throw new Error('not through in 30 minutes');
  }
  const seconds = (Date.now() - t0) / 1000;
  const cpu1 = threadsCpu(process.pid);
  const c = await counts();
  controller.abort();
  await consumer;
  const byThread = [...cpu1].map(([tid, us]) => [tid, us - (cpu0.get(tid) ?? 0)] as const).filter(([, us]) => us > 0).sort((a, b) => b[1] - a[1]);
  const total = byThread.reduce((s, [, us]) => s + us, 0);
  const deliveries = (c['/fn-a'] ?? 0) + (c['/fn-b'] ?? 0) + (c['/fn-c'] ?? 0);
  say(`Through in ${seconds.toFixed(1)} s: **${fmt(EVENTS / seconds)} events/s, ${fmt(deliveries / seconds)} deliveries/s**; deliveries a / b / c: ${fmt(c['/fn-a'] ?? 0)} / ${fmt(c['/fn-b'] ?? 0)} / ${fmt(c['/fn-c'] ?? 0)}.`);
  say(`CPU (this process, every thread) ${(total / 1e6).toFixed(1)} s: **${fmt(total / deliveries)} µs per delivery**, ${fmt(total / EVENTS)} µs per event; by thread (µs per delivery): ${byThread.slice(0, 8).map(([tid, us]) => `${tid === process.pid ? 'consumer' : threadName(tid)} ${fmt(us / deliveries)}`).join(', ')}.`);
  // What the functions' metrics counted (failures would show here).
  const metric = new Map<string, number>();
  for (const { key, value } of ds.metrics.getRange()) {
    const name = `${destinations[ids.indexOf(key[0])]?.name ?? key[0]}: ${key[3]}`;
    metric.set(name, (metric.get(name) ?? 0) + value);
  }
  say(`Metrics: ${[...metric].map(([k, v]) => `${k} ${fmt(v)}`).join('; ')}.`);
  const errors = [...ds.logs.getRange()].filter(({ value }) => value.level === 'ERROR' || value.level === 'WARN');
  if (errors.length > 0) {
    const kinds = new Map<string, number>();
    for (const { value } of errors) {
      const kind = value.message.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<uuid>').replace(/\d+/g, 'N');
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    say(`WARN/ERROR log lines: ${errors.length}: ${[...kinds].map(([k, n]) => `${n} × "${k}"`).join('; ')}.`);
  }
  say(`The consumer's position reached the log's end after ${allPrepared?.toFixed(1) ?? '–'} s, with ${fmt(deliveredWhilePreparing)} deliveries made by then (${fmt((100 * deliveredWhilePreparing) / Math.max(deliveries, 1))}%). Peak RSS sampled ${fmt(peakRss / 1024)} MB. Load average after: ${load()}.`);
  say();
  say('<details><summary>Timeline</summary>');
  say();
  say('| s | consumer position (records) | delivered a / b / c | queued in the store | RSS MB |');
  say('|---:|---|---|---:|---:|');
  for (const l of timeline) say(l);
  say();
  say('</details>');
  await ds.close();
  await store.close();
} finally {
  sink.kill();
  rmSync(work, { recursive: true, force: true });
}

if (args.record) {
  const date = new Date().toISOString().slice(0, 10);
  appendFileSync(join(root, 'bench/RESULTS.md'), `\n## Destinations pipeline alone, CPU per delivery${args.label ? `: ${args.label}` : ''} (${date})\n\nCommand: \`node dist/bench/destinations-cpu.js ${process.argv.slice(2).join(' ')}\`\n\n${lines.join('\n')}\n`);
}
process.exit(0);
