// A Piscina pool fed in batches. One Piscina task costs tens of microseconds of
// main-thread time (messaging, promise plumbing) — as much as a whole capture
// request — while a task carrying 32 requests costs one or two microseconds per
// request. So requests arriving in one event-loop turn travel together.
import { Piscina } from 'piscina';

export interface BatchingPoolOptions {
  filename: URL;
  threads: number;
  maxBatch: number;
  workerData?: unknown;
  // Requests waiting beyond this are refused so a stalled pool cannot grow memory.
  maxQueued?: number;
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
    // Long-lived tasks are not expected; async atomics avoid blocking a worker waiting for work.
    atomics: 'async',
  });
  const maxQueued = opts.maxQueued ?? 100_000;
  let pending: Pending<Req, Res>[] = [];
  let queued = 0;
  let scheduled = false;

  function dispatch(batch: Pending<Req, Res>[]) {
    const requests = new Array<Req>(batch.length);
    for (let i = 0; i < batch.length; i++) requests[i] = batch[i].request;
    pool.run(requests).then(
      (results) => {
        queued -= batch.length;
        for (let i = 0; i < batch.length; i++) batch[i].resolve(results[i]);
      },
      (err) => {
        queued -= batch.length;
        for (const p of batch) p.reject(err);
      },
    );
  }

  function flush() {
    scheduled = false;
    const all = pending;
    pending = [];
    for (let i = 0; i < all.length; i += opts.maxBatch) dispatch(all.slice(i, i + opts.maxBatch));
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
