// Capture's rate with the destinations running against without (issue 26, item 2: "capture's
// req/s with the destinations running ≥ 0.9 of without, same run"). For each round, two
// fresh `hedgerow serve`s of this build, one after the other (order alternating by round),
// each on CPU 0 with every thread, wrk on CPU 1 (bench/ceiling): single-event /i/v0/e/ at
// `--connections` for `--duration` s after `--warmup` s. One server has no hog functions; the
// other has bench/sustained's three webhook destinations (bench/sustained-destinations),
// delivering to bench/destinations-sink on CPU 1. The event is capture's bench event (a
// pricing $pageview: every function matches it), so the destinations consumer has more to
// deliver than it can and runs the whole window: the worst case for capture. Not waited
// for: the consumers' backlog (the destinations' would not end).
//   node dist/bench/capture-destinations.js [--rounds 3] [--duration 10] [--warmup 2] [--connections 64]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { captureEvent, root, startPinned, wrk, type WrkResult } from './ceiling.js';
import { cliEntry } from './cli-entry.js';
import { jsonLine } from './child-line.js';
import { managementApi, scrapeMetrics } from './serve-child.js';
import { sustainedDestinations } from './sustained-destinations.js';

const { values } = parseArgs({ options: {
  rounds: { type: 'string', default: '3' }, duration: { type: 'string', default: '10' }, warmup: { type: 'string', default: '2' },
  connections: { type: 'string', default: '64' },
} });
const opts = { warmup: 0, duration: Number(values.duration), connections: Number(values.connections) };
const warmup = Number(values.warmup);
const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-capdest-'));
// The server's webhooks reach the sink on this machine.
process.env.HEDGEROW_HOG_FETCH_ALLOW = '127.0.0.1';
process.env.HEDGEROW_RATE_LIMIT_PER_MINUTE = '1000000';

const sink = spawn('taskset', ['-c', '1', process.execPath, 'dist/bench/destinations-sink.js'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const sinkUrl = `http://127.0.0.1:${(await jsonLine(sink, 'listening', 'sink')).port}`;
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

// The sink's answers, on a connection of their own: uWS closes a keep-alive connection after
// 10 s idle, and fetch would reuse the one the wrk window left idle.
const sinkCall = async (path: string, method = 'GET') => (await fetch(`${sinkUrl}${path}`, { method, headers: { Connection: 'close' } })).text();

interface Phase { label: string; result: WrkResult; delivered: number; lag: number }

async function measure(withDestinations: boolean, n: number): Promise<Phase> {
  const dataDir = join(work, `data-${n}`);
  const keys = JSON.parse(execFileSync(process.execPath, [cliEntry(root), 'init', '--data', dataDir, '--json'], { cwd: root, encoding: 'utf8' }));
  const server = await startPinned([cliEntry(root), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info']);
  const base = `http://127.0.0.1:${server.port}`;
  try {
    while ((await fetch(`${base}/_readiness`).then((r) => r.status, () => 0)) !== 200) await new Promise((r) => setTimeout(r, 100));
    if (withDestinations) {
      const api = managementApi(base, keys.personal_api_key);
      for (const d of sustainedDestinations(sinkUrl)) await api('POST', `/api/environments/${keys.project_id}/hog_functions/`, { template_id: 'template-webhook', enabled: true, ...d });
    }
    const url = `${base}/i/v0/e/`;
    const body = JSON.stringify(captureEvent(keys.project_api_key, 1));
    if (warmup > 0) wrk(url, body, server.child.pid!, { ...opts, duration: warmup });
    await sinkCall('/_reset', 'POST');
    const result = wrk(url, body, server.child.pid!, opts);
    const counts = JSON.parse(await sinkCall('/_counts')) as Record<string, number>;
    const metrics = await scrapeMetrics(base);
    return {
      label: withDestinations ? 'three destinations' : 'no destinations', result,
      delivered: Object.values(counts).reduce((a, b) => a + b, 0), lag: metrics.get('hedgerow_consumer_lag_events{consumer="destinations"}') ?? NaN,
    };
  } finally {
    server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const lines: string[] = [];
const say = (l = '') => { lines.push(l); console.log(l); };
say(`Node ${process.version}; single-event /i/v0/e/, ${opts.connections} connections, ${opts.duration} s after ${warmup} s of warm-up; server on CPU 0, wrk and the sink on CPU 1; load average before ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
say();
say('| round | server | requests/s | p50 ms | p99 ms | non-2xx | deliveries in the window | destinations lag after | with ÷ without |');
say('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
let n = 0;
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    const order = round % 2 === 1 ? [false, true] : [true, false];
    const phases: Phase[] = [];
    for (const withDestinations of order) phases.push(await measure(withDestinations, n++));
    const without = phases.find((p) => p.label === 'no destinations')!.result.rps;
    for (const p of phases) {
      say(`| ${round} | ${p.label} | ${fmt(p.result.rps)} | ${p.result.p50ms.toFixed(2)} | ${p.result.p99ms.toFixed(2)} | ${p.result.non2xx} | ${fmt(p.delivered)} | ${fmt(p.lag)} | ${p.label === 'no destinations' ? '' : (p.result.rps / without).toFixed(2)} |`);
    }
  }
} finally {
  sink.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
