// The event store consumer told to stop part way through a batch (issue 26): it leaves the
// batch between its runs of records, each committed with the position it reaches, and the
// next start applies the rest; over the stop every event is prepared (person processing)
// and stored exactly once. Also a run that fails after others committed: the ladder's
// retry skips what they covered.
import { suite } from 'uvu';
import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { captureCodec } from '../../src/capture/frames.js';
import { createLmdbLog, createLmdbLogReader } from '../../src/log/lmdb-log.js';
import { defineConsumer, runConsumer } from '../../src/log/consumers/index.js';
import { EVENT_STORE_CONSUMER } from '../../src/events/consumer.js';
import { eventStoreHandler } from '../../src/events/store-consumer.js';
import { createPersonStep } from '../../src/persons/index.js';
import type { Store } from '../../src/tables.js';
import { storePerTest } from '../helpers/temp-store.js';
import { eventually } from '../helpers/wait.js';
import { logEvents } from '../helpers/log-events.js';

let store: Store;
const s = suite('event store: a stop mid-batch');
storePerTest(s, 'hedgerow-events-stop-', (opened) => { store = opened; });

// 40 records of 100 events of ~1 KB: ~4 MiB of log, handed over as one batch (the
// reader's 16 MiB), which the consumer stores in runs of about 1 MiB.
const RECORDS = 40;
async function fill(): Promise<string[]> {
  const log = createLmdbLog(store, captureCodec);
  const uuids: string[] = [];
  for (let r = 0; r < RECORDS; r++) {
    // Padding that does not compress: the record's size in the log is what cuts the runs.
    const events = logEvents(100).map((e, i) => ({ ...e, distinct_id: `d${(r * 100 + i) % 97}`, properties: { pad: randomBytes(500).toString('hex') } }));
    await log.append(events);
    uuids.push(...events.map((e) => e.uuid));
  }
  await log.close();
  return uuids;
}

// The event store's handler with person processing, counting each event it prepares; the
// store it is handed says when the position is written (`onPosition`).
function consumer(prepared: Map<string, number>, fail?: { at: number }) {
  let runs = 0;
  return defineConsumer<undefined, Store>({
    module: import.meta.url, name: EVENT_STORE_CONSUMER, startsAt: 'beginning',
    open: (ctx) => {
      const step = createPersonStep(ctx.store, ctx.now);
      return eventStoreHandler(ctx, () => {
        runs++;
        if (fail && runs === fail.at) throw new Error('this run fails');
        const p = step();
        return { ...p, prepare: (ev) => { prepared.set(ev.uuid, (prepared.get(ev.uuid) ?? 0) + 1); return p.prepare(ev); } };
      });
    },
  });
}

// The store with its positions table watched: `written` is told of each position written.
function watched(written: (key: string, seq: number) => void): Store {
  const put = (key: string, seq: number) => { const r = store.positions.put(key, seq); written(key, seq); return r; };
  const positions = new Proxy(store.positions, {
    get: (target, prop) => {
      if (prop === 'put') return put;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { ...store, positions };
}

async function runUntilApplied(definition: ReturnType<typeof consumer>): Promise<void> {
  const stop = new AbortController();
  const reader = createLmdbLogReader(store, captureCodec);
  const running = runConsumer(definition, { store, reader, signal: stop.signal, settings: undefined });
  try {
    await eventually(async () => store.positions.get(EVENT_STORE_CONSUMER) === RECORDS);
  } finally {
    stop.abort();
    await running;
    await reader.close();
  }
}

s('stopped after its first run: that run stays committed, the rest is stored at the next start, every event prepared and stored once', async () => {
  const uuids = await fill();
  const prepared = new Map<string, number>();
  const definition = consumer(prepared);
  const stop = new AbortController();
  let firstRun: number | undefined;
  // Told to stop as its first run commits: it must leave the batch before the second.
  const store1 = watched((key, seq) => { if (key === EVENT_STORE_CONSUMER && firstRun === undefined) { firstRun = seq; stop.abort(); } });
  const reader = createLmdbLogReader(store1, captureCodec);
  await runConsumer(definition, { store: store1, reader, signal: stop.signal, settings: undefined });
  await reader.close();

  assert.ok(firstRun !== undefined && firstRun > 1 && firstRun < RECORDS, `first run through record ${firstRun}`);
  assert.is(store.positions.get(EVENT_STORE_CONSUMER), firstRun, 'the position is where the committed run left it');
  const storedAtStop = uuids.filter((u) => store.eventRows.get([1, u]));
  assert.equal(storedAtStop, uuids.slice(0, firstRun! * 100), 'the first run\'s records stored, none after');
  assert.is(prepared.size, firstRun! * 100, 'nothing prepared past the committed run');

  await runUntilApplied(definition);
  assert.equal(uuids.filter((u) => store.eventRows.get([1, u])).length, uuids.length);
  assert.is(prepared.size, uuids.length);
  assert.equal([...prepared.values()].filter((n) => n !== 1), [], 'each event prepared once');
});

s('a run that fails after another committed: the ladder applies the batch record by record, skipping the committed run, each event prepared once', async () => {
  const uuids = await fill();
  const prepared = new Map<string, number>();
  // The second run's person step fails as it starts (before any event): the first run is committed.
  await runUntilApplied(consumer(prepared, { at: 2 }));
  assert.equal(uuids.filter((u) => store.eventRows.get([1, u])).length, uuids.length);
  assert.is(prepared.size, uuids.length);
  assert.equal([...prepared.values()].filter((n) => n !== 1), [], 'each event prepared once');
});

s.run();
