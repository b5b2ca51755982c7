// Group commit: every append in the same event-loop turn, and every append that
// arrives while a commit is in flight, rides on the next single commit. Callers
// get their promise resolved only when the commit carrying their frames is durable.
import type { LogFrame } from './types.js';

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitOptions {
  commit: (frames: LogFrame[]) => Promise<void>;
  // Commits allowed in flight at once; LMDB pipelines flushes, NATS pipelines acks.
  maxInFlight: number;
}

export function createGroupCommitter(opts: GroupCommitOptions) {
  let frames: LogFrame[] = [];
  let waiters: Waiter[] = [];
  let inFlight = 0;
  let scheduled = false;
  let pendingEvents = 0;

  function flush() {
    scheduled = false;
    if (frames.length === 0 && waiters.length === 0) return;
    if (inFlight >= opts.maxInFlight) return;
    const batch = frames;
    const batchWaiters = waiters;
    frames = [];
    waiters = [];
    inFlight++;
    let events = 0;
    for (const f of batch) events += f.events;
    opts.commit(batch).then(
      () => { for (const w of batchWaiters) w.resolve(); },
      (err) => { for (const w of batchWaiters) w.reject(err); },
    ).finally(() => {
      inFlight--;
      pendingEvents -= events;
      if (waiters.length > 0) schedule();
    });
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  }

  return {
    // One promise for all of `batch`: resolved when the commit carrying them is durable.
    append(batch: LogFrame | readonly LogFrame[]): Promise<void> {
      if (Array.isArray(batch)) {
        for (let i = 0; i < batch.length; i++) { frames.push(batch[i]); pendingEvents += batch[i].events; }
      } else {
        const f = batch as LogFrame;
        frames.push(f);
        pendingEvents += f.events;
      }
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
