// Runs queued invocations to their end (docs/decisions/0021, 0040): the program up to a
// fetch (for most invocations in this thread, as the fetch gets its slot; else in the Hog pool),
// the fetch here (with PostHog's retries and backoff), the program resumed with the
// response in the pool, and so on; the outcome is written with the others of the same
// event-loop turn (./outcome-commits.ts, ./outcomes.ts: the queue entry goes, the done mark,
// metrics, logs and the watcher's tokens are written). A program that fetches again is stored at that point
// with its state, so a restart resumes it after the fetch that answered rather than
// repeating it.
// Bounds. Fetches in flight: `perFunction` per function (fewer once its watcher degrades
// it), `maxFetches` over all. Invocations held in memory: `heldPerFunction` per function,
// `maxInMemory` over all; the rest of a function's queue stays in the store and is read
// back as its invocations finish, so one slow or failing endpoint holds up only its own
// function. The consumer prepares more only while at most half of `maxInMemory` is held
// (whenRoom), so a backlog the deliveries cannot keep up with waits in the log; a function
// whose endpoint has answered none of its fetches for a second is not counted then (its
// backlog goes to the store, as above, and the other functions go on). The consumer stops
// reading the log when a million invocations are queued over all functions, memory and
// store together (./consumer.ts).
import type { TaskRunner } from '../../pools/index.js';
import type { ExecutionTiming } from '../../hog/index.js';
import type { DestinationsStore, QueuedInvocation } from './env.js';
import type { FetchOutcome, FetchRequest } from '../fetch/http-fetch.js';
import { backoffMs, failed, failureLog, fetchRequest, programResponse, retried, retryAfterMs } from '../fetch/fetch-rules.js';
import { failedDelivery } from './failed-deliveries.js';
import { resumedAtMs } from '../off-periods.js';
import { takeToken, type Bucket } from './rate-limit.js';
import type { HogExecTasks } from '../tasks.js';
import { WatcherState, type StoredHogFunction } from '../types.js';
import type { FunctionCache } from './function-cache.js';
import { createOutcomeCommits } from './outcome-commits.js';
import { globalsOfQueued, type InvocationKey } from './queue.js';
import { completionLine } from './completion-log.js';
import { addHeld, deleteHeld, heldKeys, isHeld, type HeldKeys } from './held-keys.js';
import { pack } from './bytes.js';
import { resumeInThread, startDeferred, type DeferredStart, type LocalProgram } from './in-thread.js';
import type { StepOutcome } from './steps.js';
import { createFetchTurns } from './fetch-turns.js';
import { createTelemetry, type TelemetryOut } from './telemetry.js';
import { acknowledgeEpoch, ERROR_COST, timingCost, type WatcherSettings } from './watcher.js';

export interface DeliverySettings {
  perFunction: number;
  degradedPerFunction: number;
  // Fetches in flight over all functions (default 256).
  maxFetches?: number;
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
  // A failure of the machinery (the store refused a write): the write is tried again later.
  onError(err: unknown): void;
  // With NATS: told what each transaction committed (logs, metrics, watcher records), for the other nodes.
  out?: TelemetryOut;
}

// What follows the commit of the transaction an entry's outcome is written in.
const enum AfterCommit { Release, Ready }

// An invocation held in memory; once finished, also the outcome written for it (./outcomes.ts Finished).
interface Entry {
  key: InvocationKey;
  inv: QueuedInvocation;
  // Its run's times so far, summed as they come (all of them, the synchronous ones), and what
  // they cost the watcher: the completion log and the cost read only these, so no timing
  // object lives from the first slice to the answer.
  spentMs: number;
  hogMs: number;
  // Once finished: the cost with its failure's, whether it failed, and the function's watcher_epoch.
  cost: number;
  unsuccessful: boolean;
  epoch: number;
  afterCommit: AfterCommit;
  logsSoFar: number;
  capturedSoFar: number;
  // Where a Hog worker keeps the program suspended at its fetch, or only the invocation's
  // globals (./steps.ts), and which.
  token: string | null;
  programKept: boolean;
  // A program suspended at its first fetch in this thread (./in-thread.ts).
  local: LocalProgram | null;
  // Or one not run yet: its first slice runs here once its fetch has a slot.
  start: DeferredStart | null;
  // The request of its pending fetch, made once for its attempts (null: made from
  // inv.pendingFetch when needed, as for an invocation read back from the store).
  request: FetchRequest | null;
  // Its globals as the consumer made them, when its queue entry refers to its event's pack
  // (null: read from the store when a worker needs them).
  globals: Uint8Array | null;
}

