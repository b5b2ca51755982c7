// Piscina worker for management reads that scan (src/pipeline/query-pool.ts): opens LMDB
// in this thread, so a long scan never holds up the HTTP thread.
import { workerData } from 'piscina';
import { openStore } from '../src/store/env.js';
import { scanGroups, scanPersons, summarizeRecentWarnings } from '../src/persons/list.js';
import { queryEvents } from '../src/events/query.js';
import { propertyValues } from '../src/events/values.js';
import type { QueryTask } from '../src/pipeline/query-pool.js';

const store = openStore((workerData as { dataDir: string }).dataDir);

export default function run(t: QueryTask): unknown {
  switch (t.kind) {
    case 'persons': return scanPersons(store, t.task);
    case 'groups': return scanGroups(store, t.task);
    case 'warnings': return summarizeRecentWarnings(store, t.task);
    case 'events': return queryEvents(store, t.query);
    case 'values': return propertyValues(store, t.query);
  }
}
