// Deliveries that failed for good (their fetch answered an error or none after its
// retries), kept per function so they can be listed and sent again (beyond PostHog: its
// issue #30391). What is kept is the request as the program made it, so sending it again
// repeats that request only, not the program around it. Kept for a week, at most
// MAX_PER_FUNCTION per function (./retention.ts prunes them).
import { randomUUID } from 'node:crypto';
import type { FetchOutcome, FetchRequest } from '../fetch/http-fetch.js';
import type { DestinationsStore, FailedDelivery, QueuedInvocation } from './env.js';

export const FAILED_RETENTION_MS = 7 * 86_400_000;
export const MAX_PER_FUNCTION = 10_000;


export function failedDelivery(inv: QueuedInvocation, request: FetchRequest, outcome: FetchOutcome, attempts: number, nowMs: number): FailedDelivery {
  return {
    id: randomUUID(), function_id: inv.functionId, event_uuid: inv.eventUuid, instance_id: inv.instanceId, mapping_index: inv.mappingIndex,
    failed_at: new Date(nowMs).toISOString(), attempts,
    status: outcome.ok ? outcome.status : null,
    error: outcome.ok ? `HTTP ${outcome.status}: ${String(typeof outcome.body === 'string' ? outcome.body : JSON.stringify(outcome.body)).slice(0, 500)}` : outcome.message,
    request, resent: 0, last_resent_at: null,
  };
}

const keyOf = (f: FailedDelivery): [string, number, string] => [f.function_id, Date.parse(f.failed_at), f.id];

/** Inside a write transaction. */
export function keepFailed(ds: DestinationsStore, f: FailedDelivery): void {
  ds.failed.put(keyOf(f), f);
}

/** Inside a write transaction. */
export function forgetFailed(ds: DestinationsStore, f: FailedDelivery): void {
  ds.failed.remove(keyOf(f));
}

/** A function's failed deliveries, newest first. */
export function failedOf(ds: DestinationsStore, functionId: string): FailedDelivery[] {
  const out: FailedDelivery[] = [];
  for (const { value } of ds.failed.getRange({ start: [functionId, Number.MAX_SAFE_INTEGER], end: [functionId, 0], reverse: true })) out.push(value);
  return out;
}

/** Drops those past the retention, and past MAX_PER_FUNCTION per function (the oldest first). */
export async function pruneFailed(ds: DestinationsStore, functionIds: Iterable<string>, nowMs: number): Promise<number> {
  let n = 0;
  for (const id of functionIds) {
    await ds.root.transaction(() => {
      let kept = 0;
      for (const { key } of ds.failed.getRange({ start: [id, Number.MAX_SAFE_INTEGER], end: [id, 0], reverse: true })) {
        if (kept < MAX_PER_FUNCTION && key[1] >= nowMs - FAILED_RETENTION_MS) kept++;
        else {
          ds.failed.remove(key);
          n++;
        }
      }
    });
  }
  return n;
}
