// The destinations consumer of the event log (docs/decisions/0021, 0040). It starts at the
// log's end (a destination added to a running service must not fire for history) and
// follows the event store, so each event's person is resolved before its functions run.
// Each batch goes through the pipeline (./pipeline.ts) a chunk at a time, and the
// invocations it queues run in the deliveries loop (./deliveries.ts).
import { overNats } from '../../cluster/index.js';
import { defineConsumer, type ConsumerHandler } from '../../log/consumers/index.js';
import { openDestinationsStore } from './env.js';
import { upgradeOldForms } from './old-forms.js';
import { createTenancyStore } from '../../access/index.js';
import { parseAddressPolicy } from '../../net/address-policy.js';
import { FETCH_TIMEOUT_MS, httpFetch, MAX_RESPONSE_BYTES } from '../fetch/http-fetch.js';
import { createDeliveries } from './deliveries.js';
import { createFunctionCache } from './function-cache.js';
import { createHogPools } from './hog-pools.js';
import { applyBatch, type PipelineDeps, type PipelineTables } from './pipeline.js';
import { appliedKey, queuedInvocations } from './queue.js';
import { destinationsConsumerDeclaration, type DestinationsSettings } from './consumer-declaration.js';
import { HOG_PREPARE_DEADLINE_MS, HOG_SLICE_DEADLINE_MS, HOG_WORKER_HEAP_MB } from './hog-worker-limits.js';
import { openTelemetryPublisher } from './telemetry-publisher.js';
import { telemetryOrigin } from './telemetry-stream.js';
import { WATCHER_DEFAULTS, type WatcherSettings } from './watcher.js';


const HOG_WORKER = new URL('../../../workers/hog-exec.js', import.meta.url);
// Fetches in flight per function (fewer once its watcher degrades it) and over all
// functions; invocations held in memory per function and over all functions (the rest wait
// in the destinations store, read back as room comes; the consumer prepares more only while
// at most half of MAX_IN_MEMORY is held, which a function alone reaches before its own cap),
// and queued over all functions before the consumer stops reading the log (the log keeps
// the rest). An invocation held carries its event's packed globals and its request here and
// its program in a Hog worker: ~10 KB for an event of fifty properties sent whole.
const PER_FUNCTION = 16;
const DEGRADED_PER_FUNCTION = 2;
const MAX_FETCHES = 256;
const HELD_PER_FUNCTION = 1_536;
const MAX_IN_MEMORY = 2_048;
const MAX_QUEUED = 1_000_000;

export const destinationsConsumer = defineConsumer<DestinationsSettings, PipelineTables>({
  ...destinationsConsumerDeclaration,
  async open(ctx): Promise<ConsumerHandler> {
    const { settings } = ctx;
    const ds = openDestinationsStore(settings.dataDir);
    await upgradeOldForms(ds);
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
    const pool = createHogPools({
      worker: HOG_WORKER, threads: settings.hogWorkers, heapMb: HOG_WORKER_HEAP_MB,
      deadlines: { continue: HOG_SLICE_DEADLINE_MS, start: HOG_PREPARE_DEADLINE_MS },
    });
    // Made once: a fetch is made per delivery.
    const fetchSettings = { policy: parseAddressPolicy(settings.fetchAllow), timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES };
    const watcher: WatcherSettings = { ...WATCHER_DEFAULTS, stateLockMs: settings.watcherLockMs };
    const deliveries = createDeliveries({
      ds, functions, pool,
      fetch: (request) => httpFetch(request, fetchSettings),
      now: ctx.now,
      random: Math.random,
      settings: {
        perFunction: PER_FUNCTION, degradedPerFunction: DEGRADED_PER_FUNCTION, maxFetches: MAX_FETCHES, heldPerFunction: HELD_PER_FUNCTION,
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
    const deps: PipelineDeps = {
      ctx, ds, functions, pool, deliveries, watcher, tenancy, siteUrl: settings.siteUrl, out, closing: () => closing,
    };
    return {
      async apply(groups, through) {
        const applied = ds.meta.get(appliedKey(ctx.logId));
        if (through !== null && applied !== undefined && through <= applied) {
          await ctx.position.commit(through);
          return;
        }
        await applyBatch(deps, groups, through);
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
