// What the deliveries write, gathered per event-loop turn into one transaction of the
// destinations store (docs/decisions/0040): finished invocations (queue entry out, done
// mark in, the watcher's tokens paid), dropped ones (out of the queue), and programs that
// fetch again (their state stored before the request, so a restart resumes after the fetch
// that answered). One transaction for a turn's outcomes instead of one per outcome: the
// commit, not the few puts, was most of an outcome's cost.
import type { DestinationsStore, QueuedInvocation, WatcherRecord } from './env.js';
import { dequeueAll, recordDone, type InvocationKey } from './queue.js';
import { keepFailed } from './failed-deliveries.js';
import type { CapturedBatch, FailedDelivery } from './env.js';
import { acknowledgeEpoch, freshRecord, observe, type WatcherSettings } from './watcher.js';
import { WatcherState } from '../types.js';

export interface Finished {
  key: InvocationKey;
  inv: QueuedInvocation;
  unsuccessful: boolean;
  // What the invocation pays the watcher, and the function's watcher_epoch when it ran.
  cost: number;
  epoch: number;
}

export interface OutcomeWrites {
  finished: Finished[];
  dropped: { key: InvocationKey; inv: QueuedInvocation }[];
  stored: { key: InvocationKey; inv: QueuedInvocation }[];
  // Fetches that failed for good, kept to be sent again (./failed-deliveries.ts).
  failedDeliveries: FailedDelivery[];
  // Events programs captured (postHogCapture), for the main thread to capture.
  captured: CapturedBatch[];
}

export const noWrites = (): OutcomeWrites => ({ finished: [], dropped: [], stored: [], failedDeliveries: [], captured: [] });

export function isEmpty(w: OutcomeWrites): boolean {
  return w.finished.length === 0 && w.dropped.length === 0 && w.stored.length === 0 && w.failedDeliveries.length === 0 && w.captured.length === 0;
}

/** Inside a write transaction: writes `w`; returns each function's watcher record after it. */
export function writeOutcomes(ds: DestinationsStore, w: OutcomeWrites, watcher: WatcherSettings, now: number): Map<string, WatcherRecord> {
  for (const { key, inv } of w.stored) ds.queue.put(key, inv);
  dequeueAll(ds, w.dropped);
  dequeueAll(ds, w.finished);
  for (const f of w.failedDeliveries) keepFailed(ds, f);
  for (const c of w.captured) ds.captures.put([now, c.functionId, c.instanceId], c);
  recordDone(ds, w.finished, now);
  const records = new Map<string, WatcherRecord>();
  for (const f of w.finished) {
    const id = f.inv.functionId;
    const current = acknowledgeEpoch(records.get(id) ?? ds.watcher.get(id) ?? freshRecord(watcher, now, f.epoch), f.epoch, watcher, now);
    const next = observe(current, f.cost, watcher, now);
    // Told to the project's internal destinations by the main thread (../internal/watcher-events.ts).
    if (next.state === WatcherState.disabled && current.state !== WatcherState.disabled) ds.outbox.put([now, id], { projectId: f.inv.projectId, functionId: id });
    records.set(id, next);
  }
  for (const [id, record] of records) ds.watcher.put(id, record);
  return records;
}
