// A worker pool (src/pools/create.ts) whose thread is still loading its module: closing
// lets the thread finish loading before it is terminated (terminating it inside its loading
// can abort the whole process: src/pools/loading.ts), and a task's deadline does not count
// the loading.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWorkerPool } from '../../src/pools/index.js';
import type { SlowTasks } from '../fixtures/slow-loading-worker.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';

const s = suite('closing a worker pool');
let dir: string;
s.before.each(() => { dir = tempDir('hedgerow-pool-close-'); });
s.after.each(() => rmSync(dir, { recursive: true, force: true }));

s('a thread still loading its module finishes loading before the pool terminates it', async () => {
  const pool = createWorkerPool<SlowTasks, { dir: string }>({ worker: new URL('../fixtures/slow-loading-worker.js', import.meta.url), threads: 1, workerData: { dir } });
  await eventually(async () => existsSync(join(dir, 'loading')));
  let closed = false;
  const closing = pool.close().then(() => { closed = true; });
  // Closing waits for it: a terminated thread would never mark itself loaded.
  await eventually(async () => {
    if (!existsSync(join(dir, 'release'))) writeFileSync(join(dir, 'release'), '');
    return existsSync(join(dir, 'loaded'));
  });
  await closing;
  assert.ok(closed);
  assert.ok(existsSync(join(dir, 'loaded')), 'the thread finished loading');
});

s('a task\'s deadline starts once its worker has loaded, not while the task waits for it to load', async () => {
  const pool = createWorkerPool<SlowTasks, { dir: string }>({ worker: new URL('../fixtures/slow-loading-worker.js', import.meta.url), threads: 1, workerData: { dir }, deadlines: { ping: 200 } });
  const ping = pool.run('ping', null);
  await eventually(async () => existsSync(join(dir, 'loading')));
  // The module loads for longer than the task may run.
  await new Promise((r) => setTimeout(r, 500));
  writeFileSync(join(dir, 'release'), '');
  assert.is(await ping, 'pong');
  await pool.close();
});

s('a pool with deadlines closed with tasks in flight and waiting leaves no timer behind, and refuses tasks after', async () => {
  writeFileSync(join(dir, 'release'), '');
  const pool = createWorkerPool<SlowTasks, { dir: string }>({ worker: new URL('../fixtures/slow-loading-worker.js', import.meta.url), threads: 1, workerData: { dir }, deadlines: { ping: 10_000 } });
  assert.is(await pool.run('ping', null), 'pong');
  const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  // One sent to the worker, two waiting behind it: the pool's thread is destroyed under them.
  const answers = [pool.run('ping', null), pool.run('ping', null), pool.run('ping', null)].map((p) => p.then(() => 'answered', () => 'refused'));
  await new Promise((r) => setImmediate(r));
  await pool.close();
  for (const a of await Promise.all(answers)) assert.ok(a === 'answered' || a === 'refused');
  const after = await pool.run('ping', null).then(() => null, (err: Error) => err.message);
  assert.match(after ?? '', /closed/);
  // A destroyed thread counted as a replacement still loading kept a poll timer re-arming for
  // 30 s after the close: a consumer thread holding such a pool could not end (seen: a node
  // stopped right after it started took 30 s, its insights thread waited for out).
  await new Promise((r) => setTimeout(r, 50));
  assert.is(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length, timersBefore);
});

s.run();
