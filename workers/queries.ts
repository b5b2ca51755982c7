// Piscina worker for management reads that scan (the query pool: the tasks of persons,
// events and ingestion warnings, docs/decisions/0013): opens LMDB in this thread, so a
// long scan never holds up the HTTP thread.
import { workerData } from 'piscina';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { serveTasks } from '../src/pools/serve.js';
import { scanGroups, scanPersons } from '../src/persons/list.js';
import type { PersonTasks } from '../src/persons/tasks.js';
import { queryEvents } from '../src/events/query.js';
import { propertyValues } from '../src/events/values.js';
import type { EventTasks } from '../src/events/tasks.js';
import { summarizeRecentWarnings, type WarningTasks } from '../src/ingestion-warnings/index.js';

export type QueryTasks = PersonTasks & EventTasks & WarningTasks;
export interface QueryWorkerData {
  dataDir: string;
}

const store = openStore((workerData as QueryWorkerData).dataDir, tables);

export default serveTasks<QueryTasks>({
  persons: (task) => scanPersons(store, task),
  groups: (task) => scanGroups(store, task),
  warnings: (task) => summarizeRecentWarnings(store, task),
  events: (query) => queryEvents(store, query),
  values: (query) => propertyValues(store, query),
}, { beforeEach: () => store.root.resetReadTxn() });
