// The main-thread side of a worker pool (Piscina), for every pool of the service: the
// flag evaluators, the query worker, and the pools to come. Typed by the task map its
// worker module serves (./tasks.ts, ./serve.ts).
//
// Batching: one Piscina task costs tens of microseconds of main-thread time (messaging,
// promise plumbing) — as much as a whole capture request — and as much again in the
// worker, while a task carrying 32 requests costs one or two microseconds per request.
// So requests of one kind arriving in one event-loop turn travel together (up to
// `maxBatch`), and while every worker is busy (at most `tasksPerThread` tasks in flight
// per thread) requests wait here and leave together when one comes back: an idle pool
// answers at once, a busy one batches more the busier it gets. A pool with maxBatch 1
// sends each request on its own, in arrival order within its kind; kinds take turns.
// A batch that fails as a whole is sent again request by request, so one request cannot
// fail the requests it travelled with.
import { Piscina } from 'piscina';
import type { BatchOutcome, InputOf, Kind, OutputOf, TaskMap, TaskMessage, TaskRunner } from './tasks.js';
import { allLoaded, LOADED_COUNTER, newLoadedCounter, stillLoading } from './loading.js';

export interface WorkerPoolOptions<D> {
  // The worker module; its default export is serveTasks(...) for the same task map.
  worker: URL;
  threads: number;
  // Handed to each worker thread (piscina's workerData): plain data.
  workerData: D;
  // Most requests of one kind in one task (default 1: no batching).
  maxBatch?: number;
  // Requests waiting beyond this are refused so a stalled pool cannot grow memory.
  maxQueued?: number;
  // Tasks in flight per thread (default 1): more keeps workers fed across the message
  // round trip, fewer makes batches larger.
  tasksPerThread?: number;
  // Heap limits of each worker thread (a worker over them stops and its tasks fail).
  resourceLimits?: { maxOldGenerationSizeMb?: number; maxYoungGenerationSizeMb?: number };
  // ArrayBuffers of an input to move to the worker instead of copying them (the caller
  // gives them up): for inputs of megabytes, a copy would cost the calling thread.
  transfer?: (input: unknown) => ArrayBuffer[];
  // Milliseconds a task of a kind may run: past them its worker is stopped (the only way to
  // end a thread stuck in synchronous code) and replaced, and the task fails with
  // TaskDeadlineError. A pool with deadlines sends one task per thread at a time, and none
  // while a worker it started is still loading, so a task's deadline starts when a worker
  // is free and ready to run it (not while a stopped worker's replacement starts).
  deadlines?: Partial<Record<string, number>>;
  // Milliseconds of work a request is expected to take. Given, waiting requests leave by
  // the time they arrived plus that (earliest first) rather than in arrival order: a cheap
  // request overtakes expensive ones queued before it, and an expensive one still leaves
  // once its turn comes, so one client's costly requests cannot hold everyone's up.
  expectedMs?: (input: unknown) => number;
}

export interface WorkerPool<T> extends TaskRunner<T> {
  // Requests accepted and not yet answered.
  queued(): number;
  close(): Promise<void>;
}

export class PoolOverloadedError extends Error {}

// One request of a batch failed in the worker (the rest of its batch was answered).
export class TaskFailedError extends Error {}

// A task ran past its kind's deadline; its worker was stopped.
export class TaskDeadlineError extends Error {}

// A task asked of a pool that is closing or closed, or still waiting when it closed.
export class PoolClosedError extends Error {
  constructor() { super('worker pool is closed'); }
}

// Methods, so the promise's typed resolve fits (the caller's kind fixed its type).
interface Pending {
  input: unknown;
  // Its expected milliseconds, and when it should leave: arrival plus those (pools with
  // expectedMs; else both 0 and requests leave in arrival order).
  cost: number;
  due: number;
  resolve(output: unknown): void;
  reject(err: unknown): void;
}

// Piscina loads a worker's module with require() first, and Node 20.17+ can require an ES
// module; a worker stopped while that require runs aborts the whole process (Node's
// CreateRequiredModuleFacade assertion: seen when a failed start closed its pools). Without
// require(esm) in the workers, Piscina falls back to import(), which a stop interrupts
// cleanly. Only where this Node knows the flag (older ones cannot require an ES module).
const WORKER_EXEC_ARGV = process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module')
  ? [...process.execArgv, '--no-experimental-require-module']
  : process.execArgv;

