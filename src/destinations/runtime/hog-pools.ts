// The destinations' Hog workers (workers/hog-exec.ts): one single-thread pool per worker
// rather than one pool of them all, so that a continue step reaches the worker that keeps
// its program (./steps.ts); the rest take turns. Each starts on its first task. Tokens of
// invocations the consumer did not queue travel to their worker with its next start step.
import { createLazyWorkerPool, type TaskRunner, type WorkerPool } from '../../pools/index.js';
import type { HogExecTasks, HogWorkerData } from '../tasks.js';

export interface HogPools extends TaskRunner<HogExecTasks> {
  // The worker that keeps `token` may drop what it keeps.
  forget(token: string): void;
  close(): Promise<void>;
}

const workerOf = (token: string) => Number(token.slice(0, token.indexOf(':')));

export interface HogPoolsOptions {
  worker: URL;
  threads: number;
  heapMb: number;
  // Per task kind, how long a task may run before its worker is stopped (src/pools/create.ts).
  deadlines: Partial<Record<keyof HogExecTasks, number>>;
}

export function createHogPools(opts: HogPoolsOptions): HogPools {
  const pools: WorkerPool<HogExecTasks>[] = Array.from({ length: Math.max(1, opts.threads) }, (_, index) => createLazyWorkerPool<HogExecTasks, HogWorkerData>({
    worker: opts.worker, threads: 1, workerData: { index }, maxBatch: 32,
    resourceLimits: { maxOldGenerationSizeMb: opts.heapMb }, deadlines: opts.deadlines,
  }));
  let forgotten: string[][] = pools.map(() => []);
  let turn = 0;
  return {
    run(kind, input) {
      if (kind === 'start') {
        const i = turn++ % pools.length;
        const task = input as HogExecTasks['start']['input'];
        const forget = forgotten[i];
        forgotten[i] = [];
        return pools[i].run(kind, (forget.length === 0 ? task : { ...task, forget: [...task.forget, ...forget] }) as typeof input);
      }
      const token = kind === 'continue' ? (input as HogExecTasks['continue']['input']).token : null;
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
