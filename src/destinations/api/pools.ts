// The hog functions API's two worker pools (docs/decisions/0039). Compiling (the WASM
// parser) runs in a pool of its own, two threads with a deadline and a slow lane behind
// them: a source that keeps the parser busy past the deadline has its worker stopped and
// replaced, and is compiled again in the slow lane, so it holds up no other save for long.
// A test run's synchronous steps (filters and inputs, slices of the program) run in a Hog
// pool of their own, bounded like the pipeline's, so a test run never waits behind the
// pipeline's deliveries nor they behind it; source webhooks' requests run there too. Both
// start on their first task.
import { createLanedPool, createLazyWorkerPool, type WorkerPool } from '../../pools/index.js';
import { HOG_PREPARE_DEADLINE_MS, HOG_SLICE_DEADLINE_MS, HOG_WORKER_HEAP_MB } from '../runtime/hog-worker-limits.js';
import type { HogApiTasks, HogExecTasks } from '../tasks.js';

const COMPILE_WORKER = new URL('../../../workers/hog-api.js', import.meta.url);
const EXEC_WORKER = new URL('../../../workers/hog-exec.js', import.meta.url);

// How long one save's or test run's configuration may take to compile. Sources are bounded
// in size and nesting before they reach the parser (src/hog/source-bounds.ts); this is for
// the parser's slow paths those bounds do not foresee. A compile starts in the fast lane,
// whose deadline is well above what the catalogue's templates take (the largest, ~2 KB,
// parses in 0.1–0.4 s); one past it is compiled again in the slow lane, one thread with the
// whole deadline (../../pools/lanes.ts), so slow sources hold up each other, not every save.
export const COMPILE_DEADLINE_MS = 20_000;
const FAST_LANE_DEADLINE_MS = 3_000;
const COMPILE_THREADS = 2;
const SLOW_LANE_THREADS = 1;
// The parser's WASM memory lies outside the JS heap; its AST of a 100 KB program is a few MB.
const COMPILE_HEAP_MB = 512;

export interface HogApiPools {
  compile: WorkerPool<HogApiTasks>;
  exec: WorkerPool<HogExecTasks>;
  close(): Promise<void>;
}

export function createHogApiPools(): HogApiPools {
  const lane = (threads: number, deadline: number) => ({
    worker: COMPILE_WORKER, threads, workerData: undefined,
    deadlines: { validate: deadline, refilter: deadline }, resourceLimits: { maxOldGenerationSizeMb: COMPILE_HEAP_MB },
  });
  const compile = createLanedPool<HogApiTasks>({
    fast: lane(COMPILE_THREADS, FAST_LANE_DEADLINE_MS), slow: lane(SLOW_LANE_THREADS, COMPILE_DEADLINE_MS),
  });
  const exec = createLazyWorkerPool<HogExecTasks>({
    worker: EXEC_WORKER, threads: 1, workerData: undefined,
    deadlines: { run: HOG_SLICE_DEADLINE_MS, prepare: HOG_PREPARE_DEADLINE_MS, inputs: HOG_PREPARE_DEADLINE_MS }, resourceLimits: { maxOldGenerationSizeMb: HOG_WORKER_HEAP_MB },
  });
  return {
    compile, exec,
    close: async () => { await Promise.all([compile.close(), exec.close()]); },
  };
}
