// The destinations consumer of the event log (docs/decisions/0021). It starts at the log's
// end (a destination added to a running service must not fire for history) and follows the
// event store, so each event's person is resolved before its functions run. For each batch:
// the project's active functions, the events' persons and groups read here, filters,
// mappings, inputs and masking hashes in the Hog pool, then one transaction of the
// destinations store records the batch: masking counters, metrics, logs, the invocations
// queued and the log sequence the batch reached (its own record of what it applied, so a
// batch is applied once even if the mechanism's position, committed after, lags). The
// invocations then run in the deliveries loop (./deliveries.ts).
import { createLazyWorkerPool, PoolOverloadedError, type TaskRunner } from '../../pools/index.js';
import { overNats } from '../../cluster/index.js';
import { defineConsumer, type ConsumerContext, type ConsumerHandler } from '../../log/consumers/index.js';
import { EVENT_STORE_CONSUMER } from '../../events/index.js';
import type { CapturedEvent } from '../../log/types.js';
import { openDestinationsStore, type DestinationsStore, type QueuedInvocation } from './env.js';
import type { DestinationsTables } from '../tables.js';
import { groupProperties, groupTypeMapping, personRecordByDistinctId, type PersonsTables } from '../../persons/index.js';
import { createTenancyStore, type AccessTables, type TenancyStore } from '../../access/index.js';
import { parseAddressPolicy } from '../../net/address-policy.js';
import { FETCH_TIMEOUT_MS, httpFetch, MAX_RESPONSE_BYTES } from '../fetch/http-fetch.js';
import type { HogExecTasks } from '../tasks.js';
import { WatcherState } from '../types.js';
import { createDeliveries, type Deliveries } from './deliveries.js';
import { createFunctionCache, type ActiveFunction, type FunctionCache } from './function-cache.js';
import { projectUrl, type EventContext } from './globals.js';
import { passesMasking } from './masking.js';
import type { PrepareOutcome, PrepareTask } from './prepare.js';
import { HOG_PREPARE_DEADLINE_MS, HOG_SLICE_DEADLINE_MS, HOG_WORKER_HEAP_MB } from './run-slice.js';
import { appliedKey, DESTINATIONS_CONSUMER, enqueue, instanceIdOf, invocationKey, known, queuedInvocations, type InvocationKey } from './queue.js';
import { createTelemetry, type TelemetryOut } from './telemetry.js';
import { openTelemetryPublisher } from './telemetry-publisher.js';
import { telemetryOrigin } from './telemetry-stream.js';
import { acknowledgeEpoch, WATCHER_DEFAULTS, type WatcherSettings } from './watcher.js';


export interface DestinationsSettings {
  dataDir: string;
  siteUrl: string;
  // HEDGEROW_HOG_FETCH_ALLOW as given.
  fetchAllow: string;
  hogWorkers: number;
  watcherLockMs: number;
}

const HOG_WORKER = new URL('../../../workers/hog-exec.js', import.meta.url);
// Events per prepare task: enough to amortise the message, small enough to spread a batch
// over the workers.
const PREPARE_CHUNK = 256;
// Invocations in flight per function (fewer once its watcher degrades it), held in memory
// per function and over all functions (the rest wait in the destinations store, read back
// as room comes), and queued over all functions before the consumer stops reading the log
// (the log keeps the rest).
const PER_FUNCTION = 16;
const DEGRADED_PER_FUNCTION = 2;
const HELD_PER_FUNCTION = 2_000;
const MAX_IN_MEMORY = 20_000;
const MAX_QUEUED = 1_000_000;

// Reads what the event's functions need beside the event: its project, person and groups.
function eventContext(store: PersonsTables, tenancy: TenancyStore, siteUrl: string, ev: CapturedEvent): EventContext {
  const project = tenancy.project(ev.project_id);
  const url = projectUrl(siteUrl, ev.project_id);
  const personless = ev.properties.$process_person_profile === false;
  const person = personless ? undefined : personRecordByDistinctId(store, ev.project_id, ev.distinct_id);
  const groups: EventContext['groups'] = {};
  const eventGroups = ev.properties.$groups;
  if (typeof eventGroups === 'object' && eventGroups !== null) {
    for (const type of groupTypeMapping(store, ev.project_id)) {
      const key = (eventGroups as Record<string, unknown>)[type.group_type];
      if (key === undefined || key === null) continue;
      const properties = groupProperties(store, ev.project_id, type.group_type_index, String(key)) ?? {};
      groups[type.group_type] = { index: type.group_type_index, key: String(key), properties };
    }
  }
  return {
    project: { id: ev.project_id, name: project?.name ?? '', url },
    event: {
      uuid: ev.uuid, event: ev.event, distinct_id: ev.distinct_id, properties: ev.properties, timestamp: ev.timestamp,
      elements_chain: typeof ev.properties.$elements_chain === 'string' ? ev.properties.$elements_chain : '',
    },
    person: person ? { id: person.uuid, properties: person.properties } : null,
    groups,
  };
}

