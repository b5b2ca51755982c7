// HTTP capture benchmark. In one run, on this machine: the ceiling (bare uWS that
// reads and JSON-parses the body), then hedgerow's /i/v0/e/ with one ~250-byte
// event per request and /batch/ with 100 events per request, all with durable acks.
// The server and its threads are pinned to CPU 0, wrk to CPU 1, 64 connections.
// Besides rates and latencies, the CPU time the server used per event (its main
// thread, and the whole process: consumer, log writes, GC), read from /proc: a figure
// that other work on the machine disturbs far less than rates. --runs repeats the
// whole sequence, each run with its own ceiling. Each target gets an unmeasured
// warm-up first, and hedgerow is measured once /_readiness answers 200.
//   node dist/bench/capture.js [--duration 10] [--connections 64] [--runs 1] [--warmup 2]
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: {
  duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '64' }, runs: { type: 'string', default: '1' },
  warmup: { type: 'string', default: '2' },
} });
const warmup = Number(values.warmup);
const duration = Number(values.duration);
const runs = Number(values.runs);
const connections = Number(values.connections);
const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-'));

function startPinned(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', '0', process.execPath, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d.toString();
      for (const line of out.split('\n')) {
        try {
          const m = JSON.parse(line);
          if (m.msg === 'listening') return resolve({ child, port: m.port });
        } catch { /* not a complete JSON line yet */ }
      }
    });
    child.stderr!.on('data', () => {});
    child.on('exit', (code) => reject(new Error(`server exited early (${code}): ${out}`)));
  });
}

interface WrkResult { rps: number; p50ms: number; p99ms: number; non2xx: number; requests: number; cpu: CpuUse }

// CPU time (µs) of the server's main thread and of the whole process, from /proc:
// unlike requests/s, CPU per request barely moves when other work shares the machine.
interface CpuUse { main: number; total: number }
const TICK_US = 1e6 / 100; // USER_HZ
function threadTicks(pid: number, tid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}
function cpuOf(pid: number): CpuUse {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { main: threadTicks(pid, pid) * TICK_US, total: (Number(f[11]) + Number(f[12])) * TICK_US };
}

function toMs(v: string): number {
  const m = /([\d.]+)(us|ms|s)/.exec(v);
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
}

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

function wrk(url: string, body: string, pid: number): WrkResult {
  const script = join(work, `post-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`);
  // Warm-up, not measured: JIT, connection set-up, the first log commits.
  if (warmup > 0) execFileSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${connections}`, `-d${warmup}s`, '-s', script, url], { encoding: 'utf8' });
  const before = cpuOf(pid);
  const out = execFileSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${connections}`, `-d${duration}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  const after = cpuOf(pid);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  const p50 = toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? '');
  const p99 = toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? '');
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p50ms: p50, p99ms: p99, non2xx, requests, cpu: { main: after.main - before.main, total: after.total - before.total } };
}

function event(token: string, i: number) {
  return {
    event: '$pageview', distinct_id: `user-${i}`, timestamp: new Date().toISOString(),
    properties: { $current_url: 'https://example.com/pricing?ref=newsletter', $browser: 'Firefox', $os: 'Linux', $lib: 'bench', plan: 'pro' },
    ...(token ? { api_key: token } : {}),
  };
}

async function runOnce(run: number): Promise<string> {
  const ceiling = await startPinned(['dist/bench/ceiling-server.js', '0']);
  const single0 = JSON.stringify(event('phc_ceiling', 0));
  const ceilingResult = wrk(`http://127.0.0.1:${ceiling.port}/i/v0/e/`, single0, ceiling.child.pid!);
  ceiling.child.kill('SIGKILL');

  const dataDir = join(work, `data-${run}`);
  const keys = JSON.parse(execFileSync(process.execPath, ['dist/src/main.js', 'init', '--data', dataDir, '--json'], { cwd: root, encoding: 'utf8' }));
  const server = await startPinned(['dist/src/main.js', 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info']);
  await ready(server.port);
  const single = JSON.stringify(event(keys.project_api_key, 1));
  const singleResult = wrk(`http://127.0.0.1:${server.port}/i/v0/e/`, single, server.child.pid!);
  const batchBody = JSON.stringify({ api_key: keys.project_api_key, batch: Array.from({ length: 100 }, (_, i) => event('', i)) });
  const batchResult = wrk(`http://127.0.0.1:${server.port}/batch/`, batchBody, server.child.pid!);
  server.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });

  const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  const rows = [
    ['ceiling (bare uWS + JSON.parse)', ceilingResult, 1],
    ['hedgerow /i/v0/e/ (1 event)', singleResult, 1],
    ['hedgerow /batch/ (100 events)', batchResult, 100],
  ] as const;
  return [
    `run ${run}: single-event body ${Buffer.byteLength(single)} B; batch body ${Buffer.byteLength(batchBody)} B; ${connections} connections, ${duration}s each after ${warmup}s of warm-up; server on CPU 0, wrk on CPU 1; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    '',
    '| target | requests/s | events/s | p50 ms | p99 ms | non-2xx | req/s vs ceiling | CPU µs/event, main thread | CPU µs/event, process |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(([name, r, per]) => `| ${name} | ${fmt(r.rps)} | ${fmt(r.rps * per)} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} | ${r.non2xx} | ${(r.rps / ceilingResult.rps).toFixed(2)} | ${(r.cpu.main / (r.requests * per)).toFixed(2)} | ${(r.cpu.total / (r.requests * per)).toFixed(2)} |`),
    '',
  ].join('\n');
}

for (let run = 1; run <= runs; run++) console.log(await runOnce(run));
rmSync(work, { recursive: true, force: true });
