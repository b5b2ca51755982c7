// The destinations' Hog workers (workers/hog-exec.ts): one single-thread pool per worker
// rather than one pool of them all, so that a continue step reaches the worker that keeps
// its program (./steps.ts); the rest take turns. Each starts on its first task. Tokens of
// invocations the consumer did not queue travel to their worker with its next prepare step.
import { createLazyWorkerPool, type TaskRunner, type WorkerPool } from '../../pools/index.js';
import type { HogExecTasks, HogWorkerData } from '../tasks.js';

export interface HogPools extends TaskRunner<HogExecTasks> {
  // The worker that keeps `token` may drop what it keeps.
  forget(token: string): void;
  close(): Promise<void>;
}

const workerOf = (token: string) => Number(token.slice(0, token.indexOf(':')));

export function createHogPools(opts: { worker: URL; threads: number; heapMb: number }): HogPools {
  const pools: WorkerPool<HogExecTasks>[] = Array.from({ length: Math.max(1, opts.threads) }, (_, index) => createLazyWorkerPool<HogExecTasks, HogWorkerData>({
    worker: opts.worker, threads: 1, workerData: { index }, maxBatch: 32, tasksPerThread: 2,
    resourceLimits: { maxOldGenerationSizeMb: opts.heapMb },
  }));
  let forgotten: string[][] = pools.map(() => []);
  let turn = 0;
  return {
    run(kind, input) {
      if (kind === 'prepare') {
        const i = turn++ % pools.length;
        const task = input as HogExecTasks['prepare']['input'];
        const forget = forgotten[i];
        forgotten[i] = [];
        return pools[i].run(kind, (forget.length === 0 ? task : { ...task, forget: [...task.forget, ...forget] }) as typeof input);
      }
      const token = (input as HogExecTasks['run']['input']).token;
      const held = token === null ? undefined : pools[workerOf(token)];
      return (held ?? pools[turn++ % pools.length]).run(kind, input);
    },
    forget(token) {
      forgotten[workerOf(token)]?.push(token);
    },
    close: async () => {
      forgotten = pools.map(() => []);
      await Promise.all(pools.map((p) => p.close()));
    },
  };
}