// A slice's fetch as the request it makes (a slice's fetch is made into one already: ./steps.ts).
const requestOf = (fetch: NonNullable<StepOutcome['fetch']>): FetchRequest => ({
  url: fetch.url, method: fetch.options.method, headers: fetch.options.headers, body: fetch.options.body,
});

export interface Deliveries {
  // An invocation already written to the store's queue: held in memory, or left in the
  // store until its function has room (an invocation held or finished already is ignored).
  add(key: InvocationKey, inv: QueuedInvocation, prepared?: Prepared): void;
  // Whether an invocation of the function added now would be held in memory.
  hasRoom(functionId: string): boolean;
  // Invocations queued: held in memory (waiting, in flight or waiting for a retry) or left
  // in the store.
  held(): number;
  // Of those, the ones held in memory.
  inMemory(): number;
  // Resolves once fewer than `limit` are queued (the consumer waits so the queue stays bounded).
  whenBelow(limit: number): Promise<void>;
  // Resolves once at most half of maxInMemory are held in memory by functions whose
  // endpoints answer (the consumer prepares the next events then).
  whenRoom(): Promise<void>;
  // Resolves once nothing is held (tests and the bench).
  idle(): Promise<void>;
  close(): Promise<void>;
}

// What the consumer's prepare step left of an invocation.
export interface Prepared {
  // Its program's first slice, when it was run.
  first?: StepOutcome | null;
  // Where a Hog worker keeps its program (or its globals when it was not run).
  token?: string | null;
  // Or its program, not run yet, to run in this thread up to its fetch once the fetch has a
  // slot: while it waits for one it holds its globals, not a suspended program and its
  // request, which would outlive the scavenges meanwhile.
  deferred?: DeferredStart | null;
  // Its globals, when its entry refers to its event's pack (./queue.ts).
  globals?: Uint8Array | null;
  // The caller has just seen it is not finished.
  fresh?: boolean;
}

const MAX_FETCHES = 256;
// A function with fetches in flight and none answered for this long is stalled: its
// invocations held do not keep the consumer from preparing more.
const STALLED_MS = 1000;
const TELEMETRY_FLUSH_MS = 250;