// What the pipeline reads in the main environment: the hog functions, the events' persons
// and groups, and the projects (their names).
type PipelineTables = DestinationsTables & PersonsTables & AccessTables;

export interface PipelineDeps {
  ctx: ConsumerContext<DestinationsSettings, PipelineTables>;
  ds: DestinationsStore;
  functions: FunctionCache;
  pool: TaskRunner<HogExecTasks>;
  deliveries: Deliveries;
  watcher: WatcherSettings;
  // Read here for project names only.
  tenancy: TenancyStore;
  // With NATS: told the logs and metrics each batch committed, for the other nodes.
  out?: TelemetryOut;
  // True once the consumer closes: a task failing then is not the event's fault.
  closing: () => boolean;
}

// Prepares a chunk in the Hog pool. If the worker fails under it (out of memory, past its
// deadline), each event's functions are prepared apart, so the one that failed is set
// aside as failing its filters and the rest of the batch goes on: an event that stops a
// worker would otherwise be tried again forever, and its batch with it.
export async function prepareApart(pool: TaskRunner<HogExecTasks>, task: PrepareTask, closing: () => boolean): Promise<PrepareOutcome[]> {
  try {
    return await pool.run('prepare', task);
  } catch (err) {
    if (err instanceof PoolOverloadedError || closing()) throw err;
    if (task.events.length === 1 && task.events[0].functions.length === 1) {
      const message = `Error filtering event ${task.events[0].ctx.event.uuid}: HogWorkerError: ${err instanceof Error ? err.message : String(err)}`;
      return [{ fn: task.events[0].functions[0], ev: 0, kind: 'filtering_failed', message }];
    }
    const apart = task.events.flatMap(({ ctx, functions }, ev) => functions.map(async (fn) => {
      const outcomes = await prepareApart(pool, { functions: task.functions, events: [{ ctx, functions: [fn] }] }, closing);
      return outcomes.map((o) => ({ ...o, ev }));
    }));
    return (await Promise.all(apart)).flat();
  }
}

// Applies one batch of events: what the consumer's handler does (tests call it directly).
export async function applyBatch(deps: PipelineDeps, events: readonly CapturedEvent[], through: number | null): Promise<void> {
  const { ctx, ds, functions, pool, deliveries } = deps;
  const now = ctx.now();
  const telemetry = createTelemetry(ctx.now);
  const runnable: ActiveFunction[] = [];
  const indexOf = new Map<string, number>();
  const work: PrepareTask['events'] = [];
  for (const ev of events) {
    const active = functions.active(ev.project_id);
    if (active.length === 0) continue;
    const chosen: number[] = [];
    for (const fn of active) {
      const record = ds.watcher.get(fn.stored.id);
      if (record && acknowledgeEpoch(record, fn.stored.watcher_epoch, deps.watcher, now).state === WatcherState.disabled) {
        telemetry.count(fn.stored.id, 'disabled_permanently');
        continue;
      }
      let i = indexOf.get(fn.stored.id);
      if (i === undefined) {
        i = runnable.push(fn) - 1;
        indexOf.set(fn.stored.id, i);
      }
      chosen.push(i);
    }
    if (chosen.length > 0) work.push({ ctx: eventContext(ctx.store, deps.tenancy, ctx.settings.siteUrl, ev), functions: chosen });
  }
  const functionsOfTask = runnable.map((f) => f.run);
  const chunks: Promise<PrepareOutcome[]>[] = [];
  for (let i = 0; i < work.length; i += PREPARE_CHUNK) {
    chunks.push(prepareApart(pool, { functions: functionsOfTask, events: work.slice(i, i + PREPARE_CHUNK) }, deps.closing));
  }
  const outcomes = (await Promise.all(chunks)).flatMap((outs, c) => outs.map((o) => ({ ...o, ev: o.ev + c * PREPARE_CHUNK })));

  const queued: { key: InvocationKey; inv: QueuedInvocation }[] = [];
  // The batch's events lie after the position the consumer stands at now.
  const after = ctx.position.read() ?? 0;
  await ds.root.transaction(() => {
    for (const o of outcomes) {
      const fn = runnable[o.fn].stored;
      const ev = work[o.ev].ctx.event;
      if (o.kind === 'filtered') {
        telemetry.count(fn.id, 'filtered');
        continue;
      }
      if (o.kind !== 'invocation') {
        telemetry.count(fn.id, o.kind);
        telemetry.log(fn.id, instanceIdOf([fn.id, ev.uuid, -1]), 'ERROR', o.message);
        continue;
      }
      if (fn.masking && o.maskKey !== null && !passesMasking(ds, fn.id, o.maskKey, fn.masking, now)) {
        telemetry.count(fn.id, 'masked');
        continue;
      }
      const inv: QueuedInvocation = {
        functionId: fn.id, projectId: fn.project_id, eventUuid: ev.uuid, mappingIndex: o.mappingIndex, instanceId: '',
        globals: o.globals, state: null, response: null, pendingFetch: null, dueAt: now, queuedAt: now, failed: false, after,
      };
      const key = invocationKey(inv);
      if (known(ds, key)) continue;
      inv.instanceId = instanceIdOf(key);
      telemetry.count(fn.id, 'triggered');
      enqueue(ds, key, inv);
      queued.push({ key, inv });
    }
    const batch = telemetry.write(ds);
    if (through !== null) ds.meta.put(appliedKey(ctx.logId), through);
    return batch;
  }).then((batch) => deps.out?.telemetry(batch));
  for (const { key, inv } of queued) deliveries.add(key, inv);
}

