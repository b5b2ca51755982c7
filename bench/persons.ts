// Person processing throughput through the real consumer pass (applyEntries with the
// person step) over a real LMDB store, with the mix: 80% ordinary events with a
// $set on an existing person (picked uniformly: no locality to help), 15% new anonymous
// users, 5% $identify merging two existing persons. Twice: once with every $set changing
// the person (each one a write), once with $set repeating what the person already has
// (the common case; nothing to write). The same events through the pass without the
// person step give the event store's own cost.
// The passes run alternately, `--rounds` times each, on fresh stores; the figures are
// medians, because the benchmark machine is shared, and CPU time is reported beside
// wall time (all threads of the process: the consumer's and lmdb's).
//   node dist/bench/persons.js [--events 200000] [--existing 50000] [--rounds 3] [--only 0,1] [--profile DIR] [--record]
// --record appends a dated section to bench/RESULTS.md.
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore, type Store } from '../src/store/env.js';
import { applyEntries, type EventPreparation } from '../src/events/consumer.js';
import type { CapturedEvent, LogEntry } from '../src/log/types.js';
import { createPersonStep } from '../src/persons/step.js';
import { tempDir } from '../test/helpers/server.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '200000' },
  existing: { type: 'string', default: '50000' },
  rounds: { type: 'string', default: '3' },
  record: { type: 'boolean', default: false },
  // Runs only these passes (comma-separated indexes 0–2, in the table's order): for profiling.
  only: { type: 'string' },
  // Writes a CPU profile of each timed part (not the setup) into this directory.
  profile: { type: 'string' },
} });
const EVENTS = Number(args.events);
const EXISTING = Number(args.existing);
const ROUNDS = Number(args.rounds);
// What a capture request batches into one log record, and what the LMDB log reader
// hands the consumer per transaction (src/log/lmdb-log.ts).
const RECORD_EVENTS = 1000;
const PASS_EVENTS = 5000;
const PROJECT = 1;

let seed = 42;
const reseed = () => { seed = 42; uuids = 0; };
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
let uuids = 0;
const t0 = Date.parse('2026-01-01T00:00:00.000Z');

