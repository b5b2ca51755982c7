// A pool of two lanes (src/pools/lanes.ts) with a real Piscina worker
// (test/fixtures/batch-echo-worker.ts, whose answers carry the lane's tag): a task past the
// fast lane's short deadline is run again in the slow lane, and the fast lane goes on
// answering everyone else meanwhile.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLanedPool, TaskDeadlineError, TaskFailedError } from '../../src/pools/index.js';
import type { EchoTasks } from '../fixtures/batch-echo-worker.js';

const worker = new URL('../fixtures/batch-echo-worker.js', import.meta.url);
type Tag = { tag: string };
const lanes = (fastMs: number, slowMs: number) => createLanedPool<EchoTasks, Tag>({
  fast: { worker, threads: 1, workerData: { tag: 'fast' }, deadlines: { echo: fastMs } },
  slow: { worker, threads: 1, workerData: { tag: 'slow' }, deadlines: { echo: slowMs } },
});

const s = suite('worker pool lanes');

s('a task within the fast deadline is answered by the fast lane', async () => {
  const pool = lanes(5_000, 10_000);
  try {
    const out = await pool.run('echo', { n: 3 });
    assert.equal([out.doubled, out.tag], [6, 'fast']);
  } finally {
    await pool.close();
  }
});

s('a task past the fast deadline is answered by the slow lane, and one asked after it is answered first, by the fast lane', async () => {
  const pool = lanes(400, 20_000);
  try {
    const order: string[] = [];
    const slow = pool.run('echo', { n: 1, waitMs: 2_000 }).then((r) => { order.push('slow'); return r; });
    // Waits behind the slow one in the fast lane until its deadline, then runs there.
    const quick = pool.run('echo', { n: 2 }).then((r) => { order.push('quick'); return r; });
    const [a, b] = await Promise.all([slow, quick]);
    assert.equal([a.doubled, a.tag], [2, 'slow']);
    assert.equal([b.doubled, b.tag], [4, 'fast']);
    assert.equal(order, ['quick', 'slow']);
  } finally {
    await pool.close();
  }
});

s('a task past both deadlines fails with TaskDeadlineError; a failure that is not a deadline is not run again', async () => {
  const pool = lanes(300, 600);
  try {
    const err = await pool.run('echo', { n: 1, waitMs: 60_000 }).then(() => null, (e: unknown) => e);
    assert.instance(err, TaskDeadlineError);
    assert.match((err as Error).message, /ran longer than 600 ms/);
    const failed = await pool.run('echo', { n: 5, fail: true }).then(() => null, (e: unknown) => e);
    assert.instance(failed, TaskFailedError);
    assert.match((failed as Error).message, /request 5 failed/);
    // The workers stopped at the deadlines were replaced: the next task is answered.
    assert.is((await pool.run('echo', { n: 4 })).tag, 'fast');
  } finally {
    await pool.close();
  }
});

s.run();
