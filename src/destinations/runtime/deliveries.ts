// Runs queued invocations to their end (docs/decisions/0021): the program in the Hog pool up
// to a fetch, the fetch here (with PostHog's retries and backoff), the program resumed with
// the response, and so on; then one transaction records the outcome (the queue entry goes,
// the done mark, metrics, logs and the watcher's tokens are written). A program that
// fetches again is stored at that point with its state, so a restart resumes it after the
// fetch that answered rather than repeating it.
// One slow or failing endpoint holds up only its own function's deliveries: at most
// `perFunction` invocations of a function are in flight (fewer once its watcher degrades
// it), and at most `heldPerFunction` are held in memory (`maxInMemory` over all functions);
// the rest of a function's queue stays in the store and is read back as its invocations
// finish. The consumer stops reading the log only when a million invocations are queued
// over all functions, memory and store together (./consumer.ts, docs/decisions/0021).
import type { TaskRunner } from '../../pools/index.js';
import type { ExecutionTiming } from '../../hog/index.js';
import type { DestinationsStore, QueuedInvocation } from './env.js';
import type { FetchOutcome, FetchRequest } from '../fetch/http-fetch.js';
import { backoffMs, failed, failureLog, fetchRequest, programResponse, retried } from '../fetch/fetch-rules.js';
import type { HogExecTasks } from '../tasks.js';
import { WatcherState, type StoredHogFunction } from '../types.js';
import type { FunctionCache } from './function-cache.js';
import { dequeue, markDone, type InvocationKey } from './queue.js';
import { completionLog } from './run-slice.js';
import { createTelemetry, type TelemetryOut } from './telemetry.js';
import { acknowledgeEpoch, freshRecord, invocationCost, observe, type WatcherSettings } from './watcher.js';

export interface DeliverySettings {
  perFunction: number;
  degradedPerFunction: number;
  // Invocations of one function held in memory (waiting, in flight, waiting for a retry).
  heldPerFunction: number;
  // Invocations held in memory over all functions.
  maxInMemory: number;
  watcher: WatcherSettings;
}

export interface DeliveryDeps {
  ds: DestinationsStore;
  functions: FunctionCache;
  pool: TaskRunner<HogExecTasks>;
  fetch(request: FetchRequest): Promise<FetchOutcome>;
  now(): number;
  random(): number;
  settings: DeliverySettings;
  // A failure of the machinery (the store refused a write): the invocation is tried again later.
  onError(err: unknown): void;
  // With NATS: told what each transaction committed (logs, metrics, watcher records), for the other nodes.
  out?: TelemetryOut;
}

interface Entry {
  key: InvocationKey;
  inv: QueuedInvocation;
  timings: ExecutionTiming[];
  logsSoFar: number;
}

export interface Deliveries {
  // An invocation already written to the store's queue: held in memory, or left in the
  // store until its function has room (an invocation held already is ignored).
  add(key: InvocationKey, inv: QueuedInvocation): void;
  // Invocations queued: held in memory (waiting, in flight or waiting for a retry) or left
  // in the store.
  held(): number;
  // Of those, the ones held in memory.
  inMemory(): number;
  // Resolves once fewer than `limit` are queued (the consumer waits so the queue stays bounded).
  whenBelow(limit: number): Promise<void>;
  // Resolves once nothing is held (tests and the bench).
  idle(): Promise<void>;
  close(): Promise<void>;
}

const TELEMETRY_FLUSH_MS = 250;
const RETRY_AFTER_STORE_ERROR_MS = 1000;

