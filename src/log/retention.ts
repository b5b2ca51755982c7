// Retention of the embedded log. The log is a buffer between capture and its
// consumers, not the archive: records every consumer has applied are dropped,
// periodically, from the main thread (the log's only writer).
import type { LogTables } from './tables.js';
import type { Logger } from '../logger.js';
import { newestSeq } from './lmdb-log.js';

// The pruner's own entry in `positions`: the sequence it has pruned through.
export const PRUNER = 'log_pruner';
// Deletes per transaction, so a large backlog never holds the log's writer for long.
const MAX_REMOVALS_PER_TXN = 10_000;

// The highest sequence every consumer of the embedded log has applied: every position
// stored for it, and every registered consumer's (0 for one that has stored none yet, so
// a consumer added to a data dir with history finds it still there). Positions in
// another log's sequence (`name@log-id`) do not count. A stored position outlives the
// consumer's removal from the code: delete it to let retention pass it.
export function appliedByAll(store: LogTables, registered: readonly string[] = []): number {
  let min = Infinity;
  for (const { key, value } of store.positions.getRange()) {
    if (key !== PRUNER && !String(key).includes('@')) min = Math.min(min, value);
  }
  for (const name of registered) min = Math.min(min, store.positions.get(name) ?? 0);
  return min === Infinity ? 0 : min;
}

async function removeThrough(store: LogTables, upTo: number, max: number): Promise<number> {
  let removed = 0;
  await store.logRoot.transaction(() => {
    for (const key of store.log.getKeys({ end: upTo + 1, limit: max })) {
      store.log.remove(key);
      store.logCounts.remove(key);
      removed++;
    }
  });
  return removed;
}

export async function pruneAppliedRecords(store: LogTables, maxPerTxn = MAX_REMOVALS_PER_TXN, registered: readonly string[] = []): Promise<number> {
  // The newest record always stays: its key is where the sequence resumes after a restart.
  const upTo = Math.min(appliedByAll(store, registered), newestSeq(store) - 1);
  if (upTo <= 0) return 0;
  // Consumers commit with overlapping sync, so a position can be visible before it is on
  // disk. A write of ours to the same environment commits after theirs, and once it is
  // flushed so are they: a power cut can no longer take the store back before `upTo`.
  await store.positions.put(PRUNER, upTo);
  await store.root.flushed;
  let removed = 0;
  for (;;) {
    const n = await removeThrough(store, upTo, maxPerTxn);
    removed += n;
    if (n < maxPerTxn) return removed;
  }
}

// `registered`: the names of every consumer the service runs (src/log/consumers/).
export function startLogRetention(store: LogTables, log: Logger, intervalMs: number, registered: readonly string[]): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = pruneAppliedRecords(store, MAX_REMOVALS_PER_TXN, registered)
      .then((removed) => { if (removed > 0) log.debug('log records pruned', { removed }); })
      .catch((err: Error) => log.warn('log pruning failed', { error: err.message }))
      .finally(() => { running = null; });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