function event(name: string, distinctId: string, properties: Record<string, unknown>): CapturedEvent {
  const n = ++uuids;
  return {
    uuid: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`, event: name, distinct_id: distinctId, properties,
    timestamp: new Date(t0 + n).toISOString(), project_id: PROJECT, ip: '10.0.0.1', now: new Date(t0 + n).toISOString(), sent_at: null, historical: false,
  };
}

function entries(events: CapturedEvent[], firstSeq: number): LogEntry[] {
  const out: LogEntry[] = [];
  for (let i = 0; i < events.length; i += RECORD_EVENTS) out.push({ seq: firstSeq + out.length, events: events.slice(i, i + RECORD_EVENTS) });
  return out;
}

// Existing anonymous persons, then the timed mix over them.
function workload(changing: boolean) {
  reseed();
  const anonymous = Array.from({ length: EXISTING }, (_, i) => `anon-${i}`);
  const setup = anonymous.map((id) => event('$pageview', id, { $current_url: 'https://example.com/', $set_once: { landing: '/' }, $set: { plan: 'free' } }));
  const unidentified = [...anonymous];
  const known = [...anonymous];
  const timed: CapturedEvent[] = [];
  const mix = { set: 0, created: 0, merged: 0 };
  for (let i = 0; i < EVENTS; i++) {
    const r = random();
    if (r < 0.8 || unidentified.length < 2) {
      // Changing: `last_page` is new each time. Repeating: only the URL changes, which
      // alone is not worth a write (a noisy key), and the plan is the one already set.
      const set = changing ? { last_page: i, plan: pick(['free', 'pro', 'team']) } : { plan: 'free' };
      timed.push(event('$pageview', pick(known), { $current_url: `https://example.com/${i % 50}`, $set: set }));
      mix.set++;
    } else if (r < 0.95) {
      const id = `new-${i}`;
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
  return { setup, timed, mix };
}

let profiles = 0;
async function run(label: string, withPersons: boolean, setup: CapturedEvent[], timed: CapturedEvent[]) {
  const dir = tempDir('hedgerow-bench-persons-');
  const store: Store = openStore(dir);
  const step = withPersons ? createPersonStep(store) : undefined;
  const pass = (es: LogEntry[]) => applyEntries(store, es, step as (() => EventPreparation) | undefined);
  try {
    const setupEntries = entries(setup, 1);
    for (let i = 0; i < setupEntries.length; i += PASS_EVENTS / RECORD_EVENTS) await pass(setupEntries.slice(i, i + PASS_EVENTS / RECORD_EVENTS));
    const timedEntries = entries(timed, setupEntries.length + 1);
    const session = args.profile === undefined ? null : new Session();
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < timedEntries.length; i += PASS_EVENTS / RECORD_EVENTS) await pass(timedEntries.slice(i, i + PASS_EVENTS / RECORD_EVENTS));
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const cpu = process.cpuUsage(cpuStart);
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(args.profile!, { recursive: true });
      writeFileSync(join(args.profile!, `persons-${profiles++}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    }
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    return { label, perSecond: timed.length / seconds, seconds, perCpuSecond: timed.length / cpuSeconds };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const changing = workload(true);
const repeating = workload(false);
const { mix } = changing;
// Fresh copies per run: the pass rewrites event properties in place.
const copy = (es: CapturedEvent[]) => es.map((e) => ({ ...e, properties: structuredClone(e.properties) }));
const allPasses = [
  { label: 'event store + persons, every $set a change', withPersons: true, w: changing },
  { label: 'event store + persons, $set repeating known values', withPersons: true, w: repeating },
  { label: 'event store alone (same events)', withPersons: false, w: changing },
];
const passes = args.only === undefined ? allPasses : args.only.split(',').map((i) => allPasses[Number(i)]);
const runs: Awaited<ReturnType<typeof run>>[][] = passes.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  for (const [i, p] of passes.entries()) runs[i].push(await run(p.label, p.withPersons, copy(p.w.setup), copy(p.w.timed)));
}
const median = (rs: Awaited<ReturnType<typeof run>>[]) => [...rs].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rs.length / 2)];
const rows = runs.map(median);
const personCostUs = rows.length === 3 ? (1 / rows[0].perSecond - 1 / rows[2].perSecond) * 1e6 : NaN;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const table = [
  '| pass | events/s (median) | events per CPU-second | all rounds, events/s |',
  '|---|---:|---:|---|',
  ...rows.map((r, i) => `| ${r.label} | ${fmt(r.perSecond)} | ${fmt(r.perCpuSecond)} | ${runs[i].map((x) => fmt(x.perSecond)).join(', ')} |`),
].join('\n');
const summary = `mix: ${fmt(mix.set)} $set on existing persons, ${fmt(mix.created)} new anonymous users, ${fmt(mix.merged)} identify merges; ` +
  `with every $set a change, person processing adds ${personCostUs.toFixed(1)} µs per event to the pass`;
console.log(`\n${table}\n\n${summary}\n`);

if (args.record) {
  const section = [
    '',
    `## Person processing through the consumer pass (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Command: \`npx tsc -p tsconfig.json && node dist/bench/persons.js --events ${EVENTS} --existing ${EXISTING} --rounds ${ROUNDS} --record\``,
    `Node ${process.version}, ${fmt(EXISTING)} existing persons, ${fmt(EVENTS)} timed events in records of ${RECORD_EVENTS},`,
    `${PASS_EVENTS} events per transaction (what the LMDB log reader hands the consumer); medians of ${ROUNDS} alternating rounds.`,
    '',
    table,
    '',
    summary,
    '',
  ].join('\n');
  appendFileSync(join(process.cwd(), 'bench', 'RESULTS.md'), section);
  console.log('appended to bench/RESULTS.md');
}
