// Piscina worker for management reads that scan (src/persons/list.ts): opens LMDB in
// this thread, so a long scan never holds up the HTTP thread.
import { workerData } from 'piscina';
import { openStore } from '../src/store/env.js';
import { scanPersons, type PersonScanTask } from '../src/persons/list.js';

const store = openStore((workerData as { dataDir: string }).dataDir);
export default (task: PersonScanTask) => scanPersons(store, task);