export function createDeliveries(deps: DeliveryDeps): Deliveries {
  const { ds, settings } = deps;
  const waiting = new Map<string, Entry[]>();
  const inFlight = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters: { limit: number; resolve: () => void }[] = [];
  const telemetry = createTelemetry(deps.now);
  // Function id → keys of its invocations held in memory.
  const memory = new Map<string, Set<string>>();
  // Function id → how many of its queued invocations are left in the store (a count kept
  // as they are added and read back; set to 0 when a read finds no more).
  const inStore = new Map<string, number>();
  let memoryCount = 0;
  let storeCount = 0;
  let closed = false;
  let active = 0;
  let activeDone: (() => void) | null = null;

  const writeTelemetry = () => ds.root.transaction(() => telemetry.write(ds)).then((batch) => deps.out?.telemetry(batch));
  const flushTimer = setInterval(() => {
    if (!telemetry.empty()) void writeTelemetry().catch(deps.onError);
  }, TELEMETRY_FLUSH_MS);

  const keyText = (key: InvocationKey) => JSON.stringify(key);
  const memoryOf = (id: string) => {
    let keys = memory.get(id);
    if (!keys) memory.set(id, (keys = new Set()));
    return keys;
  };
  const held = () => memoryCount + storeCount;
  const roomFor = (keys: Set<string>) => keys.size < settings.heldPerFunction && memoryCount < settings.maxInMemory;

  function hold(key: InvocationKey, inv: QueuedInvocation, keys: Set<string>): void {
    keys.add(keyText(key));
    memoryCount++;
    const entry: Entry = { key, inv, timings: [], logsSoFar: 0 };
    const wait = inv.dueAt - deps.now();
    if (wait > 0) later(entry, wait);
    else ready(entry);
  }

  // Reads a function's invocations left in the store back into memory, as room allows.
  // Those held already are skipped, and so are any finished (a stale read).
  function readBack(id: string): void {
    const keys = memoryOf(id);
    let loaded = 0;
    let exhausted = true;
    for (const { key, value } of ds.queue.getRange({ start: [id] })) {
      if (key[0] !== id) break;
      if (keys.has(keyText(key)) || ds.done.doesExist(key)) continue;
      if (!roomFor(keys)) {
        exhausted = false;
        break;
      }
      hold(key, value, keys);
      loaded++;
    }
    const before = inStore.get(id) ?? 0;
    // Not all read: at least one is left (the count may lag what the store holds).
    const after = exhausted ? 0 : Math.max(1, before - loaded);
    if (after === 0) inStore.delete(id);
    else inStore.set(id, after);
    storeCount += after - before;
  }

  function release(entry: Entry): void {
    const id = entry.inv.functionId;
    const keys = memoryOf(id);
    if (keys.delete(keyText(entry.key))) memoryCount--;
    if (keys.size === 0) memory.delete(id);
    // Room again: functions with invocations left in the store read some back (this one
    // first), each once it is down to half its share.
    if (!closed && inStore.size > 0) {
      for (const other of [id, ...inStore.keys()]) {
        if ((inStore.get(other) ?? 0) > 0 && memoryOf(other).size <= settings.heldPerFunction / 2 && memoryCount < settings.maxInMemory) readBack(other);
      }
    }
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (held() < waiters[i].limit) waiters.splice(i, 1)[0].resolve();
    }
  }

  function later(entry: Entry, ms: number): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      ready(entry);
    }, Math.max(0, ms));
    timers.add(timer);
  }

  function ready(entry: Entry): void {
    if (closed) return;
    const id = entry.inv.functionId;
    let list = waiting.get(id);
    if (!list) waiting.set(id, (list = []));
    list.push(entry);
    pump();
  }

  function watcherState(fn: StoredHogFunction): number {
    const record = ds.watcher.get(fn.id);
    return record ? acknowledgeEpoch(record, fn.watcher_epoch, settings.watcher, deps.now()).state : WatcherState.healthy;
  }

  function pump(): void {
    for (const [id, list] of waiting) {
      if (list.length === 0) {
        waiting.delete(id);
        continue;
      }
      const fn = deps.functions.find(list[0].inv.projectId, id);
      const limit = fn && watcherState(fn) === WatcherState.degraded ? settings.degradedPerFunction : settings.perFunction;
      while (list.length > 0 && (inFlight.get(id) ?? 0) < limit) {
        const entry = list.shift()!;
        inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
        active++;
        void advance(entry).finally(() => {
          inFlight.set(id, inFlight.get(id)! - 1);
          active--;
          if (active === 0) activeDone?.();
          pump();
        });
      }
    }
  }

  async function drop(entry: Entry, metric: 'disabled_permanently' | null): Promise<void> {
    if (metric) telemetry.count(entry.inv.functionId, metric);
    await ds.root.transaction(() => { dequeue(ds, entry.key, entry.inv); });
    release(entry);
  }

  // Fetches until an answer to hand the program, or returns false when a retry waits.
  async function fetchStep(entry: Entry): Promise<boolean> {
    const inv = entry.inv;
    const pending = inv.pendingFetch!;
    const attempt = pending.attempts + 1;
    const started = deps.now();
    const outcome = await deps.fetch(fetchRequest(pending.url, pending.options));
    entry.timings.push({ kind: 'async_function', durationMs: deps.now() - started });
    telemetry.count(inv.functionId, 'fetch');
    if (failed(outcome)) {
      const again = retried(outcome, attempt);
      telemetry.log(inv.functionId, inv.instanceId, again ? 'WARN' : 'ERROR', failureLog(outcome, attempt, again));
      if (again) {
        pending.attempts = attempt;
        inv.dueAt = deps.now() + backoffMs(attempt, deps.random());
        later(entry, inv.dueAt - deps.now());
        return false;
      }
      inv.failed = true;
    }
    inv.response = programResponse(outcome);
    inv.pendingFetch = null;
    return true;
  }

  async function finish(entry: Entry, error: string | null, sync: { ops: number; maxMemoryBytes: number }): Promise<void> {
    const { inv } = entry;
    const fn = deps.functions.find(inv.projectId, inv.functionId);
    const globalsEvent = inv.globals.event as { uuid?: string; url?: string };
    const unsuccessful = inv.failed || error !== null;
    if (error !== null) {
      telemetry.log(inv.functionId, inv.instanceId, 'ERROR', `Error executing function on event ${globalsEvent.uuid}: ${error}`);
    } else {
      telemetry.log(inv.functionId, inv.instanceId, 'DEBUG', completionLog(entry.timings, sync.ops, sync.maxMemoryBytes, globalsEvent.url));
    }
    telemetry.count(inv.functionId, unsuccessful ? 'failed' : 'succeeded');
    const now = deps.now();
    const written = await ds.root.transaction(() => {
      markDone(ds, entry.key, inv, unsuccessful ? 'failed' : 'succeeded', now);
      const epoch = fn?.watcher_epoch ?? 0;
      const before = acknowledgeEpoch(ds.watcher.get(inv.functionId) ?? freshRecord(settings.watcher, now, epoch), epoch, settings.watcher, now);
      const record = observe(before, invocationCost(entry.timings, unsuccessful), settings.watcher, now);
      ds.watcher.put(inv.functionId, record);
      return { record, batch: telemetry.write(ds) };
    });
    deps.out?.telemetry(written.batch);
    deps.out?.watcher(inv.functionId, written.record);
    release(entry);
  }

  async function advance(entry: Entry): Promise<void> {
    const { inv } = entry;
    try {
      const fn = deps.functions.find(inv.projectId, inv.functionId);
      if (!fn || !fn.enabled || fn.deleted) return await drop(entry, null);
      if (watcherState(fn) === WatcherState.disabled) return await drop(entry, 'disabled_permanently');
      for (;;) {
        if (inv.pendingFetch !== null && !(await fetchStep(entry))) return;
        let outcome;
        try {
          outcome = await deps.pool.run('run', {
            bytecode: inv.state === null ? fn.bytecode : null, state: inv.state, response: inv.response, globals: inv.globals,
            secretKeys: Object.keys(fn.secret_inputs), logsSoFar: entry.logsSoFar,
          });
        } catch (err) {
          // The worker itself failed (ran out of memory, crashed): the invocation fails, once.
          return await finish(entry, `HogWorkerError: ${err instanceof Error ? err.message : String(err)}`, { ops: 0, maxMemoryBytes: 0 });
        }
        entry.timings.push(...outcome.timings);
        entry.logsSoFar += outcome.logs.length;
        for (const line of outcome.logs) telemetry.log(inv.functionId, inv.instanceId, line.level, line.message);
        if (outcome.fetch === null) return await finish(entry, outcome.error, outcome);
        // A further fetch: store where the program stands, so a restart resumes here and
        // never repeats the fetch that answered.
        const resumed = inv.state !== null;
        inv.state = outcome.fetch.state;
        inv.response = null;
        inv.pendingFetch = { url: String(outcome.fetch.url), options: outcome.fetch.options, attempts: 0 };
        if (resumed) await ds.root.transaction(() => { ds.queue.put(entry.key, inv); });
      }
    } catch (err) {
      deps.onError(err);
      later(entry, RETRY_AFTER_STORE_ERROR_MS);
    }
  }

  return {
    add(key, inv) {
      const keys = memoryOf(inv.functionId);
      // Read back from the store between its commit and this call (and maybe finished already).
      if (keys.has(keyText(key)) || ds.done.doesExist(key)) {
        if (keys.size === 0) memory.delete(inv.functionId);
        return;
      }
      if (roomFor(keys) && !inStore.has(inv.functionId)) return hold(key, inv, keys);
      inStore.set(inv.functionId, (inStore.get(inv.functionId) ?? 0) + 1);
      storeCount++;
      if (keys.size === 0) memory.delete(inv.functionId);
    },
    held,
    inMemory: () => memoryCount,
    whenBelow(limit) {
      if (held() < limit) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ limit, resolve }));
    },
    idle: () => new Promise<void>((resolve) => {
      const check = () => (held() === 0 ? resolve() : setTimeout(check, 10));
      check();
    }),
    async close() {
      closed = true;
      clearInterval(flushTimer);
      for (const t of timers) clearTimeout(t);
      timers.clear();
      if (active > 0) {
        await Promise.race([new Promise<void>((r) => { activeDone = r; }), new Promise((r) => setTimeout(r, 2000))]);
      }
      if (!telemetry.empty()) await writeTelemetry().catch(deps.onError);
    },
  };
}
