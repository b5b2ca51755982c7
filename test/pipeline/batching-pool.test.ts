import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createBatchingPool, PoolOverloadedError } from '../../src/pipeline/batching-pool.js';

type Req = { n: number; waitMs?: number };
type Res = { n: number; doubled: number; batchSize: number; tag: string };
const filename = new URL('../fixtures/batch-echo-worker.js', import.meta.url);

const s = suite('batching worker pool');

s('requests made in one event-loop turn travel in batches of at most maxBatch, each answered in order', async () => {
  const pool = createBatchingPool<Req, Res>({ filename, threads: 1, maxBatch: 32, workerData: { tag: 'w' } });
  const results = await Promise.all(Array.from({ length: 70 }, (_, n) => pool.run({ n })));
  assert.equal(results.map((r) => r.doubled), Array.from({ length: 70 }, (_, n) => n * 2));
  assert.equal([...new Set(results.map((r) => r.batchSize))].sort((a, b) => a - b), [6, 32]);
  assert.is(results[0].tag, 'w');
  assert.is(pool.queued(), 0);
  await pool.close();
});

s('while every worker is busy, requests from later turns wait and leave together', async () => {
  const pool = createBatchingPool<Req, Res>({ filename, threads: 1, maxBatch: 32, workerData: { tag: 'w' } });
  const first = pool.run({ n: 0, waitMs: 150 });
  const later: Promise<Res>[] = [];
  for (let turn = 0; turn < 5; turn++) {
    await new Promise((r) => setTimeout(r, 10));
    later.push(pool.run({ n: turn + 1 }));
  }
  assert.is((await first).batchSize, 1);
  const sizes = (await Promise.all(later)).map((r) => r.batchSize);
  assert.equal(sizes, [5, 5, 5, 5, 5]);
  await pool.close();
});

s('a failing batch rejects every request in it and the pool keeps working', async () => {
  const pool = createBatchingPool<Req, Res>({ filename, threads: 1, maxBatch: 8, workerData: { tag: 'w' } });
  const bad = await Promise.allSettled([pool.run({ n: 1 }), pool.run({ n: -1 })]);
  assert.equal(bad.map((r) => r.status), ['rejected', 'rejected']);
  assert.is((await pool.run({ n: 4 })).doubled, 8);
  await pool.close();
});

s('beyond maxQueued waiting requests the pool refuses instead of growing', async () => {
  const pool = createBatchingPool<Req, Res>({ filename, threads: 1, maxBatch: 8, maxQueued: 3, workerData: { tag: 'w' } });
  const runs = Array.from({ length: 5 }, (_, n) => pool.run({ n }));
  const settled = await Promise.allSettled(runs);
  assert.is(settled.filter((r) => r.status === 'fulfilled').length, 3);
  const refused = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  assert.is(refused.length, 2);
  assert.ok(refused.every((r) => r.reason instanceof PoolOverloadedError));
  await pool.close();
});

s.run();
