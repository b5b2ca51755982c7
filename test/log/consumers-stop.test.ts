// Stopping a supervised consumer thread (src/log/consumers/supervise.ts): one still loading
// its modules ends once they are loaded, without opening anything (it is not terminated
// mid-load: a thread terminated inside lmdb-js's native load aborts the process), one
// applying a batch finishes it first.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { captureCodec } from '../../src/capture/frames.js';
import { openStore } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { clusterSettings } from '../../src/cluster/index.js';
import { createLmdbLog } from '../../src/log/lmdb-log.js';
import { LMDB_LOG_ID } from '../../src/log/types.js';
import { consumerPosition, registered, superviseConsumer } from '../../src/log/consumers/index.js';
import { createLogger } from '../../src/logger.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';
import { logEvent } from '../helpers/log-events.js';
import { heldBatch } from '../fixtures/log-consumers.js';

const s = suite('stopping a consumer thread');
let dir: string;
s.before.each(() => { dir = tempDir('hedgerow-consumers-stop-'); });
s.after.each(() => rmSync(dir, { recursive: true, force: true }));

// What the service hands a consumer thread, embedded (no NATS).
const thread = (consumer: ReturnType<typeof registered>) => ({
  consumer, dataDir: dir, batchBytes: 1024 * 1024,
  cluster: clusterSettings({ natsUrl: null, natsReplicas: 1, clusterTimeScale: 1, exports: { claimTtlMs: 30_000 }, hog: { logRetentionDays: 7, metricRetentionDays: 90 } }),
});

s('a thread still loading its modules when stopped ends once they are loaded: it opens nothing', async () => {
  // The module's path and name as the supervisor needs them; importing it here would block.
  const consumer = { module: new URL('../fixtures/slow-loading-consumer.js', import.meta.url).href, name: 'slow_loading', startsAt: 'beginning' as const, follows: undefined, settings: undefined, nice: 10 };
  process.env.HEDGEROW_TEST_LOADING_DIR = dir;
  const supervised = superviseConsumer(thread(consumer), createLogger('silent'));
  delete process.env.HEDGEROW_TEST_LOADING_DIR;
  await eventually(async () => existsSync(join(dir, 'loading')));
  const stopped = supervised.stop();
  // Its loading ends now: a thread only asked to stop (the message it reads once running)
  // would go on to open the store and its handler, and only then see that it should stop.
  writeFileSync(join(dir, 'release'), '');
  await stopped;
  assert.is(supervised.running(), false);
  assert.is(existsSync(join(dir, 'opened')), false, 'the handler was never opened');
  assert.is(existsSync(join(dir, 'hedgerow.lmdb')), false, 'the store was never opened');
});

s('a thread stopped while it applies a batch finishes the batch and commits its position', async () => {
  const store = openStore(dir, tables);
  try {
    const log = createLmdbLog(store, captureCodec);
    const events = [logEvent(), logEvent(), logEvent()];
    await log.append(events);
    await log.close();
    const supervised = superviseConsumer(thread(registered(heldBatch, { dir })), createLogger('silent'));
    await eventually(async () => existsSync(join(dir, 'applying')));
    const stopped = supervised.stop();
    // The node's stop and a claim given up both ask: one stop, both wait for it.
    assert.is(supervised.stop(), stopped);
    writeFileSync(join(dir, 'release'), '');
    await stopped;
    assert.equal(readFileSync(join(dir, 'applied'), 'utf8').split('\n').filter(Boolean), events.map((e) => e.uuid));
    assert.is(consumerPosition(store, heldBatch.name, LMDB_LOG_ID).read(), 1);
  } finally {
    await store.close();
  }
});

s.run();