export function createWorkerPool<T extends TaskMap<T>, D = undefined>(opts: WorkerPoolOptions<D>): WorkerPool<T> {
  const loaded = newLoadedCounter();
  const pool = new Piscina<TaskMessage, BatchOutcome<unknown>>({
    filename: opts.worker.href,
    minThreads: opts.threads,
    maxThreads: opts.threads,
    // The pool's data, and the counter its workers count themselves loaded in (./loading.ts).
    workerData: { ...opts.workerData, [LOADED_COUNTER]: loaded },
    // Workers keep compiled state warm: never reap them for idleness.
    idleTimeout: Number.MAX_SAFE_INTEGER,
    // A worker blocked in Atomics.wait between tasks never runs lmdb-js's timer that ends
    // its read snapshot, and would go on reading the store as it was (docs/decisions/0013).
    atomics: 'async',
    execArgv: WORKER_EXEC_ARGV,
    resourceLimits: opts.resourceLimits,
  });
  const maxBatch = opts.maxBatch ?? 1;
  const maxQueued = opts.maxQueued ?? 100_000;
  const deadlines = opts.deadlines;
  const maxInFlight = opts.threads * (deadlines === undefined ? opts.tasksPerThread ?? 1 : 1);
  const transfer = opts.transfer;
  const expectedMs = opts.expectedMs;
  // Waiting requests by kind, in arrival order.
  const pending = new Map<string, Pending[]>();
  // Requests of a failed batch, each to be sent on its own (pools with deadlines), first.
  const alone: { kind: string; p: Pending }[] = [];
  let queued = 0;
  let inFlight = 0;
  let scheduled = false;
  // Workers started (the first ones, and a replacement for each that stopped: Piscina keeps
  // `threads` of them), and when the last started; a pool with deadlines sends nothing while
  // one of them is loading (./loading.ts), checking again every LOAD_POLL_MS.
  let started = opts.threads;
  let lastStartMs = performance.now();
  let loadPoll: NodeJS.Timeout | null = null;
  // From the close's start: nothing more is sent (the destroyed threads count as replacements
  // starting, and a pump would poll for them to load for LOAD_WAIT_MS, keeping the calling
  // thread alive that long after the close).
  let closed = false;
  if (deadlines !== undefined) {
    pool.on('workerDestroy', () => {
      started++;
      lastStartMs = performance.now();
    });
  }

  function settle(batch: Pending[]) {
    queued -= batch.length;
    inFlight--;
    pump();
  }

  function dispatch(kind: string, batch: Pending[]) {
    inFlight++;
    const inputs = new Array<unknown>(batch.length);
    for (let i = 0; i < batch.length; i++) inputs[i] = batch[i].input;
    const transferList = transfer === undefined ? undefined : inputs.flatMap(transfer);
    const deadline = deadlines?.[kind];
    const signal = deadline === undefined ? undefined : AbortSignal.timeout(deadline);
    pool.run({ kind, inputs }, { transferList, signal }).catch((err: unknown) => {
      throw signal?.aborted ? new TaskDeadlineError(`the ${kind} task ran longer than ${deadline} ms: its worker was stopped`) : err;
    }).then(
      ({ outputs, failed }) => {
        settle(batch);
        // A request already rejected ignores the resolve that follows.
        if (failed) for (const f of failed) batch[f.index].reject(new TaskFailedError(f.error));
        for (let i = 0; i < batch.length; i++) batch[i].resolve(outputs[i]);
      },
      (err) => {
        if (batch.length === 1) {
          settle(batch);
          batch[0].reject(err);
          return;
        }
        // The batch failed as a whole: its message could not be posted (an input
        // structured clone cannot copy, or one nested deep enough to overflow its stack),
        // or the worker died under it. Whichever request caused it, the others must not
        // fail with it: each is sent again alone, at once (past the in-flight cap, which
        // is there for batching), and only one that fails alone fails.
        // Buffers the batch moved to a worker that then died are gone (zero length now): a
        // request that lost its input cannot be sent again and fails with the batch (capture
        // answers 503 and the SDK retries), rather than being run on an empty input.
        // In a pool with deadlines they wait for a free thread instead, or the deadline of
        // each would run out while it waited behind the one that failed.
        inFlight--;
        for (const p of batch) {
          if (transfer !== undefined && transfer(p.input).some((b) => b.byteLength === 0)) {
            queued--;
            p.reject(err);
          } else if (deadlines !== undefined) {
            alone.push({ kind, p });
          } else {
            dispatch(kind, [p]);
          }
        }
        pump();
      },
    );
  }

  // Sends what waits, in batches of at most maxBatch, while a task slot is free. Kinds take
  // turns, a batch each: a kind with a long queue (the destinations' preparation of a
  // backlog) does not hold back another kind's requests (its deliveries) until it is through.
  function pump() {
    if (closed) return;
    if (deadlines !== undefined && stillLoading(loaded, started, lastStartMs)) {
      loadPoll ??= setTimeout(() => {
        loadPoll = null;
        pump();
      }, LOAD_POLL_MS);
      return;
    }
    while (alone.length > 0 && inFlight < maxInFlight) {
      const { kind, p } = alone.shift()!;
      dispatch(kind, [p]);
    }
    while (inFlight < maxInFlight) {
      let kind: string | undefined;
      for (const [k, all] of pending) {
        if (all.length > 0) {
          kind = k;
          break;
        }
      }
      if (kind === undefined) return;
      const all = pending.get(kind)!;
      // Requests of close cost travel together (batchEnd), earliest due first.
      dispatch(kind, all.splice(0, batchEnd(all, 0, maxBatch)));
      // Its turn is over: it goes behind the other kinds.
      pending.delete(kind);
      pending.set(kind, all);
    }
  }

  function flush() {
    scheduled = false;
    pump();
  }

  return {
    run<K extends Kind<T>>(kind: K, input: InputOf<T, K>): Promise<OutputOf<T, K>> {
      if (closed) return Promise.reject(new PoolClosedError());
      if (queued >= maxQueued) return Promise.reject(new PoolOverloadedError('worker pool queue is full'));
      queued++;
      let waiting = pending.get(kind);
      if (!waiting) pending.set(kind, (waiting = []));
      const list = waiting;
      const cost = expectedMs === undefined ? 0 : expectedMs(input);
      const due = expectedMs === undefined ? 0 : performance.now() + cost;
      const p = new Promise<OutputOf<T, K>>((resolve, reject) => { insertByDue(list, { input, cost, due, resolve, reject }); });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return p;
    },
    queued: () => queued,
    // Threads still loading finish loading first (./loading.ts). Requests not yet sent are
    // refused; those in flight end with their threads.
    async close() {
      closed = true;
      if (loadPoll !== null) clearTimeout(loadPoll);
      loadPoll = null;
      const waiting = [...alone.map((a) => a.p), ...[...pending.values()].flat()];
      alone.length = 0;
      pending.clear();
      queued -= waiting.length;
      for (const p of waiting) p.reject(new PoolClosedError());
      await allLoaded(loaded, started);
      await pool.destroy();
    },
  };
}

