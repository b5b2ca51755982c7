// Capture spread over two nodes of one cluster against one node, in the same run (issue 19,
// item 6). Each phase starts a fresh nats-server (JetStream, file storage in a temp dir,
// so every phase starts from an empty stream), then either
//   one: `hedgerow init` + one `hedgerow serve`, both with NATS_URL;
//   two: init + serve on A with NATS_URL, and B joining with an empty data dir;
// waits for /_readiness on every node, and drives /batch/ (100 ~250-byte events per request,
// a fixed body) with wrk at full speed for --duration seconds, the connections split evenly
// over the nodes (one wrk per node). Phases alternate one, two, one, two (--rounds) so the
// noise of the shared machine shows. Nothing is pinned: the nodes, nats-server and wrk
// share the machine's cores.
// Measured per phase:
//   - accepted events/s (wrk's 2xx requests × 100; cross-checked against each node's
//     hedgerow_events_ingested_total);
//   - CPU per event of each serve process (utime + stime of every thread, /proc/<pid>/stat)
//     from the start of the load until the cluster has applied the whole stream, per event
//     in the stream (every node applies every event) — and of nats-server;
//   - replication lag: the most stream records a node's event store was behind during the
//     load (the stream's last sequence, asked of JetStream, less the node's
//     hedgerow_consumer_position{consumer="event_store"}, polled every 100 ms; a record is
//     one group commit of many requests), and the time from the end of the load until every
//     node's event store (events, persons, groups) has applied the stream's last record;
//     the destinations consumer runs on the one node holding its claim, so it counts there.
//   node dist/bench/cluster.js [--duration 5] [--connections 16] [--rounds 2] [--catchup 90] [--record]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from 'nats';
import { captureEvent, root } from './ceiling.js';
import { jsonLine } from './child-line.js';
import { startNatsServer, type NatsServer } from '../test/helpers/nats.js';
import { cliEntry } from './cli-entry.js';

const { values: args } = parseArgs({ options: {
  duration: { type: 'string', default: '5' },
  connections: { type: 'string', default: '16' },
  rounds: { type: 'string', default: '2' },
  catchup: { type: 'string', default: '90' },
  record: { type: 'boolean', default: false },
} });
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);
const CATCHUP_S = Number(args.catchup);
const PER_REQUEST = 100;
const STREAM = 'HEDGEROW_EVENTS';
const EVENT_STORE = 'event_store';

const lines: string[] = [];
const say = (line: string) => {
  console.log(line);
  lines.push(line);
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));
const TICK_S = 1 / 100; // USER_HZ

function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_S;
  } catch {
    return NaN;
  }
}

// The process named `comm` whose command line holds `arg` (the helper keeps its child to itself).
function pidOf(comm: string, arg: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== comm) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(arg)) return Number(entry);
    } catch { /* gone */ }
  }
  throw new Error(`no ${comm} process with ${arg}`);
}

const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-cluster-'));
const quiet = { HEDGEROW_GEOIP_DB: 'none', HEDGEROW_FLAG_WORKERS: '1', HEDGEROW_HOG_WORKERS: '1' };
const children = new Set<ChildProcess>();

interface Node { name: string; child: ChildProcess; base: string }

async function serve(name: string, dataDir: string, natsUrl: string): Promise<Node> {
  const child = spawn(process.execPath, [cliEntry(root), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info'],
    { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...quiet, NATS_URL: natsUrl } });
  children.add(child);
  const { port } = await jsonLine(child, 'listening', `serve ${name}`);
  return { name, child, base: `http://127.0.0.1:${port}` };
}

async function ready(node: Node): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const status = await fetch(`${node.base}/_readiness`).then((r) => r.status, () => 0);
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`${node.name} did not become ready`);
}

// Every consumer's applied position and the events this node accepted, from /metrics.
async function metricsOf(node: Node): Promise<{ positions: Map<string, number>; ingested: number }> {
  const text = await (await fetch(`${node.base}/metrics`)).text();
  const positions = new Map<string, number>();
  let ingested = 0;
  for (const line of text.split('\n')) {
    const p = /^hedgerow_consumer_position\{consumer="([^"]+)"\} (\S+)/.exec(line);
    if (p) positions.set(p[1], Number(p[2]));
    const i = /^hedgerow_events_ingested_total (\S+)/.exec(line);
    if (i) ingested = Number(i[1]);
  }
  return { positions, ingested };
}

