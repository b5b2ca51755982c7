// The deliveries' outcomes on their way to the destinations store (docs/decisions/0040): what
// the next transaction writes (./outcomes.ts) gathered over an event-loop turn, with the logs
// and metrics gathered meanwhile; one transaction at a time, what comes while one commits
// waiting for the next; after the commit, what it wrote told to the other nodes and each
// entry's next step taken, in order. A transaction the store refuses is tried again a second
// later with what came since.
import type { DestinationsStore } from './env.js';
import { isEmpty, noWrites, writeOutcomes, type OutcomeWrites } from './outcomes.js';
import type { Telemetry, TelemetryOut } from './telemetry.js';
import type { WatcherSettings } from './watcher.js';

const RETRY_AFTER_STORE_ERROR_MS = 1000;

export interface OutcomeCommitDeps<E> {
  ds: DestinationsStore;
  telemetry: Telemetry;
  watcher: WatcherSettings;
  now(): number;
  // With NATS: told what each transaction committed (logs, metrics, watcher records), for the other nodes.
  out?: TelemetryOut;
  // The store refused a transaction: it is tried again later.
  onError(err: unknown): void;
  // An entry's next step, once the transaction that wrote its outcome committed.
  committed(entry: E): void;
  // Where the retry's timer is kept (the deliveries clear them at close).
  timers: Set<NodeJS.Timeout>;
}

export interface OutcomeCommits<E> {
  // What the next transaction writes (added to by the deliveries; then schedule()).
  pending(): OutcomeWrites;
  // The entry's next step follows the commit of the next transaction.
  after(entry: E): void;
  // A transaction after this event-loop turn.
  schedule(): void;
  // A transaction now, or after the one under way.
  flush(): Promise<void>;
  // The last transaction: after the one under way, what is left.
  close(): Promise<void>;
}

export function createOutcomeCommits<E>(deps: OutcomeCommitDeps<E>): OutcomeCommits<E> {
  const { ds, telemetry } = deps;
  // What the next transaction writes, and the entries whose next step follows its commit, in order.
  let writes = noWrites();
  let afterWrite: E[] = [];
  let flushing: Promise<void> | null = null;
  let scheduled = false;

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void flush();
    });
  }

  async function flush(): Promise<void> {
    if (flushing) {
      await flushing;
      if (!isEmpty(writes)) schedule();
      return;
    }
    if (isEmpty(writes) && telemetry.empty()) return;
    const w = writes;
    const then = afterWrite;
    writes = noWrites();
    afterWrite = [];
    const now = deps.now();
    flushing = ds.root.transaction(() => ({ records: writeOutcomes(ds, w, deps.watcher, now), batch: telemetry.write(ds) })).then(
      ({ records, batch }) => {
        deps.out?.telemetry(batch);
        for (const [id, record] of records) deps.out?.watcher(id, record);
        for (const entry of then) deps.committed(entry);
      },
      (err: unknown) => {
        deps.onError(err);
        // Tried again with what came since.
        const timer = setTimeout(() => {
          deps.timers.delete(timer);
          writes.finished.push(...w.finished);
          writes.dropped.push(...w.dropped);
          writes.stored.push(...w.stored);
          writes.failedDeliveries.push(...w.failedDeliveries);
          writes.captured.push(...w.captured);
          afterWrite.push(...then);
          schedule();
        }, RETRY_AFTER_STORE_ERROR_MS);
        deps.timers.add(timer);
      },
    ).finally(() => {
      flushing = null;
    });
    await flushing;
  }

  return {
    pending: () => writes,
    after(entry) {
      afterWrite.push(entry);
      schedule();
    },
    schedule,
    flush,
    async close() {
      if (flushing) await flushing;
      await flush();
    },
  };
}