// How often a pool with deadlines looks again whether its workers have loaded.
const LOAD_POLL_MS = 5;

// A batch is answered when its last request is done: requests of expected costs travel
// together only while the batch's cost stays within BATCH_SPREAD_MS of its first's (a
// cheap request never waits in the batch of an expensive one).
const BATCH_SPREAD_MS = 20;
function batchEnd(all: Pending[], start: number, maxBatch: number): number {
  let end = start + 1;
  let cost = all[start].cost;
  while (end < all.length && end - start < maxBatch && cost + all[end].cost <= all[start].cost + BATCH_SPREAD_MS) cost += all[end++].cost;
  return end;
}

// After every request due no later than it (arrival order among equals; all dues are 0
// without expectedMs, so that is arrival order).
function insertByDue(list: Pending[], p: Pending): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].due <= p.due) lo = mid + 1;
    else hi = mid;
  }
  if (lo === list.length) list.push(p);
  else list.splice(lo, 0, p);
}

// The same pool, started on its first task: for pools most services never use (a service
// without hog functions runs no Hog workers and never loads their parser).
export function createLazyWorkerPool<T extends TaskMap<T>, D = undefined>(opts: WorkerPoolOptions<D>): WorkerPool<T> {
  let pool: WorkerPool<T> | null = null;
  let closed = false;
  return {
    // A closed pool starts no threads again.
    run: (kind, input) => (closed ? Promise.reject(new PoolClosedError()) : (pool ??= createWorkerPool<T, D>(opts)).run(kind, input)),
    queued: () => pool?.queued() ?? 0,
    close: async () => {
      closed = true;
      await pool?.close();
    },
  };
}