// wrk, one thread, at full speed; resolves with the 2xx requests it completed.
function wrk(url: string, script: string, connections: number, seconds: number): Promise<{ requests: number; non2xx: number; p50: string; p99: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout!.on('data', (d) => { out += d.toString(); });
    child.stderr!.on('data', () => {});
    child.on('exit', (code) => {
      children.delete(child);
      if (code !== 0) return reject(new Error(`wrk exited (${code}): ${out}`));
      const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      resolve({ requests: requests - non2xx, non2xx, p50: /\s50%\s+(\S+)/.exec(out)?.[1] ?? '?', p99: /\s99%\s+(\S+)/.exec(out)?.[1] ?? '?' });
    });
  });
}

interface PhaseResult {
  nodes: number;
  events: number;
  eventsPerS: number;
  // Per node: CPU seconds from load start until it applied the stream, and µs per stream event.
  cpu: { name: string; seconds: number; usPerEvent: number }[];
  natsUsPerEvent: number;
  maxLagRecords: number;
  records: number;
  doneMs: number;
  eventStoreMs: number[];
  loadMs: number;
  holder: number;
  consumerTimes: string[];
  latency: string;
  non2xx: number;
}

async function phase(count: 1 | 2, index: number): Promise<PhaseResult> {
  const nats: NatsServer = await startNatsServer();
  const natsPid = pidOf('nats-server', nats.storeDir);
  const nc = await connect({ servers: nats.url });
  const jsm = await nc.jetstreamManager();
  const nodes: Node[] = [];
  try {
    const dataA = join(work, `p${index}-a`);
    const keys = JSON.parse(execFileSync(process.execPath, [cliEntry(root), 'init', '--data', dataA, '--json'],
      { cwd: root, encoding: 'utf8', env: { ...process.env, ...quiet, NATS_URL: nats.url } }));
    nodes.push(await serve('A', dataA, nats.url));
    if (count === 2) nodes.push(await serve('B', join(work, `p${index}-b`), nats.url));
    await Promise.all(nodes.map(ready));

    const body = JSON.stringify({ api_key: keys.project_api_key, batch: Array.from({ length: PER_REQUEST }, (_, i) => captureEvent('', i)) });
    const script = join(work, 'post.lua');
    writeFileSync(script, `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = ${JSON.stringify(body)}\n`);
    const lastSeq = async () => (await jsm.streams.info(STREAM)).state.last_seq;
    const startSeq = await lastSeq();
    const ingestedBefore = await Promise.all(nodes.map(async (n) => (await metricsOf(n)).ingested));

    // Lag during the load: the stream's end less each node's event store position.
    let maxLagRecords = 0;
    let loading = true;
    const poller = (async () => {
      while (loading) {
        const [last, ...ms] = await Promise.all([lastSeq(), ...nodes.map(metricsOf)]).catch(() => [0]);
        for (const m of ms as Awaited<ReturnType<typeof metricsOf>>[]) {
          maxLagRecords = Math.max(maxLagRecords, (last as number) - (m.positions.get(EVENT_STORE) ?? 0));
        }
        await sleep(100);
      }
    })();

    // Start-up work (JIT, worker threads) settles first.
    await sleep(2000);
    const cpuBefore = nodes.map((n) => cpuSeconds(n.child.pid!));
    const natsBefore = cpuSeconds(natsPid);
    const t0 = performance.now();
    const per = Math.max(1, Math.floor(CONNECTIONS / count));
    const results = await Promise.all(nodes.map((n) => wrk(`${n.base}/batch/`, script, per, DURATION)));
    const loadMs = performance.now() - t0;
    loading = false;
    await poller;
    const endSeq = await lastSeq();

    // Until the cluster has applied the stream's end: every node's event store (each node
    // applies every event), and each other consumer on one node (destinations run on the one
    // node that holds their claim). When each consumer got there, and each node's CPU then.
    const caughtUp: Map<string, number>[] = nodes.map(() => new Map());
    const endPositions: Map<string, number>[] = nodes.map(() => new Map());
    let cpuAfter: number[] = nodes.map(() => NaN);
    let natsAfter = NaN;
    let doneMs = NaN;
    const tEnd = performance.now();
    while (performance.now() - tEnd < CATCHUP_S * 1000) {
      const ms = await Promise.all(nodes.map(metricsOf));
      const now = performance.now() - tEnd;
      ms.forEach((m, i) => {
        endPositions[i] = m.positions;
        for (const [name, position] of m.positions) if (position >= endSeq && !caughtUp[i].has(name)) caughtUp[i].set(name, now);
      });
      const names = new Set(ms.flatMap((m) => [...m.positions.keys()]));
      const done = caughtUp.every((c) => c.has(EVENT_STORE)) && [...names].every((name) => caughtUp.some((c) => c.has(name)));
      if (done) {
        cpuAfter = nodes.map((n) => cpuSeconds(n.child.pid!));
        natsAfter = cpuSeconds(natsPid);
        doneMs = now;
        break;
      }
      await sleep(50);
    }
    const consumerTimes = nodes.map((n, i) => `${n.name}: ` + [...endPositions[i].keys()].map((name) =>
      `${name} ${caughtUp[i].has(name) ? `${fmt(caughtUp[i].get(name)!)} ms` : `not (${fmt(endSeq - endPositions[i].get(name)!)} records behind)`}`).join(', '));
    const eventStoreMs = caughtUp.map((c) => c.get(EVENT_STORE) ?? NaN);
    // The node whose destinations consumer applied the stream holds their claim.
    const holder = caughtUp.findIndex((c) => c.has('destinations'));
    const natsCpu = natsAfter - natsBefore;
    const ingested = (await Promise.all(nodes.map(async (n) => (await metricsOf(n)).ingested))).reduce((a, b, i) => a + b - ingestedBefore[i], 0);
    const events = results.reduce((a, r) => a + r.requests, 0) * PER_REQUEST;
    if (ingested < events) throw new Error(`wrk counted ${events} events accepted, the nodes ${ingested}`);
    return {
      nodes: count,
      events,
      eventsPerS: events / (loadMs / 1000),
      cpu: nodes.map((n, i) => ({ name: n.name, seconds: cpuAfter[i] - cpuBefore[i], usPerEvent: ((cpuAfter[i] - cpuBefore[i]) / events) * 1e6 })),
      natsUsPerEvent: (natsCpu / events) * 1e6,
      maxLagRecords,
      records: endSeq - startSeq,
      doneMs,
      eventStoreMs,
      loadMs,
      holder,
      consumerTimes,
      latency: results.map((r) => `p50 ${r.p50} p99 ${r.p99}`).join('; '),
      non2xx: results.reduce((a, r) => a + r.non2xx, 0),
    };
  } finally {
    for (const n of nodes) { n.child.kill('SIGKILL'); children.delete(n.child); }
    await nc.close();
    await nats.close();
  }
}

