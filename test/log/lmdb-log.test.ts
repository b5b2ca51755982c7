// The embedded LMDB log passes the event log contract, and its reader hands a
// consumer whole records up to about its byte budget at once.
import { captureCodec } from '../../src/capture/frames.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { createLmdbLog, createLmdbLogReader } from '../../src/log/lmdb-log.js';
import type { CapturedEvent, EventLog, LogReader } from '../../src/log/types.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runLogContract } from './contract.js';

runLogContract({
  name: 'LMDB',
  maxEntryBytes: Infinity,
  async setup() {},
  async teardown() {},
  async fresh() {
    const dataDir = tempDir('hedgerow-log-');
    // Opened on first use: the crash test's child process must be the first writer.
    let store: Store | null = null;
    const current = () => (store ??= openStore(dataDir, tables));
    const opened: Array<EventLog | LogReader> = [];
    const track = <T extends EventLog | LogReader>(x: T) => { opened.push(x); return x; };
    return {
      openLog: async () => track(createLmdbLog(current(), captureCodec)),
      openReader: async () => track(createLmdbLogReader(current(), captureCodec)),
      writerArgs: ['lmdb', dataDir],
      // The writer's process was all there was to crash.
      async crash() {},
      async dispose() {
        for (const x of opened) await x.close();
        await store?.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
});

const budget = suite('LMDB log reader: records per handler call');

// Three records of four events each, read by a reader with the given byte budget; the
// event counts each handler call received.
async function callsWith(maxBytes?: number): Promise<number[][]> {
  const dataDir = tempDir('hedgerow-log-budget-');
  const store = openStore(dataDir, tables);
  try {
    const log = createLmdbLog(store, captureCodec);
    const event = (i: number): CapturedEvent => ({
      uuid: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`, event: 'e', distinct_id: 'd', properties: {},
      timestamp: '2026-01-01T00:00:00.000Z', project_id: 1, ip: null, now: '2026-01-01T00:00:00.000Z', sent_at: null, historical: false,
    });
    for (let r = 0; r < 3; r++) await log.append([0, 1, 2, 3].map((i) => event(r * 4 + i)));
    const reader = createLmdbLogReader(store, captureCodec, maxBytes);
    const calls: number[][] = [];
    const stop = new AbortController();
    await reader.consume(0, async (entries) => {
      calls.push(entries.map((e) => e.events.length));
      if (calls.flat().length === 3) stop.abort();
    }, stop.signal);
    await reader.close();
    await log.close();
    return calls;
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

budget('a backlog within the budget comes in one call', async () => {
  assert.equal(await callsWith(), [[4, 4, 4]]);
});

budget('a record is never split: one byte of budget still hands over one whole record per call', async () => {
  assert.equal(await callsWith(1), [[4], [4], [4]]);
});

budget.run();
