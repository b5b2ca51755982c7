// Sustained throughput end to end (issue 26, item 1): a fixed offered rate of posthog-js-like
// traffic (bench/sdk-traffic: $pageview with ~40 properties, $autocapture, custom events,
// $pageleave, $identify, $set; ~10,000 devices at a time, new ones arriving; gzipped /batch/
// bodies of 50 events) against a real `hedgerow serve` on its embedded default (a fresh
// data dir per rate, no options but the port and data dir), with insights on (the embedded
// default) and three enabled webhook destinations made through the API, delivering to a
// local sink in its own process (bench/destinations-sink):
//   a. every event, the template's body (the whole event and person);
//   b. masking: once per distinct id per 10 minutes;
//   c. filters that match ~10% of events ($pageview whose $current_url contains /pricing).
// The load comes from a child process (bench/sustained-load: bodies built and gzipped
// ahead of time, sent open-loop at the offered rate whatever the server does), so the
// generator is not the bottleneck; its offered and achieved rates and its CPU are reported.
//
// For each rate, for `--seconds` and then until every stage caught up (at most `--drain`):
//   - lag over time per stage, sampled every `--sample-ms` from /metrics
//     (hedgerow_consumer_lag_events of event_store, insights, destinations) and the sink
//     (accepted events − the every-event webhook's deliveries);
//   - freshness: every `--probe-ms` a probe event in its own request; from its 200 to when
//     the events API returns it by uuid (polled every 100 ms, oldest first), an insights
//     count (EventsQuery count(), force_blocking, every 250 ms) counts it, the sink has it;
//   - the server's CPU per event (/proc/<pid>/stat, all threads; during the load, and until
//     caught up), its main thread's, and its peak RSS (VmHWM) and sampled RSS;
//   - the machine: load average, and the CPU that other processes took meanwhile.
// A stage is bounded unless its lag grew over the load's second half by more than 5% of
// the offered rate and ended above 2 s of events (bench/sustained-reading). Rates are tried
// in order (a step search) and the search stops at the first rate with a stage unbounded,
// unless --all.
//   node dist/bench/sustained.js [--rates 1000,2000,5000,10000,20000] [--seconds 60] [--drain 120]
//     [--connections 16] [--probe-ms 1000] [--sample-ms 1000] [--timeline-s 5] [--devices 10000]
//     [--new-devices 0.02] [--all] [--record] [--label TEXT]
// BENCH_SERVER_NODE_ARGS passes node options to the server (e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof"). --record appends a dated section to bench/RESULTS.md.
import { fork, spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { root } from './ceiling.js';
import { jsonLine } from './child-line.js';
import { cpuOf, machineCpu, memoryOf, threadNames, threadsCpu, type MemoryUse } from './proc.js';
import { initDataDir, managementApi, scrapeMetrics, startServe, type ServeChild } from './serve-child.js';
import { stageTable, timelineTable, type Probe, type Sample } from './sustained-reading.js';
import { sustainedDestinations } from './sustained-destinations.js';

const { values: args } = parseArgs({ options: {
  rates: { type: 'string', default: '1000,2000,5000,10000,20000' },
  seconds: { type: 'string', default: '60' },
  drain: { type: 'string', default: '120' },
  connections: { type: 'string', default: '16' },
  'probe-ms': { type: 'string', default: '1000' },
  'sample-ms': { type: 'string', default: '1000' },
  'timeline-s': { type: 'string', default: '5' },
  devices: { type: 'string', default: '10000' },
  'new-devices': { type: 'string', default: '0.02' },
  all: { type: 'boolean', default: false },
  record: { type: 'boolean', default: false },
  label: { type: 'string' },
} });
const RATES = args.rates.split(',').map(Number);
const SECONDS = Number(args.seconds);
const DRAIN = Number(args.drain);
const SAMPLE_MS = Number(args['sample-ms']);

const lines: string[] = [];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-sustained-'));
// One data dir made by `hedgerow init`, copied for each rate: the same project and keys
// (the pooled bodies carry the token), a fresh store each time.
const template = join(work, 'template');
const keys = initDataDir(template);

const sink = spawn(process.execPath, ['dist/bench/destinations-sink.js'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const sinkUrl = `http://127.0.0.1:${(await jsonLine(sink, 'listening', 'sink')).port}`;
const loader = fork(join(root, 'dist/bench/sustained-load.js'), ['--token', keys.project_api_key, '--devices', args.devices, '--new-devices', args['new-devices']], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
await new Promise<void>((resolve) => loader.once('message', () => resolve()));

type LoadDone = {
  offeredEvents: number; achievedEvents: number; eventsSent: number; sentRequests: number; completedRequests: number; p50: number; p99: number; max: number;
  serviceP99: number; non2xx: number; errors: number; unanswered: number; pricingSent: number; probesSent: number; cpuMs: number; endedAt: number;
};
type Pool = { bodies: number; ms: number; rawBytesPerEvent: number; gzBytesPerBody: number; rawBytesPerBody: number };

interface RateResult { rate: number; achieved: number; bounded: boolean; cpuPerEventLoad: number; cpuPerEventAll: number | null; peakMb: number; freshP99: string }

async function runRate(rate: number): Promise<RateResult> {
  const dataDir = join(work, `data-${rate}`);
  cpSync(template, dataDir, { recursive: true });
  const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // The bench polls the API (~15 calls/s): not what the management rate limit is for.
  const server: ServeChild = await startServe({ dataDir, nodeArgs: serverNodeArgs, env: { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1', HEDGEROW_RATE_LIMIT_PER_MINUTE: '1000000' } });
  const api = managementApi(server.base, keys.personal_api_key);
  const fnsPath = `/api/environments/${keys.project_id}/hog_functions/`;
  try {
    for (const d of sustainedDestinations(sinkUrl)) {
      await api('POST', fnsPath, { template_id: 'template-webhook', enabled: true, ...d });
    }
    await fetch(`${sinkUrl}/_reset`, { method: 'POST' });
    const loadBefore = load();

    const probes: Probe[] = [];
    const byId = new Map<string, Probe>();
    const early = new Map<string, number>(); // sink arrivals before the probe's message
    const run: { pool: Pool | null; startedAt: number; done: LoadDone | null } = { pool: null, startedAt: 0, done: null };
    const onMessage = (m: any) => {
      if (m.type === 'pool') run.pool = m;
      else if (m.type === 'started') run.startedAt = m.at;
      else if (m.type === 'probe') {
        const p: Probe = { id: m.id, ackedAt: m.ackedAt, delivered: early.get(m.id) };
        probes.push(p);
        byId.set(p.id, p);
      } else if (m.type === 'done') run.done = m;
    };
    loader.on('message', onMessage);
    loader.send({ type: 'run', port: Number(new URL(server.base).port), rate, seconds: SECONDS, connections: Number(args.connections), probeMs: Number(args['probe-ms']) });
    while (run.startedAt === 0) {
      if (loader.exitCode !== null || loader.signalCode !== null) throw new Error('the load generator exited');
      await sleep(5);
    }
    const startedAt = run.startedAt;
    const cpu0 = cpuOf(server.pid);
    const threads0 = threadsCpu(server.pid);
    const machine0 = machineCpu();
    const others0 = cpuOf(loader.pid!).total + cpuOf(sink.pid!).total;
    const own0 = process.cpuUsage();

    let finished = false;
    const samples: Sample[] = [];
    let peakSample: MemoryUse = memoryOf(server.pid);
    async function sample(loading: boolean): Promise<Sample> {
      const m = await scrapeMetrics(server.base);
      const counts = await (await fetch(`${sinkUrl}/_counts`)).json() as Record<string, number>;
      const lag = (c: string) => m.get(`hedgerow_consumer_lag_events{consumer="${c}"}`) ?? NaN;
      const ingested = m.get('hedgerow_events_ingested_total') ?? NaN;
      const delivered = { a: counts['/fn-a'] ?? 0, b: counts['/fn-b'] ?? 0, c: counts['/fn-c'] ?? 0 };
      const mem = memoryOf(server.pid);
      if (mem.rss > peakSample.rss) peakSample = mem;
      const s: Sample = {
        t: (now() - startedAt) / 1000, loading, ingested, delivered, cpu: cpuOf(server.pid).total - cpu0.total, rssKb: mem.rss,
        lag: { event_store: lag('event_store'), insights: lag('insights'), destinations: lag('destinations'), deliveries: ingested - delivered.a },
      };
      samples.push(s);
      return s;
    }
    const caughtUp = (s: Sample) => s.lag.event_store === 0 && s.lag.insights === 0 && s.lag.destinations === 0 && s.lag.deliveries <= 0;
    const probesDone = () => probes.every((p) => p.stored !== undefined && p.insights !== undefined && p.delivered !== undefined);

    // Freshness: the events API by uuid (oldest probe not yet seen first: the log holds them in order).
    const pollStored = (async () => {
      let i = 0;
      while (!finished) {
        const p = probes[i];
        if (p) {
          const r = await fetch(`${server.base}/api/projects/${keys.project_id}/events/${p.id}/`, { headers: { Authorization: `Bearer ${keys.personal_api_key}` } });
          await r.arrayBuffer();
          if (r.status === 200) {
            p.stored = now();
            i++;
            continue;
          }
        }
        await sleep(100);
      }
    })();
    // An insights count of the probe events: the first n probes are visible once it reads n.
    let queryFailures = 0;
    const pollInsights = (async () => {
      while (!finished) {
        try {
          const body = await api('POST', `/api/environments/${keys.project_id}/query/`, {
            query: { kind: 'EventsQuery', select: ['count()'], event: 'sustained probe', after: '-1h' }, refresh: 'force_blocking',
          });
          const n = Number(body?.results?.[0]?.[0] ?? 0);
          const at = now();
          for (let i = 0; i < Math.min(n, probes.length); i++) probes[i].insights ??= at;
        } catch (err) {
          if (++queryFailures === 1) console.error(`insights count failed: ${(err as Error).message}`);
        }
        await sleep(250);
      }
    })();
    const pollSink = (async () => {
      while (!finished) {
        const arrived = await (await fetch(`${sinkUrl}/_probes`)).json() as Record<string, number>;
        for (const [id, at] of Object.entries(arrived)) {
          const p = byId.get(id);
          if (p) p.delivered ??= at;
          else early.set(id, at);
        }
        await sleep(100);
      }
    })();

    // Samples through the load, then until every stage caught up (or the drain ran out);
    // the moment the load ends, the CPU counters and a sample.
    interface LoadEnd { t: number; cpu: ReturnType<typeof cpuOf>; threads: Map<number, number>; machine: ReturnType<typeof machineCpu>; others: number; own: NodeJS.CpuUsage; sample: Sample }
    let loadEnd: LoadEnd | null = null;
    let drained: Sample | null = null;
    let nextSample = 0;
    for (;;) {
      if (run.done !== null && loadEnd === null) {
        const at = { t: (run.done.endedAt - startedAt) / 1000, cpu: cpuOf(server.pid), threads: threadsCpu(server.pid), machine: machineCpu(), others: cpuOf(loader.pid!).total + cpuOf(sink.pid!).total, own: process.cpuUsage(own0) };
        loadEnd = { ...at, sample: await sample(true) };
        nextSample = now() + SAMPLE_MS;
      }
      if (now() >= nextSample) {
        nextSample += SAMPLE_MS * Math.max(1, Math.ceil((now() - nextSample) / SAMPLE_MS));
        const s = await sample(loadEnd === null);
        if (loadEnd !== null && caughtUp(s) && probesDone()) {
          drained = s;
          break;
        }
        if (loadEnd !== null && s.t > loadEnd.t + DRAIN) break;
      }
      await sleep(20);
    }
    finished = true;
    await Promise.all([pollStored, pollInsights, pollSink]);
    loader.off('message', onMessage);
    const mem = memoryOf(server.pid);
    const threadsEnd = threadsCpu(server.pid);
    const last = samples[samples.length - 1];
    const d = run.done!;
    const p = run.pool!;
    const le = loadEnd!;
    const wall = le.t;
    const ingestedAtLoadEnd = le.sample.ingested;
    const serverCpu = le.cpu.total - cpu0.total;
    const mainCpu = le.cpu.main - cpu0.main;
    const othersCpu = le.others - others0;
    const ownCpu = le.own.user + le.own.system;
    const otherLoad = (le.machine.busy - machine0.busy - serverCpu - othersCpu - ownCpu) / 1e6 / wall;
    const threadShares = [...le.threads].filter(([tid]) => tid !== server.pid)
      .map(([tid, us]) => (us - (threads0.get(tid) ?? 0)) / ingestedAtLoadEnd).sort((a, b) => b - a).slice(0, 8);
    // Over the whole run (the load and the drain), in CPU seconds: to set beside a profile's threads.
    // Named where the thread named itself (the log consumers; V8's, libuv's and DuckDB's threads by their own names).
    const names = threadNames(server.pid);
    const threadSeconds = [...threadsEnd].map(([tid, us]) => [tid, (us - (threads0.get(tid) ?? 0)) / 1e6] as const).filter(([, s]) => s >= 0.05)
      .sort((a, b) => b[1] - a[1]).map(([tid, s]) => `${tid === server.pid ? 'main' : names.get(tid) ?? '?'} ${s.toFixed(1)}`);

    say();
    say(`### ${fmt(rate)} events/s offered for ${SECONDS} s`);
    say();
    say(`Load average before: ${loadBefore}. Pool: ${fmt(p.bodies)} bodies of 50 events built ahead in ${(p.ms / 1000).toFixed(1)} s, ${fmt(p.rawBytesPerEvent)} bytes of JSON per event, ` +
      `${fmt(p.gzBytesPerBody)} bytes gzipped per body (${(p.rawBytesPerBody / p.gzBytesPerBody).toFixed(1)}×).`);
    say(`**Load**: offered ${fmt(rate)} events/s (${(rate / 50).toFixed(0)} requests/s, ${args.connections} connections, open loop), sent ${fmt(d.eventsSent)} events, ` +
      `**achieved ${fmt(d.achievedEvents)} events/s** answered (the server counted ${fmt(ingestedAtLoadEnd)} accepted by the load's end, probes included); ` +
      `request latency from when due p50 ${d.p50.toFixed(1)} ms, p99 ${d.p99.toFixed(1)} ms, max ${d.max.toFixed(0)} ms; non-2xx ${d.non2xx}, errors ${d.errors}, unanswered ${d.unanswered}; ` +
      `${d.probesSent} probes. The generator used ${((d.cpuMs / 1000 / wall) * 100).toFixed(0)}% of a core, the sink and generator together ${((othersCpu / 1e6 / wall) * 100).toFixed(0)}%.`);
    say();
    const table = stageTable(samples, probes, wall, rate, DRAIN);
    for (const l of table.lines) say(l);
    say();
    const cpuAll = drained ? drained.cpu / last.ingested : null;
    say(`**Server CPU** (all threads) ${fmt(serverCpu / ingestedAtLoadEnd)} µs per accepted event during the load (${(serverCpu / 1e6 / wall).toFixed(2)} cores), ` +
      `${cpuAll === null ? `not caught up within ${DRAIN} s (${fmt(last.cpu / last.ingested)} µs per event by then)` : `${fmt(cpuAll)} µs per event until every stage caught up`}; ` +
      `main thread ${fmt(mainCpu / ingestedAtLoadEnd)} µs per event during the load; the 8 busiest other threads ${threadShares.map(fmt).join(', ')} µs per event; ` +
      `CPU seconds per thread over the whole run, load and drain (threads above 0.05 s): ${threadSeconds.join(', ')}. ` +
      `**Peak RSS** (VmHWM) ${fmt(mem.peak / 1024)} MB; largest sampled RSS ${fmt(peakSample.rss / 1024)} MB (${fmt(peakSample.anon / 1024)} MB anonymous, ${fmt(peakSample.file / 1024)} MB file-backed). ` +
      `Other processes took ${otherLoad.toFixed(2)} cores meanwhile; load average after: ${load()}.`);
    say(`Deliveries at the end: a (every event) ${fmt(last.delivered.a)} of ${fmt(last.ingested)} accepted; b (masking) ${fmt(last.delivered.b)}; ` +
      `c (~10%) ${fmt(last.delivered.c)} of ${fmt(d.pricingSent)} matching events sent (${((d.pricingSent / d.eventsSent) * 100).toFixed(1)}% of events).` +
      `${queryFailures ? ` ${queryFailures} insights counts failed.` : ''}`);
    say();
    say('<details><summary>Lag over time</summary>');
    say();
    for (const l of timelineTable(samples, Number(args['timeline-s']))) say(l);
    say();
    say('</details>');
    const fresh = (['stored', 'insights', 'delivered'] as const).map((f) => {
      const ms = probes.filter((x) => x[f] !== undefined).map((x) => x[f]! - x.ackedAt).sort((a, b) => a - b);
      return ms.length ? (ms[Math.min(ms.length - 1, Math.floor(0.99 * ms.length))] / 1000).toFixed(1) : '–';
    }).join(' / ');
    return {
      rate, achieved: d.achievedEvents, bounded: table.bounded, cpuPerEventLoad: serverCpu / ingestedAtLoadEnd, cpuPerEventAll: cpuAll,
      peakMb: mem.peak / 1024, freshP99: fresh,
    };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results: RateResult[] = [];
try {
  say(`Node ${process.version}; ${cpus().length} cores, ${fmt(totalmem() / 2 ** 30)} GB; hedgerow serve unpinned (every thread), the generator and the sink in their own processes, unpinned; ` +
    `${fmt(Number(args.devices))} devices at a time, ${(Number(args['new-devices']) * 100).toFixed(0)}% of events from a new one; probes every ${args['probe-ms']} ms; ` +
    `drain up to ${DRAIN} s.${process.env.BENCH_SERVER_NODE_ARGS ? ` Server node options: ${process.env.BENCH_SERVER_NODE_ARGS}.` : ''}`);
  for (const rate of RATES) {
    const r = await runRate(rate);
    results.push(r);
    if (!r.bounded && !args.all) break;
  }
  say();
  say('| offered events/s | achieved | every lag bounded | server CPU µs/event (load; until caught up) | freshness p99 s (events API / insights / sink) | peak RSS MB |');
  say('|---:|---:|---|---|---|---:|');
  for (const r of results) {
    say(`| ${fmt(r.rate)} | ${fmt(r.achieved)} | ${r.bounded ? 'yes' : '**no**'} | ${fmt(r.cpuPerEventLoad)}; ${r.cpuPerEventAll === null ? 'not caught up' : fmt(r.cpuPerEventAll)} | ${r.freshP99} | ${fmt(r.peakMb)} |`);
  }
  const best = results.filter((r) => r.bounded).map((r) => r.rate);
  say();
  say(`Highest offered rate with every lag bounded: ${best.length ? `**${fmt(Math.max(...best))} events/s**` : 'none of those tried'}` +
    `${results.length < RATES.length ? ` (the search stopped at ${fmt(results[results.length - 1].rate)})` : ''}.`);
} finally {
  loader.kill();
  sink.kill();
  rmSync(work, { recursive: true, force: true });
}

if (args.record) {
  const quoted = process.argv.slice(2).map((a) => (/[\s"]/.test(a) ? JSON.stringify(a) : a)).join(' ');
  const command = `npx tsc -p tsconfig.json && node dist/bench/sustained.js ${quoted}`.trim();
  appendFileSync(new URL('../../bench/RESULTS.md', import.meta.url),
    `\n## Sustained load: posthog-js-like traffic, three destinations, insights on${args.label ? `, ${args.label}` : ''} (${new Date().toISOString().slice(0, 10)})\n\nCommand: \`${command}\`\n\n${lines.join('\n')}\n`);
}
