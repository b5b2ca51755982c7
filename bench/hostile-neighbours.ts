// Hostile requests beside well-formed clients, as issue 27's attacker sent them: each
// phase sends its hostile requests several at a time while bystanders capture single
// events and batches and ask /decide, each request with a 30 s deadline. Per phase: how
// many bystander requests there were, the slowest answer, how many took over 1 s and how
// many got no answer in 30 s, the slowest /_liveness probe, the server's RSS at the start
// and peak. After the phases: RSS just after and 10 s after (what the burst left held),
// and the management reads of issue 27 over the data the phases left (their answer times).
// --baseline DIR measures the build in DIR too, in the same run, alternating which goes first.
//   node dist/bench/hostile-neighbours.js [--runs 1] [--baseline DIR] [--only PHASE] [--env NAME=VALUE …]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { root } from './ceiling.js';
import { jsonLine } from './child-line.js';
import { cliEntry } from './cli-entry.js';
import { watchServer } from '../test/helpers/server-watch.js';
import { hostilePhases, type Hostile } from './hostile-phases.js';

const { values } = parseArgs({ options: {
  runs: { type: 'string', default: '1' }, baseline: { type: 'string' }, only: { type: 'string' },
  // NAME=VALUE for the servers' environment (MALLOC_ARENA_MAX=2, …), repeatable.
  env: { type: 'string', multiple: true, default: [] },
} });
const serverEnv = Object.fromEntries(values.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const MB = 1024 * 1024;
const DEADLINE_MS = 30_000;
const gz = { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' };
const plain = { 'Content-Type': 'application/json' };

interface Keys { project_id: number; project_api_key: string; personal_api_key: string }
async function start(cwd: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cliEntry(cwd), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info'],
    { cwd, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, HEDGEROW_GEOIP_DB: 'none', ...serverEnv } });
  const { port } = await jsonLine(child, 'listening', 'server');
  return { child, url: `http://127.0.0.1:${port}` };
}

const rss = (pid: number, field = 'VmRSS') => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
// Anonymous memory (heaps, buffers) and mapped files (LMDB's pages: the page cache, which the
// kernel reclaims under pressure) apart.
const split = (pid: number) => `${(rss(pid) / MB).toFixed(0)} (anon ${(rss(pid, 'RssAnon') / MB).toFixed(0)}, file ${(rss(pid, 'RssFile') / MB).toFixed(0)})`;

const t0 = performance.now();
const errorsSeen = new Map<string, number>();
async function timed(url: string, init: RequestInit): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const status = await fetch(url, { ...init, signal: AbortSignal.timeout(DEADLINE_MS) })
    .then(async (r) => { await r.arrayBuffer(); return r.status; }, (e: Error & { cause?: { code?: string; message?: string } }) => {
      if (e.name === 'TimeoutError') return -1;
      const what = `${new URL(url).pathname} ${e.cause?.code ?? e.cause?.message ?? e.message}`;
      if (process.env.VERBOSE) console.log(`  error ${what} at ${(started - t0).toFixed(0)} after ${(performance.now() - started).toFixed(0)} ms`);
      errorsSeen.set(what, (errorsSeen.get(what) ?? 0) + 1);
      return 0;
    });
  return { status, ms: performance.now() - started };
}

// Well-formed clients: four loops, each a single event, a batch of three, a gzipped batch
// of 300 and a /decide.
function bystanders(url: string, token: string) {
  let answers: { status: number; ms: number }[] = [];
  let running = true;
  let n = 0;
  const loop = async () => {
    while (running) {
      const single = { api_key: token, event: 'bystander', distinct_id: `b-${n++ % 20}`, properties: { $browser: 'Chrome' } };
      const batch = { api_key: token, batch: [single, single, single] };
      // 300 events inflating past 64 KiB: decoded in the capture worker, as SDKs' large batches.
      const large = gzipSync(JSON.stringify({ api_key: token, batch: Array.from({ length: 300 }, () => ({ ...single, properties: { $current_url: `https://example.com/${'p'.repeat(200)}` } })) }));
      answers.push(...await Promise.all([
        timed(`${url}/i/v0/e/`, { method: 'POST', headers: plain, body: JSON.stringify(single) }),
        timed(`${url}/batch/`, { method: 'POST', headers: plain, body: JSON.stringify(batch) }),
        timed(`${url}/batch/`, { method: 'POST', headers: gz, body: large }),
        timed(`${url}/decide/?v=3`, { method: 'POST', headers: plain, body: JSON.stringify({ token, distinct_id: `b-${n}` }) }),
      ]));
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const loops = [loop(), loop(), loop(), loop()];
  return {
    take() { const a = answers; answers = []; return a; },
    async stop() { running = false; await Promise.all(loops); },
  };
}

async function sendAll(url: string, requests: Hostile[], concurrency: number): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < requests.length) {
      const q = requests[next++];
      const started = performance.now() - t0;
      const r = await timed(`${url}${q.path}`, { method: 'POST', headers: q.headers, body: q.body });
      statuses.push(r.status);
      if (process.env.VERBOSE) console.log(`  ${q.path} ${q.body.length} bytes: ${r.status} at ${started.toFixed(0)} in ${r.ms.toFixed(0)} ms`);
    }
  }));
  return statuses;
}

