// A one-million-event load through /batch/ as a user would send it (issue 26): `--events`
// events of `--per-request` each (100), `--in-flight` requests at a time (closed loop: as
// fast as the server answers), from `--distinct` distinct ids, against a real `hedgerow
// serve` on a fresh data dir (its embedded default; no hog functions, so the destinations
// consumer reads the log and delivers nothing). The events are insights-pipeline's: a
// $pageview with four properties, ~330 bytes of JSON.
// Reported per run: capture's rate; when the event store (with persons) and insights had
// every event, counted from the last 200 (the backlog left when intake stopped) and from
// the first request; the server's CPU per event (all threads, the main thread, the busiest
// others) until every stage caught up; its memory: peak RSS (VmHWM) and, sampled every
// `--sample-ms` from /proc/PID/smaps_rollup, anonymous apart from file-backed (LMDB's and
// DuckDB's mapped pages, which the kernel reclaims); the largest lag per stage. And, to tell
// what moves between runs of one tree: per named thread its CPU until the last 200 and after
// it and the bytes it read and wrote, the process's major faults, the cgroup's file pages read
// again after the limit had dropped them, and both lags every ~2 s.
// `--baseline DIR` runs the same load against another built checkout (the merge-base in a
// second worktree) in the same run, alternating with this one over `--runs`.
// `--history N` first loads N events the same way, waits until every stage has them, then
// measures the load on top of that history. `--destination` first creates an enabled
// webhook destination whose filter matches none of the load's events: the project then has
// a destination (its events keep their person as of the event for it) and nothing is
// delivered, so the run shows what having one costs the stages. `--profile DIR` runs each server with
// --cpu-prof (one profile per thread; read them with bench/profile-top).
//   node dist/bench/load-1m.js [--events 1000000] [--per-request 100] [--in-flight 8]
//     [--distinct 100000] [--uuid v4|v7] [--history 0] [--baseline DIR] [--runs 1] [--sample-ms 500]
//     [--drain 600] [--env K=V ...] [--destination] [--profile DIR] [--memory-cgroup MB [--baseline-outside-cgroup]] [--record] [--label TEXT]
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { root } from './ceiling.js';
import { uuidv7 } from './sdk-traffic.js';
import { cpuOf, faultsOf, ioOf, memoryOf, residentOf, threadNames, threadsCpu } from './proc.js';
import { memoryCgroup, type MemoryCgroup } from './memory-cgroup.js';
import { initDataDir, managementApi, scrapeMetrics, startServe, type InitKeys, type ServeChild } from './serve-child.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '1000000' },
  'per-request': { type: 'string', default: '100' },
  'in-flight': { type: 'string', default: '8' },
  distinct: { type: 'string', default: '100000' },
  // v4: random uuids (insights-pipeline's, and issue 26's first measurement); v7: time-ordered, as posthog-js and posthog-node send.
  uuid: { type: 'string', default: 'v4' },
  history: { type: 'string', default: '0' },
  baseline: { type: 'string' },
  runs: { type: 'string', default: '1' },
  'sample-ms': { type: 'string', default: '500' },
  drain: { type: 'string', default: '600' },
  env: { type: 'string', multiple: true, default: [] },
  profile: { type: 'string' },
  destination: { type: 'boolean', default: false },
  record: { type: 'boolean', default: false },
  label: { type: 'string' },
  // Every server runs in a memory cgroup of its own of this many MB (./memory-cgroup.ts): a
  // baseline outside one would keep more LMDB pages in page cache than this tree may.
  'memory-cgroup': { type: 'string' },
  // Only this tree's server in the cgroup: with `--baseline .`, the same build with and without.
  'baseline-outside-cgroup': { type: 'boolean', default: false },
} });
const EVENTS = Number(args.events);
const PER_REQUEST = Number(args['per-request']);
const IN_FLIGHT = Number(args['in-flight']);
const DISTINCT = Number(args.distinct);
const HISTORY = Number(args.history);
const SAMPLE_MS = Number(args['sample-ms']);
const DRAIN_S = Number(args.drain);
const STAGES = ['event_store', 'insights', 'destinations'] as const;
type Stage = typeof STAGES[number];
const serverEnv = Object.fromEntries(args.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

const lines: string[] = [];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const mb = (kb: number) => fmt(kb / 1024);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
// Bodies built before anything is timed (the same for every run: each has a fresh data dir).
// Each request's events carry one timestamp, a millisecond after the previous request's
// (as if sent over time: the columnar store's duplicate check reads the stored events of a
// batch's time span, so one timestamp for all would make every load read every event).
function buildBodies(token: string, events: number, offset: number): Buffer[] {
  const bodies: Buffer[] = [];
  const start = Date.now() - (offset + events) / PER_REQUEST;
  for (let n = offset; n < offset + events; n += PER_REQUEST) {
    const ts = new Date(start + n / PER_REQUEST).toISOString();
    const batch = [];
    for (let i = n; i < Math.min(n + PER_REQUEST, offset + events); i++) {
      const p = (i * 7919) % DISTINCT;
      batch.push({ event: '$pageview', distinct_id: `user-${p}`, uuid: args.uuid === 'v7' ? uuidv7(Date.now()) : randomUUID(), timestamp: ts,
        properties: { $browser: BROWSERS[p % 4], $current_url: `https://example.com/p/${i % 100}`, $session_id: `s-${p}`, plan: p % 3 ? 'free' : 'paid' } });
    }
    bodies.push(Buffer.from(JSON.stringify({ api_key: token, batch })));
  }
  return bodies;
}

// Sends every body, IN_FLIGHT at a time; resolves with the time of the last 200.
async function send(base: string, bodies: Buffer[]): Promise<number> {
  let next = 0;
  let last = 0;
  const lane = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      for (;;) {
        const r = await fetch(`${base}/batch/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
        await r.arrayBuffer();
        if (r.status === 200) break;
        // 503: the log's group commit is full (capture's backpressure): the SDK retries.
        if (r.status !== 503) throw new Error(`capture answered ${r.status}`);
        await sleep(50);
      }
      last = now();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return last;
}

interface Sample { t: number; lag: Record<Stage, number>; ingested: number; rss: number; anon: number; file: number }

interface RunResult {
  target: string; captureS: number; caughtUp: Record<Stage, number | null>; firstRequestToAll: number | null;
  cpuPerEvent: number; mainPerEvent: number; topThreads: number[]; named: string; peakKb: number; peakAnon: number; peakFile: number; maxLag: Record<Stage, number>;
  end: { rss: number; anon: number; file: number }; insightsCount: number; coresDuring: number;
  cgroup: { limitMb: number; peakMb: number; oomKills: number; refaults: number } | null;
  // Per named thread: MB read / written, and µs per event until the last 200 + after it (what
  // moves between runs of one tree); the process's major faults and bytes read and written.
  io: string; phases: string; majorFaults: number; readMb: number; writeMb: number;
  // The lags every ~2 s (s: event store / insights, thousands of events): whether insights ran just behind the event store.
  trace: string;
}

async function waitCaughtUp(server: ServeChild, total: number, samples: Sample[], onSample: () => Promise<Sample>, from: number): Promise<Record<Stage, number | null>> {
  const at: Record<Stage, number | null> = { event_store: null, insights: null, destinations: null };
  while (now() - from < DRAIN_S * 1000) {
    const s = await onSample();
    if (s.ingested >= total) for (const st of STAGES) if (at[st] === null && s.lag[st] === 0) at[st] = s.t;
    if (STAGES.every((st) => at[st] !== null)) break;
    await sleep(SAMPLE_MS);
  }
  void server; void samples;
  return at;
}

async function insightsCount(api: ReturnType<typeof managementApi>, projectId: number): Promise<number> {
  const body = await api('POST', `/api/environments/${projectId}/query/`, {
    query: { kind: 'EventsQuery', select: ['count()'], event: '$pageview', after: '-7d' }, refresh: 'force_blocking',
  });
  return Number(body?.results?.[0]?.[0] ?? NaN);
}

async function runOnce(target: string, checkout: string, template: string, keys: InitKeys, history: Buffer[], bodies: Buffer[], n: number): Promise<RunResult> {
  const dataDir = join(work, `data-${n}`);
  cpSync(template, dataDir, { recursive: true });
  const nodeArgs = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(resolve(args.profile), `${n}-${target}`)}`] : [];
  const cgroup: MemoryCgroup | null = args['memory-cgroup'] !== undefined && (target === 'this tree' || !args['baseline-outside-cgroup']) ? memoryCgroup(Number(args['memory-cgroup'])) : null;
  const server = await startServe({ dataDir, nodeArgs, checkout, env: { HEDGEROW_RATE_LIMIT_PER_MINUTE: '1000000', ...serverEnv }, cgroup: cgroup ?? undefined })
    .catch((err) => { cgroup?.remove(); throw err; });
  const api = managementApi(server.base, keys.personal_api_key);
  try {
    if (args.destination) {
      await api('POST', `/api/environments/${keys.project_id}/hog_functions/`, {
        type: 'destination', enabled: true, name: 'matches nothing', hog: "fetch('http://127.0.0.1:9/', {'method': 'POST'})",
        filters: { events: [{ id: 'never sent', type: 'events' }] },
      });
    }
    const samples: Sample[] = [];
    let t0 = now();
    const sample = async (): Promise<Sample> => {
      const m = await scrapeMetrics(server.base);
      const r = residentOf(server.pid);
      const s: Sample = {
        t: (now() - t0) / 1000, ingested: m.get('hedgerow_events_ingested_total') ?? NaN, rss: r.rss, anon: r.anon, file: r.file,
        lag: Object.fromEntries(STAGES.map((st) => [st, m.get(`hedgerow_consumer_lag_events{consumer="${st}"}`) ?? NaN])) as Record<Stage, number>,
      };
      samples.push(s);
      return s;
    };
    if (history.length > 0) {
      await send(server.base, history);
      const at = await waitCaughtUp(server, HISTORY, samples, sample, now());
      say(`- ${target}: history of ${fmt(HISTORY)} events applied by every stage after ${at.insights === null ? 'more than the drain' : `${(at.insights).toFixed(0)} s`}; RSS then ${mb(residentOf(server.pid).rss)} MB`);
      samples.length = 0;
    }
    t0 = now();
    const cpu0 = cpuOf(server.pid);
    const threads0 = threadsCpu(server.pid);
    const io0ByThread = new Map([...threads0.keys()].map((tid) => [tid, ioOf(server.pid, tid)]));
    const faults0 = faultsOf(server.pid);
    const io0 = ioOf(server.pid);
    const refaults0 = cgroup?.stat('workingset_refault_file') ?? 0;
    const machine0 = process.cpuUsage();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        await sample();
        await sleep(SAMPLE_MS);
      }
    })();
    const last200 = await send(server.base, bodies);
    const threadsMid = threadsCpu(server.pid);
    sampling = false;
    await sampler;
    const captureS = (last200 - t0) / 1000;
    const total = HISTORY + EVENTS;
    const reached = await waitCaughtUp(server, total, samples, sample, last200);
    const cpu1 = cpuOf(server.pid);
    const threads1 = threadsCpu(server.pid);
    const faults1 = faultsOf(server.pid);
    const io1 = ioOf(server.pid);
    void machine0;
    const wall = (now() - t0) / 1000;
    const end = residentOf(server.pid);
    const peakKb = memoryOf(server.pid).peak;
    const count = await insightsCount(api, keys.project_id);
    const caughtUp = Object.fromEntries(STAGES.map((st) => [st, reached[st] === null ? null : reached[st]! - captureS])) as Record<Stage, number | null>;
    // Threads that named themselves (the log consumers), µs per event; the rest together.
    const names = threadNames(server.pid);
    const nameOf = (tid: number) => (tid === server.pid ? 'main' : names.get(tid) === 'node' || !names.has(tid) ? 'other threads' : names.get(tid)!);
    const perName = new Map<string, number>();
    for (const [tid, us] of threads1) {
      const name = nameOf(tid);
      perName.set(name, (perName.get(name) ?? 0) + (us - (threads0.get(tid) ?? 0)) / EVENTS);
    }
    const before = new Map<string, number>();
    const after = new Map<string, number>();
    for (const [tid, us] of threads1) {
      const name = nameOf(tid);
      const mid = threadsMid.get(tid) ?? us;
      before.set(name, (before.get(name) ?? 0) + (mid - (threads0.get(tid) ?? 0)) / EVENTS);
      after.set(name, (after.get(name) ?? 0) + (us - mid) / EVENTS);
    }
    const ioByName = new Map<string, { read: number; write: number }>();
    for (const tid of threads1.keys()) {
      const now1 = ioOf(server.pid, tid);
      const was = io0ByThread.get(tid) ?? { read: 0, write: 0 };
      const sum = ioByName.get(nameOf(tid)) ?? { read: 0, write: 0 };
      ioByName.set(nameOf(tid), { read: sum.read + (now1.read - was.read) / 2 ** 20, write: sum.write + (now1.write - was.write) / 2 ** 20 });
    }
    const io = [...ioByName].filter(([, v]) => v.read + v.write >= 1).sort((a, b) => b[1].write - a[1].write).map(([n, v]) => `${n} ${fmt(v.read)}/${fmt(v.write)}`).join(', ');
    const phases = [...perName].sort((a, b) => b[1] - a[1]).map(([n]) => `${n} ${before.get(n)!.toFixed(1)} + ${after.get(n)!.toFixed(1)}`).join(', ');
    const named = [...perName].sort((a, b) => b[1] - a[1]).map(([n, v]) => `${n} ${fmt(v)}`).join(', ');
    const topThreads = [...threads1].filter(([tid]) => tid !== server.pid).map(([tid, us]) => (us - (threads0.get(tid) ?? 0)) / EVENTS).sort((a, b) => b - a).slice(0, 6);
    return {
      target, captureS, caughtUp, firstRequestToAll: reached.insights === null || reached.event_store === null ? null : Math.max(reached.insights, reached.event_store),
      cpuPerEvent: (cpu1.total - cpu0.total) / EVENTS, mainPerEvent: (cpu1.main - cpu0.main) / EVENTS, topThreads, named,
      peakKb, peakAnon: Math.max(...samples.map((s) => s.anon)), peakFile: Math.max(...samples.map((s) => s.file)),
      maxLag: Object.fromEntries(STAGES.map((st) => [st, Math.max(0, ...samples.map((s) => s.lag[st]).filter(Number.isFinite))])) as Record<Stage, number>,
      end, insightsCount: count, coresDuring: (cpu1.total - cpu0.total) / 1e6 / wall,
      cgroup: cgroup === null ? null : { limitMb: cgroup.limitMb, peakMb: cgroup.peakBytes() / 2 ** 20, oomKills: cgroup.oomKills(), refaults: cgroup.stat('workingset_refault_file') - refaults0 },
      trace: samples.filter((_, i) => i % 4 === 0).map((x) => `${x.t.toFixed(0)}: ${fmt(x.lag.event_store / 1000)}/${fmt(x.lag.insights / 1000)}`).join(', '),
      io, phases, majorFaults: faults1.major - faults0.major, readMb: (io1.read - io0.read) / 2 ** 20, writeMb: (io1.write - io0.write) / 2 ** 20,
    };
  } catch (err) {
    // A server the kernel killed for want of memory shows as a failed request: say so.
    if (cgroup !== null && cgroup.oomKills() > 0) throw new Error(`the server was killed in its ${cgroup.limitMb} MB cgroup (OOM): ${(err as Error).message}`);
    throw err;
  } finally {
    await server.stop();
    cgroup?.remove();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-load-1m-'));
const targets: { name: string; checkout: string }[] = [{ name: 'this tree', checkout: root }];
if (args.baseline) targets.push({ name: 'baseline', checkout: resolve(args.baseline) });
const results: RunResult[] = [];
try {
  // One data dir made by this checkout's `init`, copied for each run (the baseline is the
  // merge-base: the same layout), so the bodies carry the one project token.
  const template = join(work, 'template');
  const keys = initDataDir(template);
  const token = keys.project_api_key;
  const templates = targets.map((tg) => ({ ...tg, dir: template, keys }));
  const t = now();
  const history = buildBodies(token, HISTORY, 0);
  const bodies = buildBodies(token, EVENTS, HISTORY);
  say(`Node ${process.version}; ${cpus().length} cores, ${fmt(totalmem() / 2 ** 30)} GB; ${fmt(EVENTS)} events of ~${fmt(bodies[0].length / PER_REQUEST)} bytes, ${PER_REQUEST} per request, ` +
    `${IN_FLIGHT} requests in flight, ${fmt(DISTINCT)} distinct ids, UUID${args.uuid} event ids${HISTORY ? `, on top of a history of ${fmt(HISTORY)} events` : ''}; bodies built in ${((now() - t) / 1000).toFixed(1)} s; ` +
    `${args.destination ? 'one enabled destination that matches none of the events' : 'no hog functions (destinations off)'}; server env: ${Object.keys(serverEnv).length ? Object.entries(serverEnv).map(([k, v]) => `${k}=${v}`).join(' ') : 'defaults'}. Load average before: ${load()}.`);
  const runs = Number(args.runs);
  let n = 0;
  for (let r = 0; r < runs; r++) {
    // Alternate which goes first, so neither always gets the quieter half of the machine's noise.
    const order = r % 2 === 0 ? templates : [...templates].reverse();
    for (const tp of order) {
      const res = await runOnce(tp.name, tp.checkout, tp.dir, tp.keys, history, bodies, n++);
      results.push(res);
      const c = (st: Stage) => (res.caughtUp[st] === null ? `> ${DRAIN_S}` : res.caughtUp[st]!.toFixed(1));
      const inCgroup = res.cgroup === null ? '' : ` (in a ${fmt(res.cgroup.limitMb)} MB memory cgroup: its peak ${fmt(res.cgroup.peakMb)} MB, page cache and mapped files included; OOM kills ${res.cgroup.oomKills}; file pages refaulted ${fmt(res.cgroup.refaults)})`;
      say(`- ${res.target}${inCgroup}: captured in ${res.captureS.toFixed(1)} s (${fmt(EVENTS / res.captureS)}/s); after the last 200, the event store had every event in ${c('event_store')} s, ` +
        `insights in ${c('insights')} s, destinations ${c('destinations')} s; every event in insights ${res.firstRequestToAll === null ? '–' : `${res.firstRequestToAll.toFixed(1)} s after the first request (${fmt(EVENTS / res.firstRequestToAll)}/s)`}; ` +
        `insights counts ${fmt(res.insightsCount)}; CPU ${fmt(res.cpuPerEvent)} µs/event all threads (${res.coresDuring.toFixed(2)} cores), main ${fmt(res.mainPerEvent)}, busiest others ${res.topThreads.map(fmt).join(', ')}${res.named.includes('event_store') ? ` (by thread name: ${res.named})` : ''}; ` +
        `**peak RSS ${mb(res.peakKb)} MB** (sampled peaks: ${mb(res.peakAnon)} MB anonymous, ${mb(res.peakFile)} MB file-backed; at the end ${mb(res.end.anon)} + ${mb(res.end.file)} MB); ` +
        `by thread, µs/event until the last 200 + after: ${res.phases}; major faults ${fmt(res.majorFaults)}, read ${fmt(res.readMb)} MB, written ${fmt(res.writeMb)} MB (by thread, live ones, MB read/written: ${res.io}); ` +
        `largest lag: event store ${fmt(res.maxLag.event_store)}, insights ${fmt(res.maxLag.insights)}, destinations ${fmt(res.maxLag.destinations)} events. Load average ${load()}.`);
      say(`  - lags (s: event store / insights, thousands): ${res.trace}`);
    }
  }
  say();
  say('| run | memory cgroup (limit / peak MB) | capture events/s | event store caught up after last 200 s | insights caught up after last 200 s | first request → insights has all, events/s | CPU µs/event (main) | peak RSS MB | peak anon MB | peak file MB |');
  say('|---|---|---:|---:|---:|---:|---|---:|---:|---:|');
  for (const r of results) {
    say(`| ${r.target} | ${r.cgroup === null ? '–' : `${fmt(r.cgroup.limitMb)} / ${fmt(r.cgroup.peakMb)}`} | ${fmt(EVENTS / r.captureS)} | ${r.caughtUp.event_store?.toFixed(1) ?? '–'} | ${r.caughtUp.insights?.toFixed(1) ?? '–'} | ` +
      `${r.firstRequestToAll === null ? '–' : fmt(EVENTS / r.firstRequestToAll)} | ${fmt(r.cpuPerEvent)} (${fmt(r.mainPerEvent)}) | ${mb(r.peakKb)} | ${mb(r.peakAnon)} | ${mb(r.peakFile)} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (args.record) {
  const quoted = process.argv.slice(2).map((a) => (/[\s"]/.test(a) ? JSON.stringify(a) : a)).join(' ');
  appendFileSync(new URL('../../bench/RESULTS.md', import.meta.url),
    `\n## A ${fmt(EVENTS)}-event load through /batch/: memory and catch-up${args.label ? `, ${args.label}` : ''} (${new Date().toISOString().slice(0, 10)})\n\n` +
    `Command: \`npx tsc -p tsconfig.json && node dist/bench/load-1m.js ${quoted}\`\n\n${lines.join('\n')}\n`);
}
