// Memory after a burst of large bodies (issue 27, item 5: "memory returns to within 256 MiB
// of its baseline"). One `hedgerow serve` per build: its anonymous memory (heaps, malloc's
// arenas, DuckDB's buffers: /proc/PID/smaps_rollup; LMDB's mapped pages are file-backed and
// reclaimable, so not counted) after start and 5 s idle, its peak while the burst is sent,
// and at 0, 10 and 30 s after the last answer, then 10 and 30 s after the consumers had
// applied the burst (hedgerow_log_backlog_records 0; on a loaded machine that takes longer
// than 30 s, and their working memory until then is not what the burst left behind). The burst is hostile-neighbours' large-bodies
// phases: four 19 MiB batches accepted, four 20 MiB batches and four 10 MiB+1 management
// bodies refused, then an event of 17 MiB and a wide and a deep one (--all adds its two
// bomb phases first).
// --probe loads bench/thread-memory-probe into every thread and prints each thread's heap
// 30 s after the consumers caught up; --gc (with --probe) then has every thread collect fully and prints them again
// (live vs garbage); --smaps prints the anonymous mappings grouped by size then; --trim
// (with --gc; needs gdb) then has glibc's malloc return its free pages (malloc_trim) and
// DuckDB's jemalloc purge its arenas, measuring after each: what each allocator kept.
// --baseline DIR measures the build in DIR too, in the same run, alternating which goes first.
//   node dist/bench/burst-memory.js [--runs 1] [--baseline DIR] [--all] [--probe] [--gc] [--smaps] [--env NAME=VALUE …]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { root } from './ceiling.js';
import { jsonLine } from './child-line.js';
import { cliEntry } from './cli-entry.js';
import { hostilePhases, type Hostile } from './hostile-phases.js';
import { residentOf } from './proc.js';

const { values } = parseArgs({ options: {
  runs: { type: 'string', default: '1' }, baseline: { type: 'string' }, all: { type: 'boolean', default: false },
  probe: { type: 'boolean', default: false }, trim: { type: 'boolean', default: false }, gc: { type: 'boolean', default: false }, smaps: { type: 'boolean', default: false },
  // Thread names (event_store, insights, …) whose heap snapshot is written after the collection, kept in --keep.
  snapshot: { type: 'string', multiple: true, default: [] }, keep: { type: 'string' },
  env: { type: 'string', multiple: true, default: [] },
} });
const serverEnv = Object.fromEntries(values.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const PROBE = join(root, 'dist/bench/thread-memory-probe.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const anonMb = (pid: number) => residentOf(pid).anon / 1024;

interface Keys { project_id: number; project_api_key: string; personal_api_key: string }

async function start(cwd: string, dataDir: string, probeDir: string): Promise<{ child: ChildProcess; url: string }> {
  const nodeOptions = values.probe ? `--import=${PROBE}` : '';
  const child = spawn(process.execPath, [cliEntry(cwd), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info'], {
    cwd, stdio: ['ignore', 'pipe', values.trim ? openSync(join(probeDir, 'stderr'), 'w') : 'ignore'],
    env: { ...process.env, HEDGEROW_GEOIP_DB: 'none', NODE_OPTIONS: nodeOptions, HEDGEROW_MEMORY_PROBE_DIR: probeDir, ...serverEnv },
  });
  const { port } = await jsonLine(child, 'listening', 'server');
  return { child, url: `http://127.0.0.1:${port}` };
}

async function send(url: string, requests: Hostile[], concurrency: number): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < requests.length) {
      const q = requests[next++];
      const status = await fetch(`${url}${q.path}`, { method: 'POST', headers: q.headers, body: q.body, signal: AbortSignal.timeout(60_000) })
        .then(async (r) => { await r.arrayBuffer(); return r.status; }, () => 0);
      counts.set(status, (counts.get(status) ?? 0) + 1);
    }
  }));
  return counts;
}

async function backlog(url: string): Promise<number> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text(), () => '');
  return Number(/^hedgerow_log_backlog_records(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? NaN);
}

