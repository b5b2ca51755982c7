// Public face of ingestion warnings: the types person processing and the event store
// raise, their storage and retention, and the API that lists them.
export { WARNING_TYPES, warningDetails, type IngestionWarning, type WarningType } from './types.js';
export { putWarning, summarizeRecentWarnings, warningsSince } from './store.js';
export { pruneWarnings, WARNINGS_KEPT_MS } from './retention.js';
export { summarizeWarnings } from './summary.js';
export { warningRoutes } from './routes.js';
export type { WarningTasks, WarningsTask } from './tasks.js';
export type { IngestionWarningsTables } from './tables.js';
