// Person processing throughput through the real consumer over a real LMDB store, against
// the capture ceiling measured in the same run (issue 3: the person consumer must keep up
// with the ceiling of bench/capture, issue 2).
//
// The workload is the mix: 80% ordinary events with a $set on an existing person
// (picked uniformly: no locality to help), 15% new anonymous users, 5% $identify merging
// two unidentified persons. The consumer is fed what it really reads: capture requests
// of 100 events ({api_key, batch}), one capture frame each, in records of 10 frames
// (1,000 events) as the group commit writes them, in the store's own LMDB log. The timed
// part is the consumer thread's loop itself (src/log/consumers/ with the event store's handler): the
// LMDB log reader hands over records up to `--pass-bytes` at a time, and applyEntriesIsolating
// decodes each record as it reaches it (JSON.parse of the request text and buildEvents)
// and applies it with the person step, one transaction per hand-over.
//
// Four passes: every $set changing the person (each one a write); $set repeating what
// the person already has (the common case; nothing to write); the same events without
// the person step (the event store's own cost); every $set a change again, but with the
// $set events coming from persons in sessions, as real traffic does (a person's changes
// in one transaction are one write). Existing persons are written first, in untimed
// passes, on a fresh store per pass.
//
// The whole process (every thread) is pinned to CPU 0, so the consumer gets one core,
// as the ceiling server does. Each round measures the ceiling first (bench/ceiling.ts:
// bare uWS that reads and JSON-parses one ~250-byte event per request, on CPU 0, wrk on
// CPU 1, 64 connections), then every pass; the ratio pass events/s ÷ ceiling requests/s
// is taken per round, on the same machine state. Figures are medians over rounds, since
// the machine is shared; CPU time is reported beside wall time (all threads of the
// process: the consumer's and lmdb's; for the ceiling, the server process's).
//   node dist/bench/persons.js [--events 200000] [--existing 50000] [--rounds 3] [--only 0,1]
//     [--pass-bytes 16777216] [--no-ceiling] [--ceiling-duration 10] [--ceiling-warmup 2]
//     [--profile DIR] [--record] [--transformer]
// --record appends a dated section to bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/index.js';
import { tables, type Store } from '../src/tables.js';
import { eventStorePosition } from '../src/events/consumer.js';
import type { EventPreparation } from '../src/persons/step.js';
import { applyEntriesIsolating } from '../src/events/store-consumer.js';
import { openTransformer } from '../src/destinations/runtime/transformer.js';
import type { LogFrame } from '../src/log/types.js';
import { encodeFrames } from '../src/log/record.js';
import { captureFrame, decodeRecord, captureCodec } from '../src/capture/frames.js';
import { createLmdbLogReader, READ_BYTE_BUDGET } from '../src/log/lmdb-log.js';
import { scanCapture } from '../src/capture/scan.js';
import { createPersonStep } from '../src/persons/step.js';
import { tempDir } from '../test/helpers/server.js';
import { xorshift } from '../test/helpers/xorshift.js';
import { measureCeiling, type Ceiling } from './ceiling.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '200000' },
  existing: { type: 'string', default: '50000' },
  rounds: { type: 'string', default: '3' },
  record: { type: 'boolean', default: false },
  // The event store with its transformations step (no project has one: what that costs).
  transformer: { type: 'boolean', default: false },
  // Runs only these passes (comma-separated indexes 0–3, in the table's order): for profiling.
  only: { type: 'string' },
  // Writes a CPU profile of each timed part (not the setup) into this directory.
  profile: { type: 'string' },
  // Log bytes per consumer transaction at most; defaults to the LMDB log reader's budget.
  'pass-bytes': { type: 'string', default: String(READ_BYTE_BUDGET) },
  // Leaves out the ceiling (and the ratios).
  'no-ceiling': { type: 'boolean', default: false },
  'ceiling-duration': { type: 'string', default: '10' },
  'ceiling-warmup': { type: 'string', default: '2' },
} });
const EVENTS = Number(args.events);
const EXISTING = Number(args.existing);
const ROUNDS = Number(args.rounds);
const PASS_BYTES = Number(args['pass-bytes']);
const CEILING = !args['no-ceiling'];
// Issue 2's ceiling: 64 connections; a short warm-up, then about 10 s measured.
const CEILING_WRK = { warmup: Number(args['ceiling-warmup']), duration: Number(args['ceiling-duration']), connections: 64 };
// A capture request's events (one frame), and the frames of one group commit (one record).
const REQUEST_EVENTS = 100;
const RECORD_FRAMES = 10;
const RECORD_EVENTS = REQUEST_EVENTS * RECORD_FRAMES;
const PROJECT = 1;
const CLIENT_IP = '10.0.0.1';
const NO_QUERY = new URLSearchParams();

