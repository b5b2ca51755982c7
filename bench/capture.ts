// HTTP capture benchmark. In one run, on this machine: the ceiling (bare uWS that
// reads and JSON-parses the body), then hedgerow's /i/v0/e/ with one ~250-byte
// event per request and /batch/ with 100 events per request, plain and gzipped, all
// with durable acks.
// The server and its threads are pinned to CPU 0, wrk to CPU 1, 64 connections.
// Besides rates and latencies, the CPU time the server used per event (its main
// thread, and the whole process: consumer, log writes, GC), read from /proc: a figure
// that other work on the machine disturbs far less than rates. --runs repeats the
// whole sequence, each run with its own ceiling. Each target gets an unmeasured
// warm-up first, and hedgerow is measured once /_readiness answers 200. The ceiling,
// the pinned server and wrk runs are bench/ceiling.ts (bench/persons measures it too).
// --baseline DIR also measures the hedgerow built in DIR (a `git worktree` of an earlier
// commit, built) in each run, right after this one, for same-run ratios.
// Before and after each run, the pace of a durable commit on this disk (./commit-floor.ts):
// it bounds the single-event rows, and moves by several times with other work on the machine.
// Each phase starts with every log consumer caught up (the previous phase's and the warm-up's
// backlog would otherwise be applied inside its window, on the server's one core), and the
// last column counts the process's CPU from the window's start until the consumers have
// applied what it captured: what a phase costs in all, wherever its consumers spend it.
//   node dist/bench/capture.js [--duration 10] [--connections 64] [--runs 1] [--warmup 2] [--baseline DIR]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { captureEvent as event, cpuOf, measureCeiling, root, startPinned, wrk, type WrkResult } from './ceiling.js';
import { cliEntry } from './cli-entry.js';
import { measureCommitFloor } from './commit-floor.js';

const { values } = parseArgs({ options: {
  duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '64' }, runs: { type: 'string', default: '1' },
  warmup: { type: 'string', default: '2' },
  baseline: { type: 'string' },
} });
const warmup = Number(values.warmup);
const duration = Number(values.duration);
const runs = Number(values.runs);
const connections = Number(values.connections);
const wrkOptions = { warmup, duration, connections };
const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-'));

// Until the server says it is ready (hedgerow: consumers running, GeoIP database
// loaded, which takes a second of CPU right after start-up).
async function ready(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const status = await fetch(`http://127.0.0.1:${port}/_readiness`).then((r) => r.status, () => 0);
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready');
}

// Until every log consumer has applied all the log holds (/metrics' per-consumer lag).
async function settled(port: number): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
    const lags = [...text.matchAll(/^hedgerow_consumer_lag_records\{[^}]*\} (\d+)$/gm)].map((m) => Number(m[1]));
    if (lags.length > 0 && lags.every((n) => n === 0)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the consumers did not catch up within 120 s');
}

// One wrk phase: warm-up, caught up, the measured window, caught up again.
async function phase(port: number, pid: number, path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<WrkResult & { settledTotal: number }> {
  const url = `http://127.0.0.1:${port}${path}`;
  if (warmup > 0) wrk(url, body, pid, { ...wrkOptions, warmup: 0, duration: warmup }, headers);
  await settled(port);
  const start = cpuOf(pid).total;
  const result = wrk(url, body, pid, { ...wrkOptions, warmup: 0 }, headers);
  await settled(port);
  return { ...result, settledTotal: cpuOf(pid).total - start };
}

const builds = [{ label: 'hedgerow', cwd: root }];
if (values.baseline) {
  const commit = execFileSync('git', ['-C', values.baseline, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim();
  builds.push({ label: `baseline ${commit}`, cwd: values.baseline });
}

// One build's /i/v0/e/ and /batch/ on a fresh data dir.
async function measureBuild(build: { label: string; cwd: string }, dataDir: string) {
  const keys = JSON.parse(execFileSync(process.execPath, [cliEntry(build.cwd), 'init', '--data', dataDir, '--json'], { cwd: build.cwd, encoding: 'utf8' }));
  const server = await startPinned([cliEntry(build.cwd), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info'], build.cwd);
  await ready(server.port);
  const single = JSON.stringify(event(keys.project_api_key, 1));
  const pid = server.child.pid!;
  const singleResult = await phase(server.port, pid, '/i/v0/e/', single);
  const batchBody = JSON.stringify({ api_key: keys.project_api_key, batch: Array.from({ length: 100 }, (_, i) => event('', i)) });
  const batchResult = await phase(server.port, pid, '/batch/', batchBody);
  // What posthog-node sends by default: the same batch gzipped (decision 0029: the capture worker's path).
  const gzipResult = await phase(server.port, pid, '/batch/', gzipSync(batchBody), { 'Content-Encoding': 'gzip' });
  server.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  return { single, batchBody, singleResult, batchResult, gzipResult };
}

async function runOnce(run: number): Promise<string> {
  const floorBefore = await measureCommitFloor();
  const ceilingResult = await measureCeiling(wrkOptions);
  // Alternate which build goes first, so neither always meets a warmer or busier machine.
  const order = run % 2 === 1 ? builds : [...builds].reverse();
  const measured = [];
  for (const [i, build] of order.entries()) measured.push({ build, ...(await measureBuild(build, join(work, `data-${run}-${i}`))) });
  const { single, batchBody } = measured[0];
  const floorAfter = await measureCommitFloor();

  const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  const rows = [
    ['ceiling (bare uWS + JSON.parse)', ceilingResult, 1] as const,
    ...measured.flatMap(({ build, singleResult, batchResult, gzipResult }) => [
      [`${build.label} /i/v0/e/ (1 event)`, singleResult, 1] as const,
      [`${build.label} /batch/ (100 events)`, batchResult, 100] as const,
      [`${build.label} /batch/ gzip (100 events)`, gzipResult, 100] as const,
    ]),
  ];
  return [
    `run ${run}: single-event body ${Buffer.byteLength(single)} B; batch body ${Buffer.byteLength(batchBody)} B; ${connections} connections, ${duration}s each after ${warmup}s of warm-up; server on CPU 0, wrk on CPU 1; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    '',
    '| target | requests/s | events/s | p50 ms | p99 ms | non-2xx | req/s vs ceiling | CPU µs/event, main thread | CPU µs/event, process | CPU µs/event, process until consumers caught up |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(([name, r, per]) => `| ${name} | ${fmt(r.rps)} | ${fmt(r.rps * per)} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} | ${r.non2xx} | ${(r.rps / ceilingResult.rps).toFixed(2)} | ${(r.cpu.main / (r.requests * per)).toFixed(2)} | ${(r.cpu.total / (r.requests * per)).toFixed(2)} | ${'settledTotal' in r ? (r.settledTotal / (r.requests * per)).toFixed(2) : '-'} |`),
    '',
    // The disk's pace bounds the single-event rows (./commit-floor.ts): read them against it.
    ...([['before', floorBefore], ['after', floorAfter]] as const).map(([when, { p50ms, p90ms, commits }]) =>
      `durable LMDB commit ${when} the run (${commits} sequential puts, as the log's): p50 ${p50ms.toFixed(2)} ms, p90 ${p90ms.toFixed(2)} ms; ${connections} connections at one commit each: at most ~${fmt(connections / (p50ms / 1000))} req/s`),
    '',
  ].join('\n');
}

for (let run = 1; run <= runs; run++) console.log(await runOnce(run));
rmSync(work, { recursive: true, force: true });
