// Piscina worker for /decide and /flags: opens LMDB in this thread and evaluates
// batches of flag requests (src/flags/serve/evaluate-batch.ts).
import { workerData } from 'piscina';
import { openStore } from '../src/store/env.js';
import { createBatchEvaluator } from '../src/flags/serve/evaluate-batch.js';
import type { FlagWorkerData } from '../src/flags/serve/types.js';

const store = openStore((workerData as FlagWorkerData).dataDir);
export default createBatchEvaluator(store);
