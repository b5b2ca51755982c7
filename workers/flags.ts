// Piscina worker for /decide and /flags (the flag pool, src/flags/tasks.ts): opens LMDB
// in this thread and serves batches of flag requests (src/flags/serve/worker.ts).
import { workerData } from 'piscina';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { flagTaskServer } from '../src/flags/serve/worker.js';
import type { FlagWorkerData } from '../src/flags/tasks.js';

export default flagTaskServer(openStore((workerData as FlagWorkerData).dataDir, tables));
