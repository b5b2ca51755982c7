// The insights consumer's reading of a batch (src/insights/from-store.ts BatchBuilder), in
// this thread, without the log, DuckDB or a server: each event's stored row and the person
// of its distinct id, the persons to send, and the events' staging text (what the loader
// writes for DuckDB). A store is filled once through the event
// store with person processing (`--persons` distinct ids, `--properties` person properties
// each); then batches of `--batch` events (each distinct id once per batch, in a shuffled
// order) are read `--rounds` times:
//   unchanged  the same events again, persons as the last batch loaded them (a steady
//              stream of returning users: the memo should spare the work)
//   changed    every person changed since it was last loaded (each gets a new property)
// Reported: CPU µs per event of each (the process's: V8's collector threads included), for this tree and, with `--baseline DIR`, for another
// built checkout's BatchBuilder over the same store, alternating round by round.
//   node dist/bench/insights-builder.js [--persons 20000] [--properties 30] [--batch 10000] [--rounds 5] [--baseline DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { applyEntries } from '../src/events/consumer.js';
import { createPersonStep } from '../src/persons/index.js';
import { encodeRecord } from '../src/capture/frames.js';
import { decodeRecord } from '../src/capture/frames.js';
import { recordEntry } from '../src/log/record.js';
import type { CapturedEvent } from '../src/log/types.js';
import type { EventGroup } from '../src/log/consumers/index.js';

const { values: args } = parseArgs({ options: {
  persons: { type: 'string', default: '20000' },
  properties: { type: 'string', default: '30' },
  batch: { type: 'string', default: '10000' },
  rounds: { type: 'string', default: '5' },
  baseline: { type: 'string' },
} });
const PERSONS = Number(args.persons);
const PROPS = Number(args.properties);
const BATCH = Math.min(Number(args.batch), PERSONS);
const ROUNDS = Number(args.rounds);
const PER_RECORD = 100;

interface Taken { persons: unknown[]; events?: unknown[]; eventText?: { bytes: Buffer } | null }
interface Builder { addGroups(groups: readonly EventGroup[]): void; take(): Taken; fingerprints: Map<string, unknown>; wholes?: unknown[] }
interface Module {
  BatchBuilder: new (store: unknown, loaded: unknown) => Builder;
  LoadedPersons: new () => { commit(loaded: Map<string, unknown>, wholes?: unknown[]): void };
}
interface Stage { eventLines?(events: unknown[]): string; firstOfEachUuid?(events: unknown[]): unknown[] }

const dir = mkdtempSync(join(tmpdir(), 'hedgerow-insights-builder-'));
const store = openStore(dir, tables);
let seq = 0;
let n = 0;
const t0 = Date.parse('2026-11-27T10:00:00.000Z');

function event(p: number, extra: Record<string, unknown>): CapturedEvent {
  n++;
  const set: Record<string, unknown> = { ...extra };
  for (let i = 0; i < PROPS; i++) set[`prop_${i}`] = `value-${p}-${i}`;
  return {
    uuid: `0193a7a0-0000-7000-8000-${n.toString(16).padStart(12, '0')}`, event: '$pageview', distinct_id: `user-${p}`,
    properties: { $browser: 'Chrome', $current_url: `https://example.com/p/${p % 50}`, $set: set }, timestamp: new Date(t0 + n).toISOString(),
    project_id: 1, ip: null, now: new Date(t0 + n).toISOString(), sent_at: null, historical: false,
  };
}

const step = createPersonStep(store, () => t0, PERSONS * 2);
// Stores events for `ids` through the event store; returns their log records, as the insights consumer reads them.
async function store1(ids: number[], extra: Record<string, unknown>) {
  const records = [];
  for (let i = 0; i < ids.length; i += PER_RECORD) {
    const record = encodeRecord(ids.slice(i, i + PER_RECORD).map((p) => event(p, extra)));
    records.push(recordEntry(++seq, record, decodeRecord));
  }
  for (let i = 0; i < records.length; i += 50) await applyEntries(store, records.slice(i, i + 50), step);
  return records;
}

// A fixed shuffle, so each batch touches its persons in another order than they were made.
function shuffled(count: number): number[] {
  const out = Array.from({ length: count }, (_, i) => i);
  let x = 12345;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const ids = shuffled(PERSONS).slice(0, BATCH);
await store1(shuffled(PERSONS), {});

const targets: { name: string; mod: Module; stage: Stage }[] = [{
  name: 'this tree', mod: await import('../src/insights/from-store.js') as unknown as Module, stage: await import('../src/insights/columnar/stage.js') as unknown as Stage,
}];
if (args.baseline) {
  const dist = join(resolve(args.baseline), 'dist/src/insights');
  targets.push({ name: 'baseline', mod: await import(join(dist, 'from-store.js')) as Module, stage: await import(join(dist, 'columnar/stage.js')) as Stage });
}

// The batch read and its events' staging text made, as the loader makes it before DuckDB reads it.
function read(t: typeof targets[number], memo: InstanceType<Module['LoadedPersons']>, records: EventGroup[]): { us: number; sent: number } {
  const start = process.cpuUsage();
  const b = new t.mod.BatchBuilder(store, memo);
  b.addGroups(records);
  const taken = b.take();
  const sent = taken.persons.length;
  // A tree that stages as it reads (eventText), or one that stages the decoded events after.
  const text = taken.eventText !== undefined ? taken.eventText?.bytes ?? '' : t.stage.eventLines!(t.stage.firstOfEachUuid!(taken.events!));
  if (text.length === 0) throw new Error('nothing staged');
  memo.commit(b.fingerprints, b.wholes);
  const used = process.cpuUsage(start);
  return { us: (used.user + used.system) / BATCH, sent };
}

const results = new Map<string, { unchanged: number[]; changed: number[]; sent: string }>();
const memos = new Map(targets.map((t) => [t.name, new t.mod.LoadedPersons()]));
for (const t of targets) results.set(t.name, { unchanged: [], changed: [], sent: '' });
let records = await store1(ids, { round: 0 });
// Each memo first loads the batch as it is.
for (const t of targets) read(t, memos.get(t.name)!, records);
for (let r = 1; r <= ROUNDS; r++) {
  for (const t of r % 2 ? targets : [...targets].reverse()) {
    const out = read(t, memos.get(t.name)!, records);
    results.get(t.name)!.unchanged.push(out.us);
    results.get(t.name)!.sent = `unchanged sent ${out.sent}`;
  }
  records = await store1(ids, { round: r });
  for (const t of r % 2 ? targets : [...targets].reverse()) {
    const out = read(t, memos.get(t.name)!, records);
    results.get(t.name)!.changed.push(out.us);
    results.get(t.name)!.sent += `, changed sent ${out.sent}`;
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${PERSONS.toLocaleString('en-US')} persons of ${PROPS} properties, batches of ${BATCH.toLocaleString('en-US')} events (one per person), ${ROUNDS} rounds; CPU µs per event, median (all rounds)`);
console.log('| tree | persons unchanged since loaded | persons changed | persons sent |');
console.log('|---|---:|---:|---|');
for (const [name, r] of results) {
  console.log(`| ${name} | ${median(r.unchanged).toFixed(2)} (${r.unchanged.map((x) => x.toFixed(2)).join(', ')}) | ${median(r.changed).toFixed(2)} (${r.changed.map((x) => x.toFixed(2)).join(', ')}) | ${r.sent} |`);
}
await store.close();
rmSync(dir, { recursive: true, force: true });