const command = ['node', relative(process.cwd(), process.argv[1]), ...process.argv.slice(2)]
  .map((a) => (/^[\w./,=:-]+$/.test(a) ? a : `'${a}'`)).join(' ');
const loadAtStart = loadavg();

let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
// The ids' random bits: a generator of their own (the LCG above repeats its low bits,
// and its product loses precision past 2^53, so its ids would collide).
let idRandom = xorshift(7);
const reseed = () => { seed = 42; idRandom = xorshift(7); uuids = 0; };
const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
let uuids = 0;
const t0 = Date.parse('2026-01-01T00:00:00.000Z');

// Existing persons first came at some time in the 90 days before the mix.
const FIRST_VISITS_MS = 90 * 86_400_000;

// A UUIDv7 for `ms`, as posthog-js and posthog-node make event uuids and anonymous
// distinct ids. Its random bits come from a generator of their own, so the mix is the
// same whatever the ids look like. (Ids that share a long prefix, as a counter padded
// into a fixed uuid does, make every B-tree key comparison walk that prefix: the event
// store alone measured about a tenth slower on them; bench/RESULTS.md.)
function uuidv7(ms: number): string {
  const hex = (digits: number) => Math.floor(idRandom() * 16 ** digits).toString(16).padStart(digits, '0');
  const t = ms.toString(16).padStart(12, '0');
  const variant = (8 + Math.floor(idRandom() * 4)).toString(16);
  return `${t.slice(0, 8)}-${t.slice(8)}-7${hex(3)}-${variant}${hex(3)}-${hex(6)}${hex(6)}`;
}

// An event as an SDK sends it in a batch.
interface SentEvent { uuid: string; event: string; distinct_id: string; properties: Record<string, unknown>; timestamp: string }
function event(name: string, distinctId: string, properties: Record<string, unknown>): SentEvent {
  const n = ++uuids;
  return { uuid: uuidv7(t0 + n), event: name, distinct_id: distinctId, properties, timestamp: new Date(t0 + n).toISOString() };
}

// The frame capture writes for one /batch/ request of these events, received as the
// last of them happens.
function requestFrame(batch: SentEvent[]): LogFrame {
  const body = { api_key: 'phc_bench', batch };
  const { sentAtMs, historical, droppedAt, kept, missingUuids } = scanCapture(body, NO_QUERY);
  if (kept !== batch.length) throw new Error(`capture would drop ${batch.length - kept} of the bench's events`);
  const nowMs = Date.parse(batch[batch.length - 1].timestamp);
  return captureFrame({ projectId: PROJECT, nowMs, ip: CLIENT_IP, sentAtMs, historical, droppedAt, kept, missingUuids }, Buffer.from(JSON.stringify(body)));
}

// The log records these events arrive in.
function records(events: SentEvent[]): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < events.length; i += RECORD_EVENTS) {
    const frames: LogFrame[] = [];
    const end = Math.min(i + RECORD_EVENTS, events.length);
    for (let j = i; j < end; j += REQUEST_EVENTS) frames.push(requestFrame(events.slice(j, Math.min(j + REQUEST_EVENTS, end))));
    out.push(encodeFrames(frames));
  }
  return out;
}

// Real traffic comes in sessions: a person sends a run of events, then goes quiet.
// With `sessions`, the $set events pick among SESSIONS persons active at a time, each
// replaced by another known person after SESSION_EVENTS events on average.
const SESSIONS = 1000;
const SESSION_EVENTS = 15;

