// The worker-pool factory (src/pools/) with a real Piscina worker
// (test/fixtures/batch-echo-worker.ts): batching, queueing, and failures per request.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createWorkerPool, PoolOverloadedError, TaskDeadlineError, TaskFailedError, type Task, type TaskRunner } from '../../src/pools/index.js';
import type { EchoTasks, Req, Res } from '../fixtures/batch-echo-worker.js';

const worker = new URL('../fixtures/batch-echo-worker.js', import.meta.url);
type Tag = { tag: string };
const echoPool = (opts: { maxBatch: number; maxQueued?: number }) =>
  createWorkerPool<EchoTasks, Tag>({ worker, threads: 1, workerData: { tag: 'w' }, ...opts });

const s = suite('worker pool');

s('requests made in one event-loop turn travel in batches of at most maxBatch, each answered in order', async () => {
  const pool = echoPool({ maxBatch: 32 });
  const results = await Promise.all(Array.from({ length: 70 }, (_, n) => pool.run('echo', { n })));
  assert.equal(results.map((r) => r.doubled), Array.from({ length: 70 }, (_, n) => n * 2));
  assert.equal([...new Set(results.map((r) => r.batchSize))].sort((a, b) => a - b), [6, 32]);
  assert.is(results[0].tag, 'w');
  assert.is(pool.queued(), 0);
  await pool.close();
});

s('while every worker is busy, requests from later turns wait and leave together', async () => {
  const pool = echoPool({ maxBatch: 32 });
  const first = pool.run('echo', { n: 0, waitMs: 150 });
  const later: Promise<Res>[] = [];
  for (let turn = 0; turn < 5; turn++) {
    await new Promise((r) => setTimeout(r, 10));
    later.push(pool.run('echo', { n: turn + 1 }));
  }
  assert.is((await first).batchSize, 1);
  const sizes = (await Promise.all(later)).map((r) => r.batchSize);
  assert.equal(sizes, [5, 5, 5, 5, 5]);
  await pool.close();
});

s('with expectedMs, a cheap request queued behind expensive ones leaves first and travels without them; the expensive ones still leave, in their order', async () => {
  // The capture worker's queue (issue 27): bombs queued before an SDK's batch held it up.
  const pool = createWorkerPool<EchoTasks, Tag>({
    worker, threads: 1, workerData: { tag: 'w' }, maxBatch: 8, expectedMs: (input) => (input as Req).waitMs ?? 1,
  });
  const order: number[] = [];
  const run = (req: Req) => pool.run('echo', req).then((r) => { order.push(r.n); return r; });
  const busy = run({ n: 0, waitMs: 100 });
  await new Promise((r) => setTimeout(r, 10));
  const expensive = [1, 2, 3].map((n) => run({ n, waitMs: 100 }));
  await new Promise((r) => setTimeout(r, 10));
  const cheap = run({ n: 4 });
  await Promise.all([busy, ...expensive, cheap]);
  assert.equal(order, [0, 4, 1, 2, 3]);
  assert.is((await cheap).batchSize, 1);
  assert.equal((await Promise.all(expensive)).map((r) => r.batchSize), [1, 1, 1]);
  await pool.close();
});

s('a batch that fails as a whole is sent again one request at a time: only the request that fails alone fails', async () => {
  const pool = echoPool({ maxBatch: 8 });
  const settled = await Promise.allSettled([1, -1, 3].map((n) => pool.run('echo', { n })));
  assert.equal(settled.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.equal(settled.map((r) => (r.status === 'fulfilled' ? r.value.batchSize : null)), [1, null, 1]);
  assert.is((settled[1] as PromiseRejectedResult).reason.message, 'negative input');
  assert.is(pool.queued(), 0);
  assert.is((await pool.run('echo', { n: 4 })).doubled, 8);
  await pool.close();
});

s('a batch that fails as a whole after its buffers moved to the worker fails whole: nothing is sent again without its input', async () => {
  const pool = createWorkerPool<EchoTasks, Tag>({
    worker, threads: 1, workerData: { tag: 'w' }, maxBatch: 8, transfer: (input) => ((input as Req).bytes ? [(input as Req).bytes!.buffer as ArrayBuffer] : []),
  });
  const inputs = [1, -1, 3].map((n) => ({ n, bytes: new Uint8Array(16) }));
  const settled = await Promise.allSettled(inputs.map((input) => pool.run('echo', input)));
  assert.equal(settled.map((r) => r.status), ['rejected', 'rejected', 'rejected']);
  assert.equal(inputs.map((i) => i.bytes.byteLength), [0, 0, 0]);
  assert.is(pool.queued(), 0);
  // Moved buffers reach the worker whole, and the pool goes on serving.
  assert.is((await pool.run('echo', { n: 4, bytes: new Uint8Array(16) })).byteLength, 16);
  await pool.close();
});

s('an input the batch message cannot carry (uncloneable, or deep enough to overflow the clone) fails alone', async () => {
  const pool = echoPool({ maxBatch: 8 });
  let deep: unknown = 1;
  for (let i = 0; i < 10_000; i++) deep = { a: deep };
  const inputs = [{ n: 1 }, { n: 2, extra: () => 0 }, { n: 3 }, { n: 4, extra: deep }, { n: 5 }] as Req[];
  const settled = await Promise.allSettled(inputs.map((input) => pool.run('echo', input)));
  assert.equal(settled.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
  assert.equal(settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value.doubled] : [])), [2, 6, 10]);
  assert.ok(/could not be cloned/.test((settled[1] as PromiseRejectedResult).reason.message));
  assert.ok((settled[3] as PromiseRejectedResult).reason instanceof RangeError);
  assert.is(pool.queued(), 0);
  await pool.close();
});