// Each thread's last report from the probe, one line each.
function threads(probeDir: string, pid: number): string[] {
  return readdirSync(probeDir).filter((f) => f.startsWith(`${pid}-`) && f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(probeDir, f), 'utf8')) as Record<string, unknown>)
    .sort((a, b) => (a.threadId as number) - (b.threadId as number))
    .map((t) => `    thread ${t.threadId} ${t.name} [${t.data}]: heap used ${t.heapUsed} of ${t.heapTotal} MB (limit ${t.heapLimit}), external ${t.external} (array buffers ${t.arrayBuffers}), V8 malloced ${t.mallocedMemory} (peak ${t.peakMalloced})${t.collected ? ', just collected' : ''}`);
}

// Until every thread has reported since now (after doing what it was asked), at most 60 s.
async function reported(probeDir: string, pid: number): Promise<void> {
  const since = Date.now();
  const files = () => readdirSync(probeDir).filter((f) => f.startsWith(`${pid}-`) && f.endsWith('.json'));
  for (let i = 0; i < 240 && files().some((f) => (JSON.parse(readFileSync(join(probeDir, f), 'utf8')) as { at: number }).at <= since + 100); i++) await sleep(250);
}

// Anonymous resident memory by mapping: glibc's arenas (64 MiB reservations), the brk heap,
// and the rest by size.
function anonymousMappings(pid: number): string {
  const groups = new Map<string, { n: number; kb: number }>();
  let size = 0;
  let name = '';
  let at = '';
  const big: { at: string; size: number; kb: number }[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      size = (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1024;
      name = head[3];
      at = head[1];
      continue;
    }
    const anon = /^Anonymous:\s+(\d+) kB/.exec(line);
    if (!anon || Number(anon[1]) === 0) continue;
    if (Number(anon[1]) >= 8192) big.push({ at, size, kb: Number(anon[1]) });
    const key = name === '[heap]' ? 'brk heap' : name !== '' ? name : size <= 256 ? '≤256 KB' : size <= 1024 ? '≤1 MB' : size < 65536 ? `<64 MB` : size === 65536 ? '64 MB' : '>64 MB';
    const g = groups.get(key) ?? { n: 0, kb: 0 };
    g.n++;
    g.kb += Number(anon[1]);
    groups.set(key, g);
  }
  const large = big.length === 0 ? '' : `; the largest: ${big.sort((a, b) => b.kb - a.kb).slice(0, 6).map((m) => `${m.at} ${(m.kb / 1024).toFixed(0)} of ${(m.size / 1024).toFixed(0)} MB`).join(', ')}`;
  return [...groups].sort((a, b) => b[1].kb - a[1].kb).slice(0, 6).map(([k, g]) => `${k}: ${(g.kb / 1024).toFixed(0)} MB in ${g.n}`).join('; ') + large;
}

// Runs one command in the server through gdb (attached only for it).
function gdb(pid: number, command: string): void {
  execFileSync('gdb', ['-p', String(pid), '-batch', '-nx', '-ex', command, '-ex', 'detach'], { stdio: 'ignore', timeout: 60_000 });
}