// Existing anonymous persons, then the timed mix over them.
function workload(changing: boolean, sessions = false) {
  reseed();
  const anonymous = Array.from({ length: EXISTING }, () => uuidv7(t0 - Math.floor(idRandom() * FIRST_VISITS_MS)));
  const setup = anonymous.map((id) => event('$pageview', id, { $current_url: 'https://example.com/', $set_once: { landing: '/' }, $set: { plan: 'free' } }));
  const unidentified = [...anonymous];
  const known = [...anonymous];
  const timed: SentEvent[] = [];
  const mix = { set: 0, created: 0, merged: 0 };
  const active: string[] = [];
  const inSession = () => {
    if (active.length < SESSIONS) return active[active.push(pick(known)) - 1];
    const slot = Math.floor(random() * SESSIONS);
    if (random() < 1 / SESSION_EVENTS) active[slot] = pick(known);
    return active[slot];
  };
  for (let i = 0; i < EVENTS; i++) {
    const r = random();
    if (r < 0.8 || unidentified.length < 2) {
      // Changing: `last_page` is new each time. Repeating: only the URL changes, which
      // alone is not worth a write (a noisy key), and the plan is the one already set.
      const set = changing ? { last_page: i, plan: pick(['free', 'pro', 'team']) } : { plan: 'free' };
      timed.push(event('$pageview', sessions ? inSession() : pick(known), { $current_url: `https://example.com/${i % 50}`, $set: set }));
      mix.set++;
    } else if (r < 0.95) {
      const id = uuidv7(t0 + EXISTING + i);
      timed.push(event('$pageview', id, { $set_once: { landing: '/pricing' } }));
      known.push(id);
      unidentified.push(id);
      mix.created++;
    } else {
      // Two persons that are both unidentified: the anonymous one merges into the other.
      const anon = unidentified.splice(Math.floor(random() * unidentified.length), 1)[0];
      const user = unidentified.splice(Math.floor(random() * unidentified.length), 1)[0];
      timed.push(event('$identify', user, { $anon_distinct_id: anon, $set: { email: `${user}@example.com` } }));
      mix.merged++;
    }
  }
  if (new Set(known).size !== known.length || new Set([...setup, ...timed].map((e) => e.uuid)).size !== setup.length + timed.length) {
    throw new Error('the workload repeats a distinct id or an event uuid');
  }
  const w = { setup: records(setup), timed: records(timed), events: timed.length, mix };
  // What the reader gets back: every event, in the frame's project.
  const first = decodeRecord(w.timed[0]);
  if (first.length !== Math.min(RECORD_EVENTS, EVENTS) || first[0].uuid !== timed[0].uuid || first.some((e) => e.project_id !== PROJECT)) {
    throw new Error('a record does not decode to the events it was built from');
  }
  return w;
}
type Workload = ReturnType<typeof workload>;

// Appends records to the store's log after `lastSeq`; returns the new last sequence.
async function appendRecords(store: Store, recs: Buffer[], lastSeq: number): Promise<number> {
  await store.logRoot.transaction(() => { recs.forEach((r, i) => store.log.put(lastSeq + i + 1, r)); });
  return lastSeq + recs.length;
}

// The consumer thread's loop (runEventStore) until it has applied the log through `last`.
async function consumeThrough(store: Store, step: (() => EventPreparation) | undefined, last: number): Promise<void> {
  const reader = createLmdbLogReader(store, captureCodec, PASS_BYTES);
  const done = new AbortController();
  const transformer = args.transformer ? openTransformer({ store, dataDir: tempDir('hedgerow-bench-transform-'), siteUrl: 'http://localhost', now: Date.now }) : undefined;
  try {
    await reader.consume(eventStorePosition(store), async (entries) => {
      await applyEntriesIsolating(store, entries, { startPreparation: step, transformer });
      if (entries[entries.length - 1].seq >= last) done.abort();
    }, done.signal);
  } finally {
    await reader.close();
    await transformer?.close();
  }
}

// What the store holds after a pass: the check that the mix did what it says.
function storeCounts(store: Store) {
  return {
    events: store.eventRows.getCount(), persons: store.persons.getCount(), distinctIds: store.personDistinctIds.getCount(),
    merged: store.personRedirects.getCount(), warnings: store.ingestionWarnings.getCount(),
  };
}
type Counts = ReturnType<typeof storeCounts>;
function expectedCounts(w: Workload, withPersons: boolean): Counts {
  const events = EXISTING + w.events;
  if (!withPersons) return { events, persons: 0, distinctIds: 0, merged: 0, warnings: 0 };
  return { events, persons: EXISTING + w.mix.created - w.mix.merged, distinctIds: EXISTING + w.mix.created, merged: w.mix.merged, warnings: 0 };
}
const showCounts = (c: Counts) =>
  `${fmt(c.events)} events, ${fmt(c.persons)} persons, ${fmt(c.distinctIds)} distinct ids, ${fmt(c.merged)} merged away, ${fmt(c.warnings)} ingestion warnings`;

interface PassResult { perSecond: number; perCpuSecond: number; seconds: number; counts: Counts }

