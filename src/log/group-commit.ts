// Group commit: every append in the same event-loop turn, and every append that
// arrives while a commit is in flight, rides on the next single commit. Callers
// get their promise resolved only when the commit carrying their frames is durable.
// The appends of one commit share one promise: a request costs no promise, executor
// closure or waiter of its own, and a commit settles one promise, not one per request.
import type { LogFrame } from './types.js';

export interface GroupCommitOptions {
  commit: (frames: LogFrame[]) => Promise<void>;
  // Commits allowed in flight at once; LMDB pipelines flushes, NATS pipelines acks.
  maxInFlight: number;
}

// The promise the appends of the next commit wait on, and how to settle it.
interface Outcome {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function outcome(): Outcome {
  const o = { resolve: null, reject: null } as unknown as Outcome;
  o.promise = new Promise<void>((resolve, reject) => { o.resolve = resolve; o.reject = reject; });
  return o;
}

export function createGroupCommitter(opts: GroupCommitOptions) {
  let frames: LogFrame[] = [];
  // Null until an append since the last commit started.
  let next: Outcome | null = null;
  let inFlight = 0;
  let scheduled = false;
  let pendingEvents = 0;

  function flush() {
    scheduled = false;
    if (next === null) return;
    if (inFlight >= opts.maxInFlight) return;
    const batch = frames;
    const settle = next;
    frames = [];
    next = null;
    inFlight++;
    let events = 0;
    for (const f of batch) events += f.events;
    opts.commit(batch).then(settle.resolve, settle.reject).finally(() => {
      inFlight--;
      pendingEvents -= events;
      if (next !== null) schedule();
    });
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  }

  return {
    // One promise for all of `batch` (and for whatever else rides on the same commit):
    // resolved when the commit carrying them is durable.
    append(batch: LogFrame | readonly LogFrame[]): Promise<void> {
      if (Array.isArray(batch)) {
        for (let i = 0; i < batch.length; i++) { frames.push(batch[i]); pendingEvents += batch[i].events; }
      } else {
        const f = batch as LogFrame;
        frames.push(f);
        pendingEvents += f.events;
      }
      if (next === null) next = outcome();
      schedule();
      return next.promise;
    },
    pending: () => pendingEvents,
    async drain(): Promise<void> {
      while (inFlight > 0 || next !== null) await new Promise((r) => setTimeout(r, 5));
    },
  };
}