export function createDeliveries(deps: DeliveryDeps): Deliveries {
  const { ds, settings } = deps;
  const maxFetches = settings.maxFetches ?? MAX_FETCHES;
  const roomMark = Math.floor(settings.maxInMemory / 2);
  const telemetry = createTelemetry(deps.now);
  // Function id → its fetches' pace, and the functions' turn at the fetch slots.
  const turns = createFetchTurns<Entry>();
  let fetchingAll = 0;
  const timers = new Set<NodeJS.Timeout>();
  // Function id → its rate limit's bucket.
  const buckets = new Map<string, Bucket>();
  let wakeTimer: NodeJS.Timeout | null = null;
  let wakeAt = Number.POSITIVE_INFINITY;
  const waiters: { limit: number; resolve: () => void }[] = [];
  let roomWaiters: (() => void)[] = [];
  // Function id → keys of its invocations held in memory.
  const memory = new Map<string, HeldKeys>();
  // Function id → how many of its queued invocations are left in the store (a count kept
  // as they are added and read back; set to 0 when a read finds no more).
  const inStore = new Map<string, number>();
  let memoryCount = 0;
  let storeCount = 0;
  let closed = false;
  // Runs in the pool and fetches under way.
  let active = 0;
  let activeDone: (() => void) | null = null;
  // The outcomes' transactions; after each commit, each entry's next step (its afterCommit says which).
  const commits = createOutcomeCommits<Entry>({
    ds, telemetry, watcher: settings.watcher, now: deps.now, out: deps.out, onError: deps.onError, timers,
    committed: (entry) => (entry.afterCommit === AfterCommit.Ready ? ready(entry) : release(entry)),
  });

  const memoryOf = (id: string) => {
    let keys = memory.get(id);
    if (!keys) memory.set(id, (keys = heldKeys()));
    return keys;
  };
  const held = () => memoryCount + storeCount;
  const roomFor = (size: number) => size < settings.heldPerFunction && memoryCount < settings.maxInMemory;

  function begin(): void {
    active++;
  }
  function end(): void {
    active--;
    if (active === 0) activeDone?.();
  }

  function hold(key: InvocationKey, inv: QueuedInvocation, keys: HeldKeys, first: StepOutcome | null, token: string | null, start: DeferredStart | null, globals: Uint8Array | null): void {
    addHeld(keys, key);
    memoryCount++;
    const entry: Entry = {
      key, inv, spentMs: 0, hogMs: 0, cost: 0, unsuccessful: false, epoch: 0, afterCommit: AfterCommit.Release,
      logsSoFar: 0, capturedSoFar: 0, token, programKept: false, local: null, start, request: null, globals,
    };
    if (first) {
      if (runs(entry)) afterSlice(entry, first);
      return;
    }
    // Prepared just now, as one whose first slice ran: due now.
    if (start !== null) return ready(entry);
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
      if (isHeld(keys, key) || ds.done.doesExist(key)) continue;
      if (!roomFor(keys.size)) {
        exhausted = false;
        break;
      }
      hold(key, value, keys, null, null, null, null);
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
    if (deleteHeld(keys, entry.key)) memoryCount--;
    if (keys.size === 0) memory.delete(id);
    // Room again: functions with invocations left in the store read some back (this one
    // first), each once it is down to half its share.
    if (!closed && inStore.size > 0) {
      for (const other of [id, ...inStore.keys()]) {
        if ((inStore.get(other) ?? 0) > 0 && (memory.get(other)?.size ?? 0) <= settings.heldPerFunction / 2 && memoryCount < settings.maxInMemory) readBack(other);
      }
    }
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (held() < waiters[i].limit) waiters.splice(i, 1)[0].resolve();
    }
    checkRoom();
  }

  // A function whose endpoint has not answered for a while, or whose fetches wait (its
  // endpoint's Retry-After, its rate limit): what it holds does not keep others waiting.
  function stalled(id: string, now: number): boolean {
    const pace = turns.find(id);
    return pace !== undefined && ((pace.fetching > 0 && now - pace.progressAt > STALLED_MS) || pace.holdUntil > now);
  }

  // Invocations held by functions that are not stalled.
  function roomTaken(): number {
    if (memoryCount <= roomMark) return memoryCount;
    const now = deps.now();
    let taken = 0;
    for (const [id, keys] of memory) if (!stalled(id, now)) taken += keys.size;
    return taken;
  }

  function checkRoom(): void {
    if (roomWaiters.length === 0 || roomTaken() > roomMark) return;
    const resolve = roomWaiters;
    roomWaiters = [];
    for (const r of resolve) r();
  }

  function later(entry: Entry, ms: number): void {
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      ready(entry);
    }, Math.max(0, ms));
    timers.add(timer);
  }

  // Function id → its watcher state, read once per event-loop turn.
  const watcherStates = new Map<string, number>();
  function watcherState(fn: StoredHogFunction): number {
    let state = watcherStates.get(fn.id);
    if (state !== undefined) return state;
    if (watcherStates.size === 0) setImmediate(() => watcherStates.clear());
    const record = ds.watcher.get(fn.id);
    state = record ? acknowledgeEpoch(record, fn.watcher_epoch, settings.watcher, deps.now()).state : WatcherState.healthy;
    watcherStates.set(fn.id, state);
    return state;
  }

  // Whether the invocation's function still runs it; if not, it is dropped.
  function runs(entry: Entry): StoredHogFunction | null {
    const fn = deps.functions.find(entry.inv.projectId, entry.inv.functionId);
    // Queued before the function was last disabled (or deleted) and started again: what
    // matched while it was off is not delivered late.
    if (!fn || !fn.enabled || fn.deleted || (resumedAtMs(fn) ?? 0) > entry.inv.queuedAt) drop(entry, null);
    else if (watcherState(fn) === WatcherState.disabled) drop(entry, 'disabled_permanently');
    else return fn;
    return null;
  }

  // The invocation goes on: to a fetch slot when it waits for a fetch, else to the pool.
  function ready(entry: Entry): void {
    if (closed) return;
    const { inv } = entry;
    const fn = runs(entry);
    if (fn === null) return;
    if (inv.pendingFetch === null && entry.start === null) return run(entry, fn);
    turns.wait(turns.paceOf(inv.functionId), entry);
    pump();
  }

  // Wakes pump() at `at` (the earliest of the times asked for).
  function pumpAt(at: number): void {
    if (closed || at >= wakeAt) return;
    if (wakeTimer !== null) {
      clearTimeout(wakeTimer);
      timers.delete(wakeTimer);
    }
    wakeAt = at;
    const timer = setTimeout(() => {
      timers.delete(timer);
      wakeTimer = null;
      wakeAt = Number.POSITIVE_INFINITY;
      pump();
    }, Math.max(0, at - deps.now()));
    wakeTimer = timer;
    timers.add(timer);
  }

  // Starts the fetches there are slots for. Functions take turns, so the shared cap does
  // not always favour the same ones. A function held back (its endpoint's Retry-After, its
  // rate limit) waits, its invocations with it.
  function pump(): void {
    const now = deps.now();
    for (const pace of turns.turn()) {
      if (fetchingAll >= maxFetches) return;
      const list = pace.waiting;
      // Served to the end already (by a pump this one's steps called).
      if (list === null) continue;
      const { id } = pace;
      if (pace.holdUntil !== 0) {
        if (pace.holdUntil > now) {
          pumpAt(pace.holdUntil);
          continue;
        }
        pace.holdUntil = 0;
      }
      const fn = deps.functions.find(list[0].inv.projectId, id);
      const limit = fn && watcherState(fn) === WatcherState.degraded ? settings.degradedPerFunction : settings.perFunction;
      const rate = fn?.rate_limit_per_second ?? null;
      while (list.length > 0 && pace.fetching < limit && fetchingAll < maxFetches) {
        // Asked again as its fetch starts: the function may have stopped (or stopped and
        // started again) since the invocation began waiting.
        const entry = list.shift()!;
        const current = runs(entry);
        if (current === null || (entry.start !== null && !firstSlice(entry, current))) continue;
        if (rate !== null) {
          let bucket = buckets.get(id);
          if (!bucket) buckets.set(id, (bucket = { tokens: Math.max(1, rate), at: now }));
          const next = takeToken(bucket, rate, now);
          if (next !== null) {
            list.unshift(entry);
            pace.holdUntil = next;
            pumpAt(next);
            break;
          }
        }
        void fetchStep(entry);
      }
      turns.served(pace, list);
    }
  }

  // A program not run yet runs up to its fetch here, now that the fetch has a slot; one that
  // straight code refuses goes to the pool from its start (false), as one read back does.
  function firstSlice(entry: Entry, fn: StoredHogFunction): boolean {
    const start = entry.start!;
    entry.start = null;
    const first = startDeferred(start, entry.globals);
    if (first === null) {
      run(entry, fn);
      return false;
    }
    const request = first.slice.fetch!;
    entry.local = first.program;
    addTimings(entry, first.slice.timings);
    entry.inv.pendingFetch = { url: request.url, options: request.options, attempts: 0 };
    entry.request = requestOf(request);
    return true;
  }

  function run(entry: Entry, fn: StoredHogFunction): void {
    const { inv } = entry;
    // A program suspended here resumes here when straight code runs the rest of it; else
    // the pool resumes it from its state.
    const local = inv.response === null ? null : entry.local;
    entry.local = null;
    if (local !== null) {
      const outcome = resumeInThread(local, inv.response!);
      if (outcome !== null) return afterSlice(entry, outcome);
    }
    const { token, programKept } = entry;
    const globals = token === null ? entry.globals ?? globalsOfQueued(ds, inv) ?? null : null;
    // Sent without globals, a worker keeping none would answer null again and again.
    if (token === null && globals === null) return finish(entry, `the pack of event ${inv.eventUuid} is no longer stored`, null);
    begin();
    entry.token = null;
    entry.programKept = false;
    // What the worker keeps under the token is not sent again (the program: its bytecode
    // and state; the globals either way): copying them to the worker was a good part of a
    // step's cost. A worker that lost them answers null, and the step goes again whole.
    deps.pool.run('continue', {
      token, bytecode: programKept ? null : fn.bytecode ?? [], state: programKept ? null : local !== null ? pack(local.state) : inv.state, response: inv.response,
      globals,
      functionId: inv.functionId, mappingIndex: inv.mappingIndex, secretKeys: Object.keys(fn.secret_inputs), logsSoFar: entry.logsSoFar,
      capturedSoFar: entry.capturedSoFar,
    }).then(
      (outcome) => (outcome === null ? run(entry, fn) : afterSlice(entry, outcome)),
      // The worker itself failed (ran out of memory, crashed): the invocation fails, once.
      (err: unknown) => finish(entry, `HogWorkerError: ${err instanceof Error ? err.message : String(err)}`, null),
    ).finally(end);
  }

  function afterSlice(entry: Entry, outcome: StepOutcome): void {
    const { inv } = entry;
    addTimings(entry, outcome.timings);
    entry.logsSoFar += outcome.logs.length;
    for (const line of outcome.logs) telemetry.log(inv.functionId, inv.instanceId, line.level, line.message);
    if (outcome.captured.length > 0) {
      // Written with the slice's other outcomes; the main thread captures them (../internal/captured-events.ts).
      entry.capturedSoFar += outcome.captured.length;
      commits.pending().captured.push({ projectId: inv.projectId, functionId: inv.functionId, instanceId: inv.instanceId, events: outcome.captured });
      commits.schedule();
    }
    if (outcome.fetch === null) return finish(entry, outcome.error, outcome);
    entry.token = outcome.fetch.token ?? null;
    entry.programKept = entry.token !== null;
    inv.state = outcome.fetch.state ?? null;
    inv.response = null;
    inv.pendingFetch = { url: String(outcome.fetch.url), options: outcome.fetch.options, attempts: 0 };
    entry.request = requestOf(outcome.fetch);
    if (inv.state === null) return ready(entry);
    // A further fetch (the worker hands the state out then): store where the program
    // stands, so a restart resumes here and never repeats the fetch that answered.
    commits.pending().stored.push(entry);
    afterCommit(entry, AfterCommit.Ready);
  }

  async function fetchStep(entry: Entry): Promise<void> {
    const { inv } = entry;
    const id = inv.functionId;
    const pending = inv.pendingFetch!;
    const attempt = pending.attempts + 1;
    const pace = turns.paceOf(id);
    if (pace.fetching === 0) pace.progressAt = deps.now();
    pace.fetching++;
    fetchingAll++;
    begin();
    const started = deps.now();
    let outcome: FetchOutcome;
    try {
      outcome = await deps.fetch(entry.request ??= fetchRequest(pending.url, pending.options));
    } catch (err) {
      outcome = { ok: false, retryable: true, message: err instanceof Error ? err.message : String(err) };
    } finally {
      pace.fetching--;
      fetchingAll--;
      pace.progressAt = deps.now();
      end();
    }
    addTiming(entry, 'async_function', deps.now() - started);
    telemetry.count(id, 'fetch');
    let retrying = false;
    if (failed(outcome)) {
      retrying = retried(outcome, attempt);
      telemetry.log(id, inv.instanceId, retrying ? 'WARN' : 'ERROR', failureLog(outcome, attempt, retrying));
      const now = deps.now();
      // The endpoint said when to come back: this invocation and the function's others wait.
      const asked = retryAfterMs(outcome, now);
      if (asked !== null && asked > 0) pace.holdUntil = Math.max(pace.holdUntil, now + asked);
      if (retrying) {
        pending.attempts = attempt;
        inv.dueAt = now + Math.max(backoffMs(attempt, deps.random()), asked ?? 0);
        later(entry, inv.dueAt - now);
      } else {
        inv.failed = true;
        // Kept, to be listed and sent again (beyond PostHog: its #30391).
        commits.pending().failedDeliveries.push(failedDelivery(inv, entry.request!, outcome, attempt, now));
        commits.schedule();
      }
    }
    if (!retrying) {
      inv.response = programResponse(outcome);
      inv.pendingFetch = null;
      entry.request = null;
      if (!closed) {
        const fn = deps.functions.find(inv.projectId, id);
        if (fn) run(entry, fn);
        else drop(entry, null);
      }
    }
    pump();
  }

  function finish(entry: Entry, error: string | null, sync: StepOutcome | null): void {
    const { inv } = entry;
    const unsuccessful = inv.failed || error !== null;
    if (error !== null) {
      telemetry.log(inv.functionId, inv.instanceId, 'ERROR', `Error executing function on event ${inv.eventUuid}: ${error}`);
    } else {
      telemetry.log(inv.functionId, inv.instanceId, 'DEBUG', completionLine(entry.spentMs, entry.hogMs, sync?.ops ?? 0, sync?.maxMemoryBytes ?? 0, sync?.eventUrl));
    }
    telemetry.count(inv.functionId, unsuccessful ? 'failed' : 'succeeded');
    const fn = deps.functions.find(inv.projectId, inv.functionId);
    entry.unsuccessful = unsuccessful;
    if (unsuccessful) entry.cost += ERROR_COST;
    entry.epoch = fn?.watcher_epoch ?? 0;
    commits.pending().finished.push(entry);
    afterCommit(entry, AfterCommit.Release);
  }

  function drop(entry: Entry, metric: 'disabled_permanently' | null): void {
    if (metric) telemetry.count(entry.inv.functionId, metric);
    commits.pending().dropped.push(entry);
    afterCommit(entry, AfterCommit.Release);
  }

  function afterCommit(entry: Entry, next: AfterCommit): void {
    entry.afterCommit = next;
    commits.after(entry);
  }

  function addTiming(entry: Entry, kind: ExecutionTiming['kind'], durationMs: number): void {
    entry.spentMs += durationMs;
    if (kind === 'hog') entry.hogMs += durationMs;
    entry.cost += timingCost(kind, durationMs);
  }

  function addTimings(entry: Entry, timings: readonly ExecutionTiming[]): void {
    for (const t of timings) addTiming(entry, t.kind, t.durationMs);
  }

  const flushTimer = setInterval(() => {
    if (!telemetry.empty()) void commits.flush();
    // A function becomes stalled with nothing released meanwhile.
    checkRoom();
  }, TELEMETRY_FLUSH_MS);

  return {
    add(key, inv, prepared = {}) {
      const keys = memoryOf(inv.functionId);
      // Read back from the store between its commit and this call (and maybe finished already).
      if (isHeld(keys, key) || (!prepared.fresh && ds.done.doesExist(key))) {
        if (keys.size === 0) memory.delete(inv.functionId);
        return;
      }
      if (roomFor(keys.size) && !inStore.has(inv.functionId)) return hold(key, inv, keys, prepared.first ?? null, prepared.token ?? null, prepared.deferred ?? null, prepared.globals ?? null);
      inStore.set(inv.functionId, (inStore.get(inv.functionId) ?? 0) + 1);
      storeCount++;
      if (keys.size === 0) memory.delete(inv.functionId);
    },
    hasRoom: (id) => roomFor(memory.get(id)?.size ?? 0) && !inStore.has(id),
    held,
    inMemory: () => memoryCount,
    whenBelow(limit) {
      if (held() < limit) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ limit, resolve }));
    },
    whenRoom() {
      if (roomTaken() <= roomMark) return Promise.resolve();
      return new Promise((resolve) => roomWaiters.push(resolve));
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
      await commits.close().catch(deps.onError);
    },
  };
}