async function measure(label: string, cwd: string, dataDir: string, probeDir: string): Promise<string[]> {
  const keys = JSON.parse(execFileSync(process.execPath, [cliEntry(cwd), 'init', '--data', dataDir, '--json'], { cwd, encoding: 'utf8' })) as Keys;
  mkdirSync(probeDir, { recursive: true });
  const server = await start(cwd, dataDir, probeDir);
  const pid = server.child.pid!;
  for (let i = 0; i < 300 && (await fetch(`${server.url}/_readiness`).then((r) => r.status, () => 0)) !== 200; i++) await sleep(100);
  await sleep(5000);
  const base = anonMb(pid);
  const notes: string[] = [];
  if (values.probe) notes.push('  threads idle:', ...threads(probeDir, pid));
  if (values.smaps) notes.push(`  anonymous mappings idle: ${anonymousMappings(pid)}`);
  // Built before sampling starts: building them costs this process seconds.
  const phases = hostilePhases(keys.project_api_key, keys.project_id, keys.personal_api_key).filter((p) => values.all || p.large);
  let peak = base;
  let sampling = true;
  const sampler = (async () => { while (sampling) { peak = Math.max(peak, anonMb(pid)); await sleep(200); } })();
  const started = performance.now();
  for (const p of phases) {
    const counts = await send(server.url, p.requests, p.concurrency);
    notes.push(`${p.name}: ${[...counts].map(([s, c]) => `${c}×${s}`).join(' ')}`);
  }
  const ended = performance.now();
  // After the last answer: 0, 10 and 30 s; then, once every consumer has applied the burst
  // (the work it brought is done, at most 300 s), 10 and 30 s after that.
  const at: number[] = [];
  for (const s of [0, 10, 30]) {
    await sleep(ended + s * 1000 - performance.now());
    at.push(anonMb(pid));
  }
  while (performance.now() - ended < 300_000 && (await backlog(server.url)) !== 0) await sleep(250);
  const caughtUp = performance.now();
  for (const s of [10, 30]) {
    await sleep(caughtUp + s * 1000 - performance.now());
    at.push(anonMb(pid));
    if (s === 30 && values.probe) notes.push('  threads 30 s after the consumers caught up:', ...threads(probeDir, pid));
    if (s === 30 && values.smaps) notes.push(`  anonymous mappings then: ${anonymousMappings(pid)}`);
  }
  sampling = false;
  await sampler;
  if (values.probe && values.gc) {
    writeFileSync(join(probeDir, 'gc'), '');
    await reported(probeDir, pid);
    for (const name of values.snapshot) writeFileSync(join(probeDir, `snapshot-${name}`), '');
    if (values.snapshot.length > 0) await reported(probeDir, pid);
    notes.push(`  after a full collection in every thread: anonymous ${anonMb(pid).toFixed(0)} MB`, ...threads(probeDir, pid));
    if (values.smaps) notes.push(`  anonymous mappings: ${anonymousMappings(pid)}`);
    if (values.trim) {
      gdb(pid, 'call (int)malloc_trim(0)');
      notes.push(`  after malloc_trim(0): anonymous ${anonMb(pid).toFixed(0)} MB`);
      gdb(pid, 'call (int)duckdb_je_mallctl("arena.4096.purge", 0, 0, 0, 0)');
      notes.push(`  after jemalloc's purge of every arena: anonymous ${anonMb(pid).toFixed(0)} MB`);
      gdb(pid, 'call (void)malloc_stats()');
      await sleep(200);
      const stats = readFileSync(join(probeDir, 'stderr'), 'utf8').split('\n').filter((l) => /^(Arena|Total|system|in use)/.test(l)).join(' ');
      notes.push(`  glibc malloc_stats: ${stats.replace(/\s+/g, ' ')}`);
    }
  }
  server.child.kill('SIGKILL');
  const f = (n: number) => n.toFixed(0);
  return [
    `| ${label} | ${f(base)} | ${f(peak)} | ${at.map(f).join(' | ')} | ${f(at[2] - base)} | ${f(at[4] - base)} | ${((caughtUp - ended) / 1000).toFixed(0)} | ${((ended - started) / 1000).toFixed(0)} |`,
    ...notes.map((n) => `<!-- ${label}: ${n} -->`),
  ];
}

const builds = [{ label: `this build ${execFileSync('git', ['-C', root, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim()}`, cwd: root }];
if (values.baseline) builds.push({ label: `baseline ${execFileSync('git', ['-C', values.baseline, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim()}`, cwd: values.baseline });
const work = mkdtempSync(join(tmpdir(), 'hedgerow-burst-'));
for (let run = 1; run <= Number(values.runs); run++) {
  const order = run % 2 === 1 ? builds : [...builds].reverse();
  console.log(`run ${run}: load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  console.log('| build | anon MB idle | peak | 0 s after | 10 s | 30 s | caught up + 10 s | caught up + 30 s | over idle at 30 s | over idle at caught up + 30 s | consumers caught up, s after | burst s |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [i, b] of order.entries()) for (const row of await measure(b.label, b.cwd, join(work, `data-${run}-${i}`), join(work, `probe-${run}-${i}`))) console.log(row);
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
}
if (values.keep) execFileSync('cp', ['-r', work, values.keep]);
rmSync(work, { recursive: true, force: true });