let profiles = 0;
async function run(withPersons: boolean, w: Workload): Promise<PassResult> {
  const dir = tempDir('hedgerow-bench-persons-');
  const store: Store = openStore(dir, tables);
  const step = withPersons ? createPersonStep(store) : undefined;
  try {
    const setupLast = await appendRecords(store, w.setup, 0);
    await consumeThrough(store, step, setupLast);
    const last = await appendRecords(store, w.timed, setupLast);
    const session = args.profile === undefined ? null : new Session();
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    await consumeThrough(store, step, last);
    const ns = Number(process.hrtime.bigint() - start);
    const cpu = process.cpuUsage(cpuStart);
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(args.profile!, { recursive: true });
      writeFileSync(join(args.profile!, `persons-${profiles++}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    }
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    return { perSecond: w.events / (ns / 1e9), seconds: ns / 1e9, perCpuSecond: w.events / cpuSeconds, counts: storeCounts(store) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Every thread of this process on CPU 0 (threads started later inherit it).
function pinToCpu0(): number {
  execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  const threads = readdirSync(`/proc/${process.pid}/task`);
  for (const tid of threads) {
    const allowed = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${process.pid}/task/${tid}/status`, 'utf8'))?.[1];
    if (allowed !== '0') throw new Error(`thread ${tid} is allowed on CPUs ${allowed}, not 0 alone`);
  }
  return threads.length;
}

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const ratio = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '—');
const loads = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const changing = workload(true);
const repeating = workload(false);
const inSessions = workload(true, true);
const allPasses = [
  { label: 'event store + persons, every $set a change', withPersons: true, w: changing },
  { label: 'event store + persons, $set repeating known values', withPersons: true, w: repeating },
  { label: 'event store alone (same events as the first)', withPersons: false, w: changing },
  { label: `event store + persons, every $set a change, in sessions (${SESSIONS} at a time, ~${SESSION_EVENTS} events each)`, withPersons: true, w: inSessions },
];
const passes = (args.only === undefined ? allPasses.map((_, i) => i) : args.only.split(',').map(Number)).map((index) => ({ ...allPasses[index], index }));
const threads = pinToCpu0();
console.log(`pinned ${threads} threads of this process to CPU 0; ${EVENTS.toLocaleString('en-US')} timed events in ${changing.timed.length} records of ` +
  `${RECORD_FRAMES} capture frames × ${REQUEST_EVENTS} events, transactions of up to ${fmt(PASS_BYTES)} log bytes; load average ${loads(loadAtStart)}`);

const ceilings: Ceiling[] = [];
const results: PassResult[][] = passes.map(() => []);
const mismatches: string[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const load = loadavg();
  const ceiling = CEILING ? await measureCeiling(CEILING_WRK) : null;
  if (ceiling) ceilings.push(ceiling);
  for (const [i, p] of passes.entries()) {
    const res = await run(p.withPersons, p.w);
    results[i].push(res);
    const want = expectedCounts(p.w, p.withPersons);
    if (JSON.stringify(res.counts) !== JSON.stringify(want)) mismatches.push(`round ${r + 1}, ${p.label}: store has ${showCounts(res.counts)}; expected ${showCounts(want)}`);
  }
  console.log(`round ${r + 1} (load ${loads(load)}): ` + [
    ...(ceiling ? [`ceiling ${fmt(ceiling.rps)} req/s`] : []),
    ...passes.map((p, i) => `pass ${p.index} ${fmt(results[i][r].perSecond)} events/s` + (ceiling ? ` (${ratio(results[i][r].perSecond / ceiling.rps)}× ceiling)` : '')),
  ].join('; '));
}
const loadAtEnd = loadavg();

