// The destinations module's start: their working state (queued invocations, logs, metrics)
// in an environment of its own, pruned on every node; with NATS, the telemetry every node
// applies (the delivering node's logs, metrics and watcher state: docs/decisions/0034); the
// claim that runs the destinations consumer; and the hog function API, whose compiles and
// test runs have pools of their own (docs/decisions/0039).
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import { overNats } from '../cluster/index.js';
import type { DestinationsTables } from './tables.js';
import type { FlagsTables } from '../flags/index.js';
import type { ActionsTables } from '../actions/index.js';
import { actionsModule } from '../actions/module.js';
import { openDestinationsStore } from './runtime/env.js';
import { upgradeOldForms } from './runtime/old-forms.js';
import { startRetention } from './runtime/retention.js';
import { followTelemetry } from './runtime/telemetry-follower.js';
import { DESTINATIONS_CONSUMER, handoverPosition, takeOver } from './runtime/queue.js';
import { hogFunctionRoutes } from './api/routes.js';
import { createHogApiPools } from './api/pools.js';
import { templateRoutes } from './api/template-routes.js';
import { publicWebhookRoutes } from './api/public-webhooks.js';
import { watchFlags } from './internal/watch-flags.js';
import { watchDisabled } from './internal/watcher-events.js';
import { captureCaptured } from './internal/captured-events.js';
import { captureInProject } from '../capture/internal.js';

// The flags' table is read for internal destinations (./internal/), never written.
// Actions are read to compile filters that name them.
export type DestinationsTablesUsed = DestinationsTables & FlagsTables & ActionsTables;

export async function startDestinations(ctx: NodeContext<DestinationsTablesUsed>, use: Use): Promise<Started> {
  const { config, cluster, log, store, writes } = ctx;
  const { auth, tenancy } = use(accessModule);
  const actions = use(actionsModule);
  const ds = openDestinationsStore(config.dataDir);
  const retention = startRetention(store, ds, config.hog, Date.now);
  // Compiling (the WASM parser) and test runs run in the API's own pools.
  const hogApi = createHogApiPools();
  // Internal destinations: hedgerow's own events (flag changes, functions the watcher disabled).
  const internal = {
    store, ds, exec: hogApi.exec, fetchAllow: config.hog.fetchAllow, siteUrl: config.siteUrl, projectName: (id: number) => tenancy.project(id)?.name ?? '',
  };
  const internalError = (err: Error) => log.warn('internal destinations', { error: err.message });
  watchFlags(writes, () => store.flags.getRange().map(({ value }) => value as Record<string, unknown>), tenancy, internal, internalError);
  const disabled = watchDisabled(ds, store, internal, () => ctx.consumers.held().includes(DESTINATIONS_CONSUMER), internalError);
  // What destinations' programs captured (postHogCapture), into their projects.
  const captured = captureCaptured(ds, ctx.eventLog, Date.now, (err) => log.warn('postHogCapture', { error: err.message }));
  // Source webhooks: their requests run in the API's Hog pool; what they capture is appended here.
  const webhooks = publicWebhookRoutes(store, {
    exec: hogApi.exec, ds, fetchAllow: config.hog.fetchAllow, siteUrl: config.siteUrl, now: Date.now,
    watcherLockMs: config.hog.watcherLockSeconds * 1000,
    capture: (projectId, events) => captureInProject(ctx.eventLog, projectId, events, Date.now()),
    onError: (err) => log.warn('source webhooks', { error: err.message }),
  });
  let telemetry: Awaited<ReturnType<typeof followTelemetry>> | null = null;
  let claim: { release(): Promise<void> } | null = null;
  const close = async () => {
    // The claim first: its last recorded position reads the queue.
    await claim?.release();
    disabled.stop();
    await webhooks.close();
    await captured.stop();
    await hogApi.close();
    retention.stop();
    await telemetry?.close();
    await ds.close();
  };
  try {
    // Before the claim below: the handover point reads the queue's counts.
    await upgradeOldForms(ds);
    telemetry = overNats(cluster)
      ? await followTelemetry(cluster, { ds, onError: (err) => log.warn('hog function telemetry', { error: err.message }) })
      : null;
    const following = telemetry;
    if (following) ctx.metrics.watchFollower('hog_telemetry', following.follower);
    claim = await ctx.consumers.claim(DESTINATIONS_CONSUMER, {
      // Far enough back that a successor replays every event whose invocation is still
      // queued here: losing this node loses no delivery (some are repeated instead).
      position: (current) => handoverPosition(ds, current),
      async onAcquire(recorded) {
        if (recorded !== null) {
          const forgotten = await takeOver(ds, ctx.eventLog.id, recorded);
          if (forgotten > 0) log.info('invocations queued here were replayed by the last holder', { consumer: DESTINATIONS_CONSUMER, forgotten });
        }
        // The watcher state as the last holder left it, not this node's stale copy.
        await following?.syncWatcher().catch((err) => log.warn('hog function telemetry: watcher state not read', { error: (err as Error).message }));
      },
    });
  } catch (err) {
    await close();
    throw err;
  }
  const follower = telemetry?.follower ?? null;
  const functions = hogFunctionRoutes({
    auth, store, writes, tenancy, ds, pools: hogApi, siteUrl: config.siteUrl, fetchAllow: config.hog.fetchAllow,
    watcherLockMs: config.hog.watcherLockSeconds * 1000,
  });
  actions.onChanged(functions.actionChanged);
  return {
    // Behind the telemetry stream past its stall bound, this node answers other logs, metrics
    // and watcher states than the delivering node's (docs/decisions/0034): not ready.
    ...(follower ? {
      ready: () => ({ hog_telemetry: follower.stale() === null }),
      unready: (): Record<string, string> => {
        const why = follower.stale();
        return why === null ? {} : { hog_telemetry: `hog telemetry stream: ${why}` };
      },
    } : {}),
    routes: [
      ...functions.routes,
      ...templateRoutes({ auth, store }),
      ...webhooks.routes,
    ],
    close,
  };
}
