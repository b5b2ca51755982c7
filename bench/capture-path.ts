// In-process cost of the capture path per event, in CPU microseconds (user + system of
// the whole process, so lmdb-js's write thread counts), which shared-machine noise
// disturbs far less than wall-clock rates. Stages:
//   front   what the main thread does per request besides HTTP and the log commit:
//           decode, normalize or scan, and encode what goes into the log
//   reader  what the consumer thread does to turn a log record back into events
//   store   the event-store pass (src/events/consumer.ts) into a real LMDB store,
//           alone and with the person step, one transaction per 10 records
// Bodies as bench/capture sends them: one ~280-byte event, and 100 events per batch;
// "+uuid" bodies carry client uuids as posthog-js and posthog-node send them.
//   node dist/bench/capture-path.js [--rounds 15] [--stages front,reader,store]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { applyEntries } from '../src/events/consumer.js';
import { createPersonStep } from '../src/persons/step.js';
import * as capture from './capture-path-subjects.js';
import type { LogEntry } from '../src/log/types.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' }, stages: { type: 'string', default: 'front,reader,store' } } });
const ROUNDS = Number(values.rounds);
const stages = new Set(values.stages!.split(','));

function event(i: number, uuid: boolean) {
  return {
    event: '$pageview', distinct_id: `user-${i}`, timestamp: new Date().toISOString(),
    properties: { $current_url: 'https://example.com/pricing?ref=newsletter', $browser: 'Firefox', $os: 'Linux', $lib: 'bench', plan: 'pro' },
    ...(uuid ? { uuid: randomUUID() } : {}),
  };
}
const bodies = [
  { name: 'single', events: 1, body: (uuid: boolean) => JSON.stringify({ ...event(0, uuid), api_key: 'phc_bench' }) },
  { name: 'batch', events: 100, body: (uuid: boolean) => JSON.stringify({ api_key: 'phc_bench', batch: Array.from({ length: 100 }, (_, i) => event(i, uuid)) }) },
];

const cpuNow = () => { const u = process.cpuUsage(); return u.user + u.system; };

// Median over rounds of CPU µs per event; each round runs `fn` until ~`events` events.
async function measure(eventsPerCall: number, fn: () => unknown, targetEvents = 50_000): Promise<number> {
  const calls = Math.max(1, Math.round(targetEvents / eventsPerCall));
  for (let i = 0; i < Math.min(calls, 2000); i++) await fn();
  const perEvent: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = cpuNow();
    for (let i = 0; i < calls; i++) await fn();
    perEvent.push((cpuNow() - start) / (calls * eventsPerCall));
  }
  perEvent.sort((a, b) => a - b);
  return perEvent[perEvent.length >> 1];
}

const rows: string[][] = [];
const row = (...cells: string[]) => { rows.push(cells); console.log(cells.join('  ')); };
const us = (n: number) => n.toFixed(2);

for (const subject of capture.subjects) {
  for (const b of bodies) {
    for (const withUuid of [false, true]) {
      const label = `${b.name}${withUuid ? '+uuid' : ''}`;
      const body = Buffer.from(b.body(withUuid));
      const query = new URLSearchParams();
      if (stages.has('front')) {
        const front = await measure(b.events, () => subject.front(body, query));
        row(subject.name, label, 'front', us(front));
      }
      if (stages.has('reader')) {
        const record = await subject.record(body, query, 1);
        const reader = await measure(b.events, () => subject.read(record));
        row(subject.name, label, 'reader', us(reader));
      }
    }
  }
}

if (stages.has('store')) {
  // The store pass on the batch body's events; fresh uuids for every record so the
  // idempotency check never short-cuts a write. 10 records per transaction. Subjects
  // take turns round by round, each with its own store, so drift in the machine's load
  // (and its disk) falls on all of them alike.
  for (const person of [false, true]) {
    const runs = capture.subjects.map((subject) => {
      const dir = mkdtempSync(join(tmpdir(), 'hedgerow-bench-path-'));
      const store = openStore(dir, tables);
      return { subject, dir, store, step: person ? createPersonStep(store) : undefined, perEvent: [] as number[] };
    });
    const query = new URLSearchParams();
    let seq = 0;
    for (let r = 0; r < Math.max(5, ROUNDS >> 1) + 2; r++) {
      for (const run of runs) {
        const batches: LogEntry[][] = [];
        for (let i = 0; i < 20; i++) {
          const entries: LogEntry[] = [];
          for (let j = 0; j < 10; j++) {
            entries.push({ seq: ++seq, events: run.subject.read(await run.subject.record(Buffer.from(bodies[1].body(false)), query, 1)) });
          }
          batches.push(entries);
        }
        const start = cpuNow();
        for (const entries of batches) await applyEntries(run.store, entries, run.step);
        if (r >= 2) run.perEvent.push((cpuNow() - start) / (20 * 1000));
      }
    }
    for (const run of runs) {
      run.perEvent.sort((a, b) => a - b);
      row(run.subject.name, 'batch', person ? 'store+persons' : 'store', us(run.perEvent[run.perEvent.length >> 1]));
      await run.store.close();
      rmSync(run.dir, { recursive: true, force: true });
    }
  }
}

console.log('\n| subject | body | stage | CPU µs/event |\n|---|---|---|---:|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
