// A consumer that declares a linger (ConsumerDefinition.lingerMs; insights, whose every load
// has a large fixed cost): after a batch that kept up with the log it waits before reading
// on, so a trickle of records arrives as one batch; a backlog is applied without waits; a
// stop ends the wait.
import { captureCodec } from '../../src/capture/frames.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { createLmdbLog, createLmdbLogReader } from '../../src/log/lmdb-log.js';
import { defineConsumer, runConsumer, type ConsumerHandler } from '../../src/log/consumers/index.js';
import { storePerTest } from '../helpers/temp-store.js';
import { eventually } from '../helpers/wait.js';
import { logEvent } from '../helpers/log-events.js';

let store: Store;
const s = suite('log consumers: linger');
storePerTest(s, 'hedgerow-log-linger-', (opened) => { store = opened; });

// Appends `n` records of one event each, one after another, `pauseMs` apart (a consumer that
// does not linger applies each on its own).
async function appendRecords(n: number, pauseMs = 0): Promise<void> {
  const log = createLmdbLog(store, captureCodec);
  for (let i = 0; i < n; i++) {
    if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    await log.append([logEvent()]);
  }
  await log.close();
}

// A consumer that records how many events each batch held (and calls `onBatch` after each).
function batchesOf(lingerMs: number, onBatch: (batches: number[]) => void = () => {}) {
  const batches: number[] = [];
  const definition = defineConsumer<{ lingerMs: number }>({
    module: import.meta.url, name: 'lingering', startsAt: 'beginning',
    lingerMs: (settings) => settings.lingerMs,
    open: ({ position }): ConsumerHandler => ({
      async apply(groups, through) {
        batches.push(groups.reduce((n, g) => n + g.events.length, 0));
        if (through !== null) await position.commit(through);
        onBatch(batches);
      },
    }),
  });
  return { definition, batches, settings: { lingerMs } };
}

s('after a batch that kept up, the records that arrive meanwhile are applied as one batch; a stop ends the wait', async () => {
  // Ten to begin with: the consumer lingers when fewer records wait than its batch held, so
  // with ten in the first batch it lingers even if some of the five below are already
  // appended when it looks (with one, an append that beat its look had kept it reading on:
  // seen in CI).
  await appendRecords(10);
  const { definition, batches, settings } = batchesOf(5_000);
  const stop = new AbortController();
  const reader = createLmdbLogReader(store, captureCodec);
  const running = runConsumer(definition, { store, reader, signal: stop.signal, settings });
  try {
    await eventually(async () => batches.length === 1);
    // The consumer lingers now: these five records, appended 50 ms apart (a quarter of a
    // second in all, well inside the linger), wait for it together.
    await appendRecords(5, 50);
    await eventually(async () => batches.length === 2);
    assert.equal(batches, [10, 5]);
  } finally {
    // Lingering again after the second batch: the stop does not wait the linger out.
    stop.abort();
    await running;
    await reader.close();
  }
});

s('a backlog is applied batch after batch without lingering; a stop that comes before the wait begins ends it too', async () => {
  await appendRecords(4);
  const stop = new AbortController();
  // A linger longer than the test could wait: a consumer that lingered after a batch while
  // more waited in the log would not finish the backlog, and one that began its wait after
  // the stop (asked here while it applies the last batch) would not end.
  const { definition, batches, settings } = batchesOf(600_000, (seen) => { if (seen.length === 4) stop.abort(); });
  // One record per batch.
  const reader = createLmdbLogReader(store, captureCodec, 1);
  try {
    await runConsumer(definition, { store, reader, signal: stop.signal, settings });
    assert.equal(batches, [1, 1, 1, 1]);
  } finally {
    stop.abort();
    await reader.close();
  }
});

s.run();
