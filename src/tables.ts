// Every domain's tables: the list the store is opened with, in every thread and process
// (main.ts and the worker entry points under workers/). lmdb-js needs a database opened
// with the same options wherever it is opened, so the list is one; a new domain declares
// its tables in a tables.ts of its own and adds one line here (docs/decisions/0035).
import type { StoreOf } from './store/index.js';
import { logTables } from './log/tables.js';
import { eventsTables } from './events/tables.js';
import { accessTables } from './access/tables.js';
import { flagsTables } from './flags/tables.js';
import { quotaTables } from './quota/tables.js';
import { personsTables } from './persons/tables.js';
import { ingestionWarningsTables } from './ingestion-warnings/tables.js';
import { insightsTables } from './insights/tables.js';
import { destinationsTables } from './destinations/tables.js';
import { exportsTables } from './exports/tables.js';
import { dashboardsTables } from './dashboards/tables.js';
import { subscriptionsTables } from './subscriptions/tables.js';
import { actionsTables } from './actions/tables.js';
import { definitionsTables } from './definitions/tables.js';

export const tables = [
  logTables,
  eventsTables,
  accessTables,
  flagsTables,
  quotaTables,
  personsTables,
  ingestionWarningsTables,
  insightsTables,
  destinationsTables,
  exportsTables,
  dashboardsTables,
  subscriptionsTables,
  actionsTables,
  definitionsTables,
] as const;

// The whole store: every domain's tables, for what truly needs them all (the management
// write path applying any domain's commands, a log consumer's thread, the tests).
export type Store = StoreOf<typeof tables>;