export const destinationsConsumer = defineConsumer<DestinationsSettings, PipelineTables>({
  module: import.meta.url,
  name: DESTINATIONS_CONSUMER,
  startsAt: 'end',
  follows: EVENT_STORE_CONSUMER,
  async open(ctx): Promise<ConsumerHandler> {
    const { settings } = ctx;
    const ds = openDestinationsStore(settings.dataDir);
    const onError = (err: unknown) => process.emitWarning(`destinations: ${err instanceof Error ? err.message : String(err)}`);
    // With NATS, the logs, metrics and watcher state written here are published for the other
    // nodes (./telemetry-publisher.ts), on this thread's connection; embedded, nothing is.
    const cluster = ctx.cluster;
    const out = !cluster || !overNats(cluster) ? undefined : await openTelemetryPublisher(cluster, {
      origin: await telemetryOrigin(ds), onError,
    }).catch(async (err) => {
      await ds.close();
      throw err;
    });
    const functions = createFunctionCache(ctx.store);
    const pool = createLazyWorkerPool<HogExecTasks>({
      worker: HOG_WORKER, threads: settings.hogWorkers, workerData: undefined, maxBatch: 32,
      resourceLimits: { maxOldGenerationSizeMb: HOG_WORKER_HEAP_MB },
      deadlines: { run: HOG_SLICE_DEADLINE_MS, prepare: HOG_PREPARE_DEADLINE_MS },
    });
    const policy = parseAddressPolicy(settings.fetchAllow);
    const watcher: WatcherSettings = { ...WATCHER_DEFAULTS, stateLockMs: settings.watcherLockMs };
    const deliveries = createDeliveries({
      ds, functions, pool,
      fetch: (request) => httpFetch(request, { policy, timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES }),
      now: ctx.now,
      random: Math.random,
      settings: {
        perFunction: PER_FUNCTION, degradedPerFunction: DEGRADED_PER_FUNCTION, heldPerFunction: HELD_PER_FUNCTION,
        maxInMemory: MAX_IN_MEMORY, watcher,
      },
      onError,
      out,
    });
    // What a crash or a restart left queued resumes first.
    for (const { key, value } of queuedInvocations(ds)) deliveries.add(key, value);
    // The pipeline only reads tenancy (project names); it never writes management state.
    const tenancy = createTenancyStore(ctx.store, {
      submit: () => Promise.reject(new Error('the destinations consumer writes no management state')), onApplied: () => undefined,
    });
    let closing = false;
    const deps: PipelineDeps = { ctx, ds, functions, pool, deliveries, watcher, tenancy, out, closing: () => closing };
    return {
      async apply(groups, through) {
        const applied = ds.meta.get(appliedKey(ctx.logId));
        if (through !== null && applied !== undefined && through <= applied) {
          await ctx.position.commit(through);
          return;
        }
        const events = groups.flatMap((g) => g.events);
        await applyBatch(deps, events, through);
        if (through !== null) await ctx.position.commit(through);
        await deliveries.whenBelow(MAX_QUEUED);
      },
      async close() {
        closing = true;
        await deliveries.close();
        await out?.close();
        await pool.close();
        await ds.close();
      },
    };
  },
});
