// The insights consumer alone (issue 26: insights ingest ≥ 150,000 events/s): a real
// `hedgerow serve` takes `--events` posthog-js-like events (bench/sdk-traffic, 50 per gzipped
// /batch/ request) and stores them with their persons; it is stopped, and then each run, in a
// child process of its own, runs the insights consumer over the whole log into a fresh
// columnar store, as the service's aggregation worker does (src/log/consumers runConsumer:
// the log read in the consumer's batches, its frames decoded, each event's row and person read
// back, the load into DuckDB), with nothing else running. Reported per run: events/s (wall
// time from start to the consumer's position at the log's end), CPU µs per event of the
// consumer's thread and of the whole process (DuckDB's threads included), and a digest of
// the columnar store's events, persons and distinct ids (equal digests: the trees loaded the
// same rows, the same property text).
// With `--baseline DIR` (another built checkout), runs alternate between this tree and it,
// `--pairs` times, each over the same prepared log.
//   node dist/bench/insights-consumer.js [--events 100000] [--shape sdk|small] [--devices 10000] [--pairs 3] [--baseline DIR] [--keep DIR] [--record] [--label TEXT]
//   node --cpu-prof --cpu-prof-dir=DIR dist/bench/insights-consumer.js --run --data DIR   (one run, this tree; bench/profile-top reads it)
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { root } from './ceiling.js';
import { cpuOf } from './proc.js';
import { createTraffic, uuidv7 } from './sdk-traffic.js';
import { initDataDir, scrapeMetrics, startServe } from './serve-child.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '100000' },
  devices: { type: 'string', default: '10000' },
  // sdk: posthog-js-like events (~40 properties, ~2.5 KB); small: bench/load-1m's $pageview
  // with four properties (~330 bytes) from 100,000 distinct ids, 100 per request.
  shape: { type: 'string', default: 'sdk' },
  pairs: { type: 'string', default: '3' },
  baseline: { type: 'string' },
  // Prepare the log in this directory (kept), or reuse it when it holds one.
  keep: { type: 'string' },
  // A child's one run: the tree to import (default this one) over the prepared data dir.
  run: { type: 'boolean', default: false },
  data: { type: 'string' },
  tree: { type: 'string' },
  record: { type: 'boolean', default: false },
  label: { type: 'string' },
} });
const PER_BODY = 50;
const SMALL_BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RunResult { events: number; seconds: number; threadUs: number; processUs: number; digest: string }