try {
  say(`Node ${process.version}, ${cpus().length} cores; load average before: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  say(`${DURATION} s of /batch/ (${PER_REQUEST} events per request) per phase, ${CONNECTIONS} connections in all, split over the nodes`);
  const all: PhaseResult[] = [];
  let index = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const count of [1, 2] as const) {
      const r = await phase(count, index++);
      all.push(r);
      const applyRates = r.eventStoreMs.map((m, i) => `${r.cpu[i].name} ${fmt(r.events / ((r.loadMs + m) / 1000))}`).join(', ');
      say(`${count === 1 ? 'one node ' : 'two nodes'}: ${fmt(r.eventsPerS)} events/s accepted (${fmt(r.events)} events in ${fmt(r.records)} stream records${r.non2xx ? `, ${r.non2xx} non-2xx` : ''}; ${r.latency}); ` +
        `event store lag during the load at most ${fmt(r.maxLagRecords)} records, applied everywhere ${Number.isNaN(r.doneMs) ? `not within ${CATCHUP_S} s` : `${fmt(Math.max(...r.eventStoreMs))} ms`} after the load ` +
        `(events/s each event store applied, load start to caught up: ${applyRates}; ${r.consumerTimes.join('; ')}); ` +
        `CPU per event until then: ${r.cpu.map((c, i) => `${c.name}${i === r.holder && count === 2 ? ' (destinations)' : ''} ${c.usPerEvent.toFixed(1)} µs (${c.seconds.toFixed(1)} s)`).join(', ')}, nats-server ${r.natsUsPerEvent.toFixed(1)} µs`);
    }
  }
  // The cluster's CPU per event: one node's against the two nodes' together (each applies
  // every event; destinations run on one of them). Means over the rounds.
  const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
  const twos = all.filter((r) => r.nodes === 2 && r.holder >= 0);
  const one = mean(all.filter((r) => r.nodes === 1).map((r) => r.cpu[0].usPerEvent));
  const held = mean(twos.map((r) => r.cpu[r.holder].usPerEvent));
  const other = mean(twos.map((r) => r.cpu[1 - r.holder].usPerEvent));
  say(`mean CPU per event: one node ${one.toFixed(1)} µs; two nodes ${(held + other).toFixed(1)} µs together (${((held + other) / one).toFixed(2)}×): ` +
    `the one running destinations ${held.toFixed(1)} µs, the other (half the capture, all of the event store) ${other.toFixed(1)} µs`);
} finally {
  for (const c of children) c.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}

if (args.record) {
  appendFileSync(join(root, 'bench/RESULTS.md'), `\n## Capture over two nodes of a cluster vs one node (${new Date().toISOString().slice(0, 10)})\n\n` +
    '`node dist/bench/cluster.js' + (DURATION !== 5 ? ` --duration ${DURATION}` : '') + '` on the shared 2-core VM\n\n' + lines.map((l) => `- ${l}`).join('\n') + '\n');
}