async function measure(label: string, cwd: string, dataDir: string): Promise<string[]> {
  const keys = JSON.parse(execFileSync(process.execPath, [cliEntry(cwd), 'init', '--data', dataDir, '--json'], { cwd, encoding: 'utf8' })) as Keys;
  const server = await start(cwd, dataDir);
  for (let i = 0; i < 300 && (await fetch(`${server.url}/_readiness`).then((r) => r.status, () => 0)) !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1000));
  const pid = server.child.pid!;
  const baseline = rss(pid);
  const baselineSplit = split(pid);
  const rows: string[] = [];
  // Built before the bystanders start: this process blocked for seconds would find their
  // idle connections closed by the server when it next used them (a client's failure).
  const all = hostilePhases(keys.project_api_key, keys.project_id, keys.personal_api_key);
  const crowd = bystanders(server.url, keys.project_api_key);
  await new Promise((r) => setTimeout(r, 1000));
  crowd.take();
  for (const p of all) {
    if (values.only && !p.name.includes(values.only)) continue;
    const watch = watchServer(server.url, pid);
    const statuses = await sendAll(server.url, p.requests, p.concurrency);
    // The bystanders sent while the phase's requests were in flight, and after them
    // until every one of those was answered or timed out.
    await new Promise((r) => setTimeout(r, 2000));
    const seen = await watch.stop();
    const answers = crowd.take();
    const slowest = Math.max(...answers.map((a) => a.ms));
    const counts = new Map<number, number>();
    for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
    rows.push(`| ${label} | ${p.name} | ${[...counts].map(([s, c]) => `${c}×${s}`).join(' ')} | ${answers.length} | ${answers.filter((a) => a.status !== 200 && a.status !== -1).length} | ${slowest.toFixed(0)} | ${answers.filter((a) => a.ms > 1000).length} | ${answers.filter((a) => a.status === -1).length} | ${seen.slowestProbeMs.toFixed(0)} | ${(seen.peakRssBytes / MB).toFixed(0)} |`);
  }
  await crowd.stop();
  const after = split(pid);
  await new Promise((r) => setTimeout(r, 10_000));
  const settled = split(pid);
  await new Promise((r) => setTimeout(r, 20_000));
  const later = rss(pid);
  rows.push(`| ${label} | RSS MB: baseline ${baselineSplit}, just after ${after}, 10 s after ${settled}, 30 s after ${split(pid)}: ${((later - baseline) / MB).toFixed(0)} over | | | | | | | | |`);
  const auth = { headers: { Authorization: `Bearer ${keys.personal_api_key}` } };
  const env = `${server.url}/api/environments/${keys.project_id}`;
  const reads = [
    `/events/values/?format=csv&key=$browser`, '/events/values/?key=$browser', '/events/?limit=100', '/ingestion_warnings/?q=deep', '/ingestion_warnings/',
  ];
  const took: string[] = [];
  for (const path of reads) {
    const r = await timed(`${env}${path}`, auth);
    took.push(`${path} ${r.status} ${r.ms.toFixed(0)} ms`);
  }
  rows.push(`| ${label} | reads: ${took.join('; ')} | | | | | | | | |`);
  server.child.kill('SIGKILL');
  return rows;
}

const builds = [{ label: `this build ${execFileSync('git', ['-C', root, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim()}`, cwd: root }];
if (values.baseline) builds.push({ label: `baseline ${execFileSync('git', ['-C', values.baseline, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim()}`, cwd: values.baseline });
const work = mkdtempSync(join(tmpdir(), 'hedgerow-neighbours-'));
for (let run = 1; run <= Number(values.runs); run++) {
  const order = run % 2 === 1 ? builds : [...builds].reverse();
  console.log(`run ${run}: load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  console.log('| build | phase | hostile statuses | bystander requests | bystander non-200 | slowest bystander ms | over 1 s | no answer in 30 s | slowest /_liveness ms | RSS peak MB |');
  console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [i, b] of order.entries()) for (const row of await measure(b.label, b.cwd, join(work, `data-${run}-${i}`))) console.log(row);
  console.log('');
  console.log(`network errors: ${JSON.stringify([...errorsSeen])}`);
  errorsSeen.clear();
}
rmSync(work, { recursive: true, force: true });
