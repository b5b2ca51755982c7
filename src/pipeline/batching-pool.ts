// A Piscina pool fed in batches. One Piscina task costs tens of microseconds of
// main-thread time (messaging, promise plumbing) — as much as a whole capture
// request — and as much again in the worker, while a task carrying 32 requests costs
// one or two microseconds per request. So requests arriving in one event-loop turn
// travel together, and while every worker is busy (at most `tasksPerThread` tasks in
// flight per thread) requests wait here and leave together when one comes back: an
// idle pool answers at once, a busy one batches more the busier it gets.
import { Piscina } from 'piscina';

export interface BatchingPoolOptions {
  filename: URL;
  threads: number;
  maxBatch: number;
  workerData?: unknown;
  // Requests waiting beyond this are refused so a stalled pool cannot grow memory.
  maxQueued?: number;
  // Tasks in flight per thread (default 1): more keeps workers fed across the message
  // round trip, fewer makes batches larger.
  tasksPerThread?: number;
}

export class PoolOverloadedError extends Error {}

interface Pending<Req, Res> {
  request: Req;
  resolve: (r: Res) => void;
  reject: (e: unknown) => void;
}

export function createBatchingPool<Req, Res>(opts: BatchingPoolOptions) {
  const pool = new Piscina<Req[], Res[]>({
    filename: opts.filename.href,
    minThreads: opts.threads,
    maxThreads: opts.threads,
    workerData: opts.workerData,
    // Workers keep compiled state warm: never reap them for idleness.
    idleTimeout: Number.MAX_SAFE_INTEGER,
    // A worker blocked in Atomics.wait between tasks never runs lmdb-js's timer that ends
    // its read snapshot, and would go on reading the store as it was (docs/decisions/0013).
    atomics: 'async',
  });
  const maxQueued = opts.maxQueued ?? 100_000;
  const maxInFlight = opts.threads * (opts.tasksPerThread ?? 1);
  let pending: Pending<Req, Res>[] = [];
  let queued = 0;
  let inFlight = 0;
  let scheduled = false;

  function settle(batch: Pending<Req, Res>[]) {
    queued -= batch.length;
    inFlight--;
    pump();
  }

  function dispatch(batch: Pending<Req, Res>[]) {
    inFlight++;
    const requests = new Array<Req>(batch.length);
    for (let i = 0; i < batch.length; i++) requests[i] = batch[i].request;
    pool.run(requests).then(
      (results) => {
        settle(batch);
        for (let i = 0; i < batch.length; i++) batch[i].resolve(results[i]);
      },
      (err) => {
        settle(batch);
        for (const p of batch) p.reject(err);
      },
    );
  }

  // Sends what waits, in batches of at most maxBatch, while a task slot is free.
  function pump() {
    if (pending.length === 0 || inFlight >= maxInFlight) return;
    const all = pending;
    pending = [];
    let i = 0;
    for (; i < all.length && inFlight < maxInFlight; i += opts.maxBatch) dispatch(all.slice(i, i + opts.maxBatch));
    if (i < all.length) pending = all.slice(i);
  }

  function flush() {
    scheduled = false;
    pump();
  }

  return {
    run(request: Req): Promise<Res> {
      if (queued >= maxQueued) return Promise.reject(new PoolOverloadedError('worker pool queue is full'));
      queued++;
      const p = new Promise<Res>((resolve, reject) => { pending.push({ request, resolve, reject }); });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return p;
    },
    queued: () => queued,
    close: () => pool.destroy(),
  };
}

export type BatchingPool<Req, Res> = ReturnType<typeof createBatchingPool<Req, Res>>;