// One run in this process: the consumer of `tree` over `dataDir`'s log, from position 0, into a fresh columnar store.
async function runOnce(tree: string, dataDir: string): Promise<RunResult> {
  const dist = (p: string) => import(join(tree, 'dist/src', p));
  const { openStore } = await dist('store/index.js');
  const { tables } = await dist('tables.js');
  const { createLmdbLogReader, newestSeq } = await dist('log/lmdb-log.js');
  const { LMDB_LOG_ID } = await dist('log/types.js');
  const { consumerPosition, runConsumer } = await dist('log/consumers/index.js');
  const { captureCodec } = await dist('capture/frames.js');
  const { insightsConsumer } = await dist('insights/consumer.js');
  for (const f of ['insights.duckdb', 'insights.duckdb.wal', 'insights.duckdb.tmp']) rmSync(join(dataDir, f), { recursive: true, force: true });
  const store = openStore(dataDir, tables);
  const end = newestSeq(store);
  const position = consumerPosition(store, insightsConsumer.name, LMDB_LOG_ID);
  await position.commit(0);
  const events = store.eventRows.getCount();
  const controller = new AbortController();
  const cpu0 = cpuOf(process.pid);
  const t0 = performance.now();
  const reader = createLmdbLogReader(store, captureCodec, Math.min(16 * 1024 * 1024, insightsConsumer.batchBytes ?? Infinity));
  const running = runConsumer(insightsConsumer, { store, reader, signal: controller.signal, settings: { dataDir } });
  while ((position.read() ?? 0) < end) await sleep(5);
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuOf(process.pid);
  controller.abort();
  await running;
  await store.close();
  // What was loaded, read back with DuckDB's own client.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(join(dataDir, 'insights.duckdb'));
  const c = await db.connect();
  const digest = async (q: string) => JSON.stringify((await c.runAndReadAll(q)).getRowsJS()[0], (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  const e = await digest(`SELECT count(*), sum(hash(uuid, event, distinct_id, person_id, timestamp, session_id, current_url, pathname, host, browser, os, device_type, referring_domain, lib, properties::VARCHAR)) FROM events`);
  const p = await digest(`SELECT count(*), sum(hash(id, created_at, properties::VARCHAR, is_identified)) FROM persons`);
  const d = await digest(`SELECT count(*), sum(hash(distinct_id, person_id)) FROM person_distinct_ids`);
  c.closeSync();
  db.closeSync();
  return { events, seconds, threadUs: cpu1.main - cpu0.main, processUs: cpu1.total - cpu0.total, digest: `events ${e}, persons ${p}, ids ${d}` };
}

if (args.run) {
  const result = await runOnce(resolve(args.tree ?? root), resolve(args.data!));
  console.log(JSON.stringify(result));
  process.exit(0);
}

const lines: string[] = [];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

// The log, stored by a real server (its own insights consumer's work is thrown away by each run).
async function prepare(dataDir: string): Promise<void> {
  const keys = initDataDir(dataDir);
  const server = await startServe({ dataDir, env: { HEDGEROW_RATE_LIMIT_PER_MINUTE: '1000000' } });
  // A position of the bench's own: log retention keeps every record for the runs.
  const { openStore } = await import('../src/store/index.js');
  const { tables } = await import('../src/tables.js');
  const held = openStore(dataDir, tables);
  await held.positions.put('bench-insights-consumer', 0);
  await held.close();
  const traffic = createTraffic({ token: keys.project_api_key, devices: Number(args.devices), newDeviceShare: 0.02, seed: 26 });
  const events = Number(args.events);
  const started = Date.now();
  const perBody = args.shape === 'small' ? 100 : PER_BODY;
  for (let sent = 0; sent < events; sent += perBody) {
    const count = Math.min(perBody, events - sent);
    let body: Buffer;
    if (args.shape === 'small') {
      const ts = new Date(started + sent / perBody).toISOString();
      const batch = Array.from({ length: count }, (_, k) => {
        const i = sent + k;
        const p = (i * 7919) % 100_000;
        return { event: '$pageview', distinct_id: `user-${p}`, uuid: uuidv7(started + i), timestamp: ts,
          properties: { $browser: SMALL_BROWSERS[p % 4], $current_url: `https://example.com/p/${i % 100}`, $session_id: `s-${p}`, plan: p % 3 ? 'free' : 'paid' } };
      });
      body = gzipSync(JSON.stringify({ api_key: keys.project_api_key, batch }));
    } else {
      body = gzipSync(JSON.stringify(Array.from({ length: count }, (_, i) => traffic.next(started + sent * 2 + i))));
    }
    const r = await fetch(`${server.base}/batch/?compression=gzip-js`, { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } });
    if (r.status !== 200) throw new Error(`capture answered ${r.status}`);
  }
  for (;;) {
    const m = await scrapeMetrics(server.base);
    if ([...m].every(([k, v]) => !k.startsWith('hedgerow_consumer_lag_events{') || v === 0)) break;
    await sleep(500);
  }
  await server.stop();
}

const work = args.keep ? resolve(args.keep) : mkdtempSync(join(tmpdir(), 'hedgerow-bench-insights-consumer-'));
const dataDir = join(work, 'data');
try {
  if (!existsSync(join(dataDir, 'hedgerow.lmdb'))) await prepare(dataDir);
  const trees = [{ name: 'this tree', dir: root }];
  if (args.baseline) trees.push({ name: 'baseline', dir: resolve(args.baseline) });
  const shape = args.shape === 'small' ? 'bench/load-1m-like $pageview events (4 properties) from 100,000 distinct ids' : `posthog-js-like events from ${args.devices} devices`;
  say(`Node ${process.version}; ${args.events} ${shape}, stored with their persons; DuckDB threads: default (cores); load average before: ${load()}`);
  say();
  say('| run | tree | events | s | events/s | consumer thread µs/event | process µs/event | digest |');
  say('|---|---|---:|---:|---:|---:|---:|---|');
  const results = new Map<string, RunResult[]>(trees.map((t) => [t.name, []]));
  for (let pair = 1; pair <= Number(args.pairs); pair++) {
    for (const t of pair % 2 ? trees : [...trees].reverse()) {
      const out = execFileSync('nice', ['-n', '5', process.execPath, join(root, 'dist/bench/insights-consumer.js'), '--run', '--data', dataDir, '--tree', t.dir], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const r = JSON.parse(out.trim().split('\n').pop()!) as RunResult;
      results.get(t.name)!.push(r);
      say(`| ${pair} | ${t.name} | ${fmt(r.events)} | ${r.seconds.toFixed(2)} | ${fmt(r.events / r.seconds)} | ${(r.threadUs / r.events).toFixed(1)} | ${(r.processUs / r.events).toFixed(1)} | ${r.digest} |`);
    }
  }
  if (args.baseline) {
    const [a, b] = [results.get('this tree')!, results.get('baseline')!];
    const ratios = (f: (r: RunResult) => number) => a.map((r, i) => (f(r) / f(b[i])).toFixed(2)).join(', ');
    say();
    say(`Ratios this tree ÷ baseline, pair by pair: events/s ${ratios((r) => r.events / r.seconds)}; consumer thread µs/event ${ratios((r) => r.threadUs / r.events)}; process µs/event ${ratios((r) => r.processUs / r.events)}.`);
  }
  say(`Load average after: ${load()}.`);
} finally {
  if (!args.keep) rmSync(work, { recursive: true, force: true });
}

if (args.record) {
  const date = new Date().toISOString().slice(0, 10);
  appendFileSync(join(root, 'bench/RESULTS.md'), `\n## Insights consumer alone${args.label ? `: ${args.label}` : ''} (${date})\n\nCommand: \`node dist/bench/insights-consumer.js ${process.argv.slice(2).join(' ')}\`\n\n${lines.join('\n')}\n`);
}
process.exit(0);
