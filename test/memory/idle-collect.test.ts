// The idle collector (src/memory/idle-collect.ts): a thread that made garbage and went
// quiet collects it by itself; without the collector V8 leaves it (it collects when the
// thread allocates again), which is what kept a server's memory up after a burst.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Worker } from 'node:worker_threads';

const s = suite('idle collection');

function run(collect: boolean, waitMs: number): Promise<{ collected: boolean }> {
  const worker = new Worker(new URL('../fixtures/idle-collect-worker.js', import.meta.url), { workerData: { collect, waitMs } });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { collected: boolean }) => { void worker.terminate(); resolve(m); });
    worker.once('error', reject);
  });
}

s('a quiet thread that grew collects its garbage; without the collector the garbage stays', async () => {
  const [withCollector, without] = await Promise.all([run(true, 20_000), run(false, 1_500)]);
  assert.ok(withCollector.collected, 'collected by the idle collector');
  assert.not.ok(without.collected, 'V8 alone left it in place (so the first assertion is the collector\'s doing)');
});

s.run();
