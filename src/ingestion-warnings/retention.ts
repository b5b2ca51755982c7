// Ingestion warnings are kept for the 30 days the API shows; older ones are deleted
// by the consumer, a bounded number per pass so a backlog never makes one transaction long.
import type { IngestionWarningsTables } from './tables.js';

export const WARNINGS_KEPT_MS = 30 * 24 * 3600 * 1000;
const MAX_DELETES_PER_PASS = 10_000;

// Deletes warnings recorded before `beforeMs`, project by project; returns how many.
export function pruneWarnings(store: IngestionWarningsTables, beforeMs: number, max = MAX_DELETES_PER_PASS): number {
  let deleted = 0;
  let projectId = -1;
  while (deleted < max) {
    // The next project with warnings: the first key past the previous project's.
    let next: number | undefined;
    for (const key of store.ingestionWarnings.getKeys({ start: [projectId + 1], limit: 1 })) next = key[0];
    if (next === undefined) break;
    projectId = next;
    for (const key of store.ingestionWarnings.getKeys({ start: [projectId, 0], end: [projectId, beforeMs], limit: max - deleted })) {
      store.ingestionWarnings.remove(key);
      deleted++;
    }
  }
  return deleted;
}
