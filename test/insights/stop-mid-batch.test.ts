// The insights consumer (the aggregation worker) told to stop part way through a batch
// (issue 26): it leaves the batch between its loads, each committed to DuckDB with the
// position it reaches, and the next start loads the rest; over the stop every event is
// read for loading once and counted once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { captureCodec } from '../../src/capture/frames.js';
import { createLmdbLog, createLmdbLogReader } from '../../src/log/lmdb-log.js';
import { runConsumer } from '../../src/log/consumers/index.js';
import { EVENT_STORE_CONSUMER } from '../../src/events/consumer.js';
import { applyEntriesIsolating } from '../../src/events/store-consumer.js';
import { insightsConsumer } from '../../src/insights/consumer.js';
import { INSIGHTS_CONSUMER } from '../../src/insights/protocol.js';
import { openColumnar } from '../../src/insights/columnar/database.js';
import { sql } from '../../src/insights/planner/sql.js';
import { createPersonStep } from '../../src/persons/index.js';
import type { LogEntry } from '../../src/log/types.js';
import type { Store } from '../../src/tables.js';
import { storePerTest } from '../helpers/temp-store.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';
import { logEvents } from '../helpers/log-events.js';

let store: Store;
let columnarDir: string;
const s = suite('insights: a stop mid-batch');
storePerTest(s, 'hedgerow-insights-stop-', (opened) => { store = opened; });
s.before.each(() => { columnarDir = tempDir('hedgerow-insights-stop-duckdb-'); });
s.after.each(() => rmSync(columnarDir, { recursive: true, force: true }));

// 80 records of 100 events of ~1 KB (padding that does not compress): ~8 MiB of log, the
// consumer's batch, which it loads in runs of about 4 MiB. The event store applies them first.
const RECORDS = 80;
async function fill(): Promise<string[]> {
  const log = createLmdbLog(store, captureCodec);
  const uuids: string[] = [];
  for (let r = 0; r < RECORDS; r++) {
    const events = logEvents(100).map((e, i) => ({ ...e, uuid: randomUUID(), distinct_id: `d${(r * 100 + i) % 97}`, properties: { pad: randomBytes(500).toString('hex') } }));
    await log.append(events);
    uuids.push(...events.map((e) => e.uuid));
  }
  await log.close();
  const entries: LogEntry[] = [];
  const reader = createLmdbLogReader(store, captureCodec);
  const done = new AbortController();
  await reader.consume(0, async (batch) => { entries.push(...batch); if (entries[entries.length - 1].seq === RECORDS) done.abort(); }, done.signal);
  await reader.close();
  await applyEntriesIsolating(store, entries, { startPreparation: createPersonStep(store) });
  assert.is(store.positions.get(EVENT_STORE_CONSUMER), RECORDS);
  return uuids;
}

// The store as the consumer sees it, with each event row read counted by uuid (the worker
// reads an event's stored row to load it: decoded, or its bytes) and the positions written
// told to `written`.
function watched(reads: Map<string, number>, written: (key: string, seq: number) => void): Store {
  const forward = (target: object, prop: string | symbol) => {
    const v = Reflect.get(target, prop, target) as unknown;
    return typeof v === 'function' ? v.bind(target) : v;
  };
  const eventRows = new Proxy(store.eventRows, {
    get: (target, prop) => (prop === 'get' || prop === 'getBinary' || prop === 'getBinaryFast'
      ? (key: [number, string]) => { reads.set(key[1], (reads.get(key[1]) ?? 0) + 1); return (target[prop] as (k: [number, string]) => unknown).call(target, key); }
      : forward(target, prop)),
  });
  const positions = new Proxy(store.positions, {
    get: (target, prop) => (prop === 'put'
      ? (key: string, seq: number) => { const r = target.put(key, seq); written(key, seq); return r; }
      : forward(target, prop)),
  });
  return { ...store, eventRows, positions };
}

async function counted(): Promise<{ events: number; uuids: number }> {
  const db = await openColumnar({ dir: columnarDir, threads: 1 });
  try {
    const [row] = await db.query(sql`SELECT count(*) AS events, count(DISTINCT uuid) AS uuids FROM events`);
    return { events: Number(row.events), uuids: Number(row.uuids) };
  } finally {
    await db.close();
  }
}

s('stopped after its first load: that load stays, the rest is loaded at the next start, every event read and counted once', async () => {
  const uuids = await fill();
  const reads = new Map<string, number>();
  const settings = { dataDir: columnarDir, threads: 1 };
  const stop = new AbortController();
  let firstRun: number | undefined;
  // Told to stop as its first load commits its position: it must leave the batch before the second.
  const seen = watched(reads, (key, seq) => { if (key === INSIGHTS_CONSUMER && firstRun === undefined) { firstRun = seq; stop.abort(); } });
  let reader = createLmdbLogReader(seen, captureCodec, 8 * 1024 * 1024);
  await runConsumer(insightsConsumer, { store: seen, reader, signal: stop.signal, settings });
  await reader.close();

  assert.ok(firstRun !== undefined && firstRun > 1 && firstRun < RECORDS, `first load through record ${firstRun}`);
  assert.is(store.positions.get(INSIGHTS_CONSUMER), firstRun);
  assert.equal(await counted(), { events: firstRun! * 100, uuids: firstRun! * 100 });
  assert.is(reads.size, firstRun! * 100, 'nothing read for loading past the committed load');

  const again = new AbortController();
  const watchedAgain = watched(reads, () => {});
  reader = createLmdbLogReader(watchedAgain, captureCodec, 8 * 1024 * 1024);
  const running = runConsumer(insightsConsumer, { store: watchedAgain, reader, signal: again.signal, settings });
  try {
    await eventually(async () => store.positions.get(INSIGHTS_CONSUMER) === RECORDS);
  } finally {
    again.abort();
    await running;
    await reader.close();
  }
  assert.equal(await counted(), { events: uuids.length, uuids: uuids.length });
  assert.equal(reads.size, uuids.length);
  assert.equal([...reads.values()].filter((n) => n !== 1), [], 'each event read for loading once');
});

s.run();