// Events per CPU-second of the ceiling: requests over the server process's CPU time.
const ceilingPerCpu = (c: Ceiling) => c.requests / (c.cpu.total / 1e6);
const ceilingLabel = 'ceiling: bare uWS + JSON.parse, 1 event per request (requests/s)';
const medianRows = [
  ...(CEILING ? [`| ${ceilingLabel} | ${fmt(median(ceilings.map((c) => c.rps)))} | ${fmt(median(ceilings.map(ceilingPerCpu)))} | 1.00 | 1.00 | ${ceilings.map((c) => fmt(c.rps)).join(', ')} | — |`] : []),
  ...passes.map((p, i) => {
    const rs = results[i];
    const wall = rs.map((x, r) => (CEILING ? x.perSecond / ceilings[r].rps : NaN));
    const perCpu = rs.map((x, r) => (CEILING ? x.perCpuSecond / ceilingPerCpu(ceilings[r]) : NaN));
    return `| ${p.label} | ${fmt(median(rs.map((x) => x.perSecond)))} | ${fmt(median(rs.map((x) => x.perCpuSecond)))} | ${ratio(median(wall))} | ${ratio(median(perCpu))} | ` +
      `${rs.map((x) => fmt(x.perSecond)).join(', ')} | ${wall.map(ratio).join(', ')} |`;
  }),
];
const medians = [
  `| target | events/s (median) | events per CPU-second (median) | ÷ ceiling, events/s (median of rounds) | ÷ ceiling, per CPU-second (median of rounds) | events/s, every round | ÷ ceiling, every round |`,
  '|---|---:|---:|---:|---:|---|---|',
  ...medianRows,
].join('\n');
const roundRows: string[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const c = CEILING ? ceilings[r] : null;
  if (c) roundRows.push(`| ${r + 1} | ceiling (p50 ${c.p50ms.toFixed(2)} ms, p99 ${c.p99ms.toFixed(2)} ms, ${c.non2xx} non-2xx) | ${fmt(c.rps)} | ${fmt(ceilingPerCpu(c))} | 1.00 | 1.00 |`);
  for (const [i, p] of passes.entries()) {
    const x = results[i][r];
    roundRows.push(`| ${r + 1} | ${p.label} | ${fmt(x.perSecond)} | ${fmt(x.perCpuSecond)} | ${c ? ratio(x.perSecond / c.rps) : '—'} | ${c ? ratio(x.perCpuSecond / ceilingPerCpu(c)) : '—'} |`);
  }
}
const everyRound = [
  '| round | target | events/s | events per CPU-second | ÷ ceiling, events/s | ÷ ceiling, per CPU-second |',
  '|---:|---|---:|---:|---:|---:|',
  ...roundRows,
].join('\n');
const passRate = (index: number) => {
  const i = passes.findIndex((p) => p.index === index);
  return i < 0 ? NaN : median(results[i].map((x) => x.perSecond));
};
const personCostUs = (1 / passRate(0) - 1 / passRate(2)) * 1e6;
const mixLine = (name: string, w: Workload) =>
  `${name}: ${fmt(w.mix.set)} $set on existing persons, ${fmt(w.mix.created)} new anonymous users, ${fmt(w.mix.merged)} identify merges`;
const summary = [
  `mix (${fmt(EXISTING)} existing persons first, untimed) — ${mixLine('every $set a change', changing)}; ${mixLine('repeating', repeating)}; ${mixLine('in sessions', inSessions)}.`,
  ...passes.map((p, i) => `store after "${p.label}": ${showCounts(results[i][0].counts)}.`),
  mismatches.length === 0 ? 'Every pass left the store with the persons, distinct ids and merges the mix implies.' : `MISMATCH: ${mismatches.join('; ')}`,
  ...(Number.isFinite(personCostUs) ? [`With every $set a change, person processing adds ${personCostUs.toFixed(1)} µs per event to the pass (wall, medians).`] : []),
].join('\n');
console.log(`\n${medians}\n\n${everyRound}\n\n${summary}\n\nload average at start ${loads(loadAtStart)}, at end ${loads(loadAtEnd)}\n`);
if (mismatches.length > 0) process.exitCode = 1;

if (args.record) {
  const section = [
    '',
    `## Person processing through the consumer vs the capture ceiling (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Command: \`npx tsc -p tsconfig.json && ${command}\``,
    `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}; load average at start ${loads(loadAtStart)}, at end ${loads(loadAtEnd)}.`,
    `${fmt(EXISTING)} existing persons, ${fmt(EVENTS)} timed events as capture requests of ${REQUEST_EVENTS} events, one frame each, in records of ${RECORD_FRAMES} frames;`,
    `timed: the consumer loop over the store's LMDB log (reader, decoding, applyEntriesIsolating), transactions of up to ${fmt(PASS_BYTES)} log bytes; the whole process pinned to CPU 0.`,
    CEILING
      ? `Ceiling in the same run before the passes of each round: bench/ceiling-server on CPU 0, wrk on CPU 1, ${CEILING_WRK.connections} connections, ` +
        `${ceilings[0]?.bodyBytes ?? '?'}-byte event per request, ${CEILING_WRK.duration} s after ${CEILING_WRK.warmup} s of warm-up. ${ROUNDS} rounds; medians, and every round below.`
      : `No ceiling measured (--no-ceiling). ${ROUNDS} rounds; medians, and every round below.`,
    '',
    medians,
    '',
    everyRound,
    '',
    summary,
    '',
  ].join('\n');
  appendFileSync(join(process.cwd(), 'bench', 'RESULTS.md'), section);
  console.log('appended to bench/RESULTS.md');
}