s('a request that fails on its own fails alone: the rest of its batch is answered', async () => {
  const pool = echoPool({ maxBatch: 8 });
  const settled = await Promise.allSettled([0, 1, 2, 3].map((n) => pool.run('echo', { n, fail: n === 2 })));
  assert.equal(settled.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  assert.equal(settled.map((r) => (r.status === 'fulfilled' ? r.value.batchSize : null)), [4, 4, null, 4]);
  const failure = (settled[2] as PromiseRejectedResult).reason;
  assert.ok(failure instanceof TaskFailedError);
  assert.is(failure.message, 'request 2 failed');
  await pool.close();
});

s('each kind is batched apart and served by its own handler; one input at a time fails alone too', async () => {
  const pool = echoPool({ maxBatch: 8 });
  const [echoed, squares, tooLarge] = await Promise.all([
    pool.run('echo', { n: 3 }),
    Promise.all([2, 3].map((n) => pool.run('square', n))),
    pool.run('square', 5000).then(() => 'answered', (err: Error) => err.message),
  ]);
  assert.is(echoed.doubled, 6);
  assert.is(echoed.batchSize, 1);
  assert.equal(squares, [4, 9]);
  assert.is(tooLarge, 'too large');
  await pool.close();
});

s('kinds take turns: a long queue of one kind does not hold back a request of another until it is through', async () => {
  const pool = echoPool({ maxBatch: 2 });
  const order: string[] = [];
  const busy = pool.run('echo', { n: 0, waitMs: 100 });
  await new Promise((r) => setTimeout(r, 10));
  // Five batches of echo wait behind the busy worker; then one square request.
  const echoes = Array.from({ length: 10 }, (_, i) => pool.run('echo', { n: i + 1 }).then(() => { order.push(`echo ${i + 1}`); }));
  await new Promise((r) => setImmediate(r));
  const square = pool.run('square', 3).then((v) => { order.push(`square ${v}`); });
  await Promise.all([busy, square, ...echoes]);
  // One echo batch went first (echo was there first), then the square's turn came.
  assert.equal(order.slice(0, 3), ['echo 1', 'echo 2', 'square 9']);
  assert.is(order.length, 11);
  await pool.close();
});

s('a pool of a larger task map serves a caller that asks for part of it', async () => {
  const pool = echoPool({ maxBatch: 8 });
  const squaresOnly: TaskRunner<{ square: Task<number, number> }> = pool;
  assert.is(await squaresOnly.run('square', 12), 144);
  await pool.close();
});

s('beyond maxQueued waiting requests the pool refuses instead of growing', async () => {
  const pool = echoPool({ maxBatch: 8, maxQueued: 3 });
  const runs = Array.from({ length: 5 }, (_, n) => pool.run('echo', { n }));
  const settled = await Promise.allSettled(runs);
  assert.is(settled.filter((r) => r.status === 'fulfilled').length, 3);
  const refused = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  assert.is(refused.length, 2);
  assert.ok(refused.every((r) => r.reason instanceof PoolOverloadedError));
  await pool.close();
});

s('a task past its deadline stops its worker alone: a fresh worker answers the requests waiting behind it', async () => {
  const pool = createWorkerPool<EchoTasks, Tag>({ worker, threads: 1, workerData: { tag: 'w' }, deadlines: { echo: 1000 } });
  // Held 60 s: only the deadline can end it.
  const stuck = pool.run('echo', { n: 1, waitMs: 60_000 });
  await new Promise((r) => setImmediate(r));
  // One task per thread in a pool with deadlines: these wait here, not behind the stuck one.
  const echo = pool.run('echo', { n: 2 });
  const square = pool.run('square', 7);
  const err = await stuck.then(() => null, (e: unknown) => e);
  assert.instance(err, TaskDeadlineError);
  assert.match((err as Error).message, /ran longer than 1000 ms/);
  assert.is((await echo).doubled, 4);
  assert.is(await square, 49);
  await pool.close();
});

s('a worker over its heap limit dies alone: its task fails, the process goes on and a fresh worker answers the next', async () => {
  const pool = createWorkerPool<EchoTasks, Tag>({ worker, threads: 1, workerData: { tag: 'w' }, resourceLimits: { maxOldGenerationSizeMb: 32 } });
  const err = await pool.run('hoard', 1).then(() => null, (e: unknown) => e as Error & { code?: string });
  assert.is(err?.code, 'ERR_WORKER_OUT_OF_MEMORY');
  assert.is(await pool.run('square', 3), 9);
  await pool.close();
});

s.run();
