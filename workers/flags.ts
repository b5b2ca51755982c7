// Piscina worker for /decide and /flags (the flag pool, src/flags/tasks.ts): opens LMDB
// in this thread and evaluates batches of flag requests (src/flags/serve/evaluate-batch.ts).
import { workerData } from 'piscina';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { serveTasks } from '../src/pools/serve.js';
import { createBatchEvaluator } from '../src/flags/serve/evaluate-batch.js';
import type { FlagTasks, FlagWorkerData } from '../src/flags/tasks.js';

const store = openStore((workerData as FlagWorkerData).dataDir, tables);
export default serveTasks<FlagTasks>({ evaluate: { batch: createBatchEvaluator(store) } }, { beforeEach: () => store.root.resetReadTxn() });
