// Group commit: every append in the same event-loop turn, and every append that
// arrives while a commit is in flight, rides on the next single commit. Callers
// get their promise resolved only when the commit carrying their events is durable.
import type { CapturedEvent } from './types.js';

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitOptions {
  commit: (events: CapturedEvent[]) => Promise<void>;
  // Commits allowed in flight at once; LMDB pipelines flushes, NATS pipelines acks.
  maxInFlight: number;
}

export function createGroupCommitter(opts: GroupCommitOptions) {
  let events: CapturedEvent[] = [];
  let waiters: Waiter[] = [];
  let inFlight = 0;
  let scheduled = false;
  let pendingEvents = 0;

  function flush() {
    scheduled = false;
    if (events.length === 0 && waiters.length === 0) return;
    if (inFlight >= opts.maxInFlight) return;
    const batch = events;
    const batchWaiters = waiters;
    events = [];
    waiters = [];
    inFlight++;
    opts.commit(batch).then(
      () => { for (const w of batchWaiters) w.resolve(); },
      (err) => { for (const w of batchWaiters) w.reject(err); },
    ).finally(() => {
      inFlight--;
      pendingEvents -= batch.length;
      if (waiters.length > 0) schedule();
    });
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  }

  return {
    append(batch: readonly CapturedEvent[]): Promise<void> {
      for (let i = 0; i < batch.length; i++) events.push(batch[i]);
      pendingEvents += batch.length;
      const p = new Promise<void>((resolve, reject) => { waiters.push({ resolve, reject }); });
      schedule();
      return p;
    },
    pending: () => pendingEvents,
    async drain(): Promise<void> {
      while (inFlight > 0 || waiters.length > 0) await new Promise((r) => setTimeout(r, 5));
    },
  };
}
