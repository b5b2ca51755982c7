// Ingestion warnings in LMDB under [project_id, timestamp_ms, event uuid, n]: a project's
// warnings are one key range in time order. Written inside the consumer's transaction.
import type { IngestionWarningRecord, IngestionWarningsTables } from './tables.js';
import { warningDetails, type IngestionWarning } from './types.js';
import { summarizeWarnings } from './summary.js';
import type { WarningSummary } from './schemas.js';
import type { WarningsTask } from './tasks.js';

// The `n`th warning the event `eventUuid` raised in the transaction stamped `nowMs`.
export function putWarning(store: IngestionWarningsTables, projectId: number, nowMs: number, eventUuid: string, n: number, warning: IngestionWarning): void {
  store.ingestionWarnings.put([projectId, nowMs, eventUuid, n], {
    type: warning.type, timestamp: new Date(nowMs).toISOString(), details: warningDetails(warning),
  });
}

/** The project's ingestion warnings recorded at or after `sinceMs`, oldest first. */
export function warningsSince(store: IngestionWarningsTables, projectId: number, sinceMs: number): IngestionWarningRecord[] {
  return [...store.ingestionWarnings.getRange({ start: [projectId, sinceMs], end: [projectId, Number.MAX_SAFE_INTEGER] }).map(({ value }) => value)];
}

// The query worker's task (./tasks.ts): the warnings of the window, summarized.
export function summarizeRecentWarnings(store: IngestionWarningsTables, task: WarningsTask): WarningSummary[] {
  return summarizeWarnings(warningsSince(store, task.projectId, task.sinceMs), task.search);
}
