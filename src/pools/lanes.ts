// A pool of two lanes, for tasks whose cost cannot be told before they run: the WASM
// parser's slow paths (a Hog source of ~20 chained `1.5 +` takes it seconds, while a 2 KB
// template takes a few hundred ms). Every task starts in the fast lane, whose deadline is
// short; one that runs past it is run again, from the start, in the slow lane, with threads
// and a deadline of its own. A source that is slow to parse holds a fast thread for the short
// deadline at most and then waits with the other slow sources, not in front of everyone.
import { createLazyWorkerPool, TaskDeadlineError, type WorkerPool, type WorkerPoolOptions } from './create.js';
import type { Kind, InputOf, OutputOf, TaskMap } from './tasks.js';

export interface LanedPoolOptions<D> {
  // Both lanes start on their first task. Neither may move its input's buffers (`transfer`):
  // a task the fast lane gave up is sent again.
  fast: Omit<WorkerPoolOptions<D>, 'transfer'>;
  slow: Omit<WorkerPoolOptions<D>, 'transfer'>;
}

export function createLanedPool<T extends TaskMap<T>, D = undefined>(opts: LanedPoolOptions<D>): WorkerPool<T> {
  const fast = createLazyWorkerPool<T, D>(opts.fast);
  const slow = createLazyWorkerPool<T, D>(opts.slow);
  return {
    async run<K extends Kind<T>>(kind: K, input: InputOf<T, K>): Promise<OutputOf<T, K>> {
      try {
        return await fast.run(kind, input);
      } catch (err) {
        if (!(err instanceof TaskDeadlineError)) throw err;
        return slow.run(kind, input);
      }
    },
    queued: () => fast.queued() + slow.queued(),
    close: async () => { await Promise.all([fast.close(), slow.close()]); },
  };
}
