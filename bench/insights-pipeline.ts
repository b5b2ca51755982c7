// Insights through the real pipeline: a hedgerow server (its own process) takes events on
// /batch/, the event store applies them with person processing, and the aggregation worker
// loads them into the columnar store.
//   1. Load: `--events` (default 1,000,000) events from 100,000 distinct ids sent as fast as
//      the server takes them (500 per request, 4 requests in flight); reported: capture's
//      rate, and the rate at which the columnar store had them all (events / time from the
//      first request to the aggregation worker's last load), beside the event store's.
//   2. Freshness at a steady `--rate` events/s (default 20,000) for `--seconds` (20): every
//      250 ms one marker event, and the time from its 200 to the first query that sees it
//      (an EventsQuery counting it, polled every 50 ms).
//   node dist/bench/insights-pipeline.js [--events 1000000] [--rate 20000] [--seconds 20] [--record]
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { percentile } from './fixed-rate.js';
import { root } from './ceiling.js';
import { jsonLine } from './child-line.js';
import { spawn } from 'node:child_process';
import { cliEntry } from './cli-entry.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '1000000' },
  rate: { type: 'string', default: '20000' },
  seconds: { type: 'string', default: '20' },
  record: { type: 'boolean', default: false },
} });
const EVENTS = Number(args.events);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const PER_REQUEST = 500;
const IN_FLIGHT = 4;

const lines: string[] = [];
const say = (line: string) => {
  console.log(line);
  lines.push(line);
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-pipeline-'));
const dataDir = join(work, 'data');
const init = JSON.parse(execFileSync(process.execPath, [cliEntry(root), 'init', '--data', dataDir, '--json'], { cwd: root, encoding: 'utf8' }));
const server = spawn(process.execPath, [cliEntry(root), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info', '--geoip-db', 'none'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
server.stderr!.on('data', () => {});
const port = (await jsonLine(server, 'listening', 'server')).port as number;
const base = `http://127.0.0.1:${port}`;
const auth = { Authorization: `Bearer ${init.personal_api_key}`, 'Content-Type': 'application/json' };

const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
let n = 0;
function batchBody(size: number, event = '$pageview'): string {
  const now = Date.now();
  const batch = [];
  for (let i = 0; i < size; i++, n++) {
    const p = (n * 7919) % 100_000;
    batch.push({ event, distinct_id: `user-${p}`, uuid: randomUUID(), timestamp: new Date(now).toISOString(),
      properties: { $browser: BROWSERS[p % 4], $current_url: `https://example.com/p/${n % 100}`, $session_id: `s-${p}`, plan: p % 3 ? 'free' : 'paid' } });
  }
  return JSON.stringify({ api_key: init.project_api_key, batch });
}

async function post(body: string): Promise<void> {
  const r = await fetch(`${base}/batch/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`capture answered ${r.status}`);
}

async function metric(name: string, consumer: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = new RegExp(`^${name}\\{consumer="${consumer}"\\} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

async function count(event: string): Promise<number> {
  const r = await fetch(`${base}/api/environments/${init.project_id}/query/`, {
    method: 'POST', headers: auth, body: JSON.stringify({ query: { kind: 'EventsQuery', select: ['count()'], event, after: '-1h' }, refresh: 'force_blocking' }),
  });
  const body = await r.json() as { results?: number[][] };
  return body.results?.[0]?.[0] ?? 0;
}

try {
  while ((await fetch(`${base}/_readiness`).then((r) => r.status, () => 0)) !== 200) await sleep(100);
  say(`Node ${process.version}; load average before: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  // 1. Load through the log.
  const t0 = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let sent = 0; sent < EVENTS; sent += PER_REQUEST) {
    const p = post(batchBody(Math.min(PER_REQUEST, EVENTS - sent))).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const captured = performance.now() - t0;
  let storeDone = 0;
  for (;;) {
    const [store, insights] = [await metric('hedgerow_consumer_lag_records', 'event_store'), await metric('hedgerow_consumer_lag_records', 'insights')];
    if (store === 0 && !storeDone) storeDone = performance.now() - t0;
    if (store === 0 && insights === 0) break;
    await sleep(50);
  }
  const loaded = performance.now() - t0;
  const seen = await count('$pageview');
  say(`Load: ${fmt(EVENTS)} events from 100,000 distinct ids (${PER_REQUEST} per request, ${IN_FLIGHT} in flight): captured in ${(captured / 1000).toFixed(1)} s (${fmt(EVENTS / (captured / 1000))}/s), in the event store after ${(storeDone / 1000).toFixed(1)} s (${fmt(EVENTS / (storeDone / 1000))}/s), in the columnar store after ${(loaded / 1000).toFixed(1)} s (${fmt(EVENTS / (loaded / 1000))}/s); the columnar store counts ${fmt(seen)}`);

  // 2. Freshness at a steady rate.
  const latencies: number[] = [];
  const perTick = Math.max(1, Math.round(RATE / 20));
  const end = performance.now() + SECONDS * 1000;
  let lastMarker = 0;
  const markers: Promise<void>[] = [];
  while (performance.now() < end) {
    const tick = performance.now();
    await post(batchBody(perTick));
    if (tick - lastMarker >= 250) {
      lastMarker = tick;
      const name = `marker-${randomUUID()}`;
      await post(batchBody(1, name));
      const acked = performance.now();
      markers.push((async () => {
        while ((await count(name)) === 0) await sleep(50);
        latencies.push(performance.now() - acked);
      })());
    }
    const wait = 50 - (performance.now() - tick);
    if (wait > 0) await sleep(wait);
  }
  const sentRate = (n - EVENTS) / SECONDS;
  await Promise.all(markers);
  const sorted = Float64Array.from(latencies).sort();
  say(`Freshness at ${fmt(sentRate)} events/s for ${SECONDS} s: ${latencies.length} markers visible to a query after p50 ${fmt(percentile(sorted, 50))} ms, p95 ${fmt(percentile(sorted, 95))} ms, max ${fmt(sorted[sorted.length - 1])} ms`);
  say(`Load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}

if (args.record) {
  const command = `node dist/bench/insights-pipeline.js ${process.argv.slice(2).join(' ')}`.trim();
  appendFileSync(new URL('../../bench/RESULTS.md', import.meta.url), `\n## Insights through the pipeline (${new Date().toISOString().slice(0, 10)})\n\nCommand: \`${command}\`\n\n${lines.join('\n')}\n`);
}
