// The ingestion warning of an event the consumer could not apply as it came.
import type { CapturedEvent, UnreadableEvent } from '../log/types.js';
import { putWarning, type IngestionWarningsTables } from '../ingestion-warnings/index.js';

export type ProcessingOutcome = 'stored_with_deep_values_cut' | 'stored_without_person' | 'not_stored';

export function recordProcessingWarning(store: IngestionWarningsTables, ev: CapturedEvent, outcome: ProcessingOutcome, error: string, nowMs: number): void {
  // A uuid is 36 characters; one from a log written by other tools may be anything.
  putWarning(store, ev.project_id, nowMs, ev.uuid.slice(0, 64), 0, {
    type: 'event_processing_failed',
    details: { eventUuid: ev.uuid, event: ev.event, distinctId: ev.distinct_id, error: error.slice(0, 500), outcome },
  });
}

// An event the log could not read back (src/log/types.ts UnreadableEvent): not stored.
// `n` tells apart the warnings of one transaction that share a uuid (or have none).
export function recordUnreadableWarning(store: IngestionWarningsTables, ev: UnreadableEvent, n: number, nowMs: number): void {
  putWarning(store, ev.project_id, nowMs, (ev.uuid ?? '').slice(0, 64), n, {
    type: 'event_processing_failed',
    details: { eventUuid: ev.uuid, event: ev.event, distinctId: ev.distinct_id, error: ev.error.slice(0, 500), outcome: 'not_stored' },
  });
}
