// The watcher over transformations (./watcher.ts, PostHog's token bucket, as over
// destinations): what each chunk of a batch cost a transformation (its programs' Hog time,
// and ERROR_COST per event it failed on) is charged once the chunk has run; one whose rating falls
// below 0 is disabled: it runs on no further event, which passes it by (skipped, counted
// `disabled_permanently`), until an update that leaves it enabled takes it back as degraded.
// The records are the destinations store's (the API's `status` reads them); a disable is
// also put in the outbox the project's internal destinations are told from
// (../internal/watcher-events.ts). Written with the batch's logs and metrics, once it is stored.
import type { DestinationsStore, WatcherRecord } from './env.js';
import type { ActiveFunction } from './function-cache.js';
import { acknowledgeEpoch, freshRecord, invocationCost, observe, type WatcherSettings } from './watcher.js';
import type { TransformOutcome } from './transform-run.js';
import { WatcherState } from '../types.js';

export interface BatchWatcher {
  disabled(fn: ActiveFunction): boolean;
  // Charges `cost`; true when that disabled the function.
  charge(fn: ActiveFunction, cost: number): boolean;
  empty(): boolean;
  // Inside a write transaction of the destinations store.
  write(store: DestinationsStore): void;
}

/** What one outcome costs: its program's Hog time, and ERROR_COST when it failed. As for
 * destinations, only a program's runs are charged, not filters or inputs that failed. */
export function outcomeCost(outcome: TransformOutcome, failed: boolean): number {
  return outcome.kind === 'returned' || outcome.kind === 'failed' ? invocationCost(outcome.timings ?? [], failed) : 0;
}

// `store`: opened on the first function's first look.
export function watchBatch(store: () => DestinationsStore, settings: WatcherSettings, now: () => number): BatchWatcher {
  const seen = new Map<string, WatcherRecord>();
  const changed = new Set<string>();
  const disabledNow: { at: number; projectId: number; functionId: string }[] = [];

  function current(fn: ActiveFunction): WatcherRecord {
    const { id, watcher_epoch: epoch } = fn.stored;
    let record = seen.get(id);
    if (record === undefined) {
      const at = now();
      record = acknowledgeEpoch(store().watcher.get(id) ?? freshRecord(settings, at, epoch), epoch, settings, at);
      seen.set(id, record);
    }
    return record;
  }

  return {
    disabled: (fn) => current(fn).state === WatcherState.disabled,
    charge(fn, cost) {
      const before = current(fn);
      // A healthy function that cost nothing keeps its record as it is (its tokens refill by the clock).
      if (cost === 0 && before.state === WatcherState.healthy) return false;
      const at = now();
      const next = observe(before, cost, settings, at);
      seen.set(fn.stored.id, next);
      changed.add(fn.stored.id);
      if (next.state !== WatcherState.disabled || before.state === WatcherState.disabled) return false;
      disabledNow.push({ at, projectId: fn.stored.project_id, functionId: fn.stored.id });
      return true;
    },
    empty: () => changed.size === 0,
    write(ds) {
      for (const id of changed) ds.watcher.put(id, seen.get(id)!);
      for (const d of disabledNow) ds.outbox.put([d.at, d.functionId], { projectId: d.projectId, functionId: d.functionId });
    },
  };
}
