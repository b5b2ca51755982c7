// The one place where the service is wired together. The CLI is src/cli/.
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ConfigError, type Config } from './settings.js';
import { createLogger, type Logger } from './logger.js';
import { assertNativeUws } from './http/native.js';
import { createHttpServer } from './http/server.js';
import { createRouter } from './http/router.js';
import { openStore } from './store/index.js';
import { tables, type Store } from './tables.js';
import { clusterSettings, openCluster, overNats, type Cluster, type ClusterSettings } from './cluster/index.js';
import { openEventLog, openLogReader } from './log/open.js';
import { startLogRetention } from './log/retention.js';
import { LMDB_LOG_ID, type EventLog } from './log/types.js';
import { eventsAfter } from './log/lag.js';
import { captureCodec } from './capture/frames.js';
import {
  claimWork, consumerPosition, positionsOf, registerConsumers, registered, superviseConsumer,
  type ConsumerThreadData, type RegisteredConsumer,
} from './log/consumers/index.js';
import { eventStoreConsumer } from './events/store-consumer.js';
import {
  ALL_SCOPES, bootstrap, createManagementAuth, createMemberStore, createProjectAccess, createRateLimiter, createTenancyStore, memberCommands,
  memberRoutes, projectRoutes, tenancyCommands, userRoutes, type TenancyStore,
} from './access/index.js';
import { ControlBehindError, ControlGapError, createLocalWrites, type AnyCommandSpec, type StateWrites } from './state/index.js';
import { createNatsWrites, type NatsWrites } from './state/nats.js';
import { connectNatsEngine, createInsightsApi, insightCommands, insightsConsumer, openStatuses } from './insights/index.js';
import { createExportsApi, exportCommands, openSharedExports, type ExportTasks } from './exports/index.js';
import {
  destinationsConsumer, followTelemetry, handoverPosition, hogFunctionCommands, hogFunctionRoutes, openDestinationsStore, startDestinationsRetention,
  takeOver, templateRoutes, type HogApiTasks,
} from './destinations/index.js';
import { createMetrics } from './ops/metrics.js';
import { migrateEventLayout } from './events/migrate-layout.js';
import { opsRoutes } from './ops/routes.js';
import { announceNode, type NodeState } from './ops/announce.js';
import { captureRoutes, transferDecodeTask } from './capture/routes.js';
import type { CaptureTasks, CaptureWorkerData } from './capture/tasks.js';
import { eventRoutes } from './events/routes.js';
import { uuidRecorded } from './events/query.js';
import { personRoutes } from './persons/routes.js';
import { warningRoutes } from './ingestion-warnings/index.js';
import type { Route } from './http/types.js';
import { flagRoutes } from './flags/api/flag-routes.js';
import { cohortRoutes } from './flags/api/cohort-routes.js';
import { feedRoutes } from './flags/api/feed-routes.js';
import { quotaRoutes } from './quota/routes.js';
import { createFlagMeter, quotaCommands } from './quota/index.js';
import { flagCommands } from './flags/definitions/commands.js';
import { personCommands, personOperations } from './persons/index.js';
import { clearNodeState, emptyDataDir, restoreSnapshot, scheduleSnapshots, snapshotsClient } from './snapshots/index.js';
import { bundledDatabasePath, deferredGeoIp, loadGeoIp } from './geoip/database.js';
import { createLazyWorkerPool, createWorkerPool } from './pools/index.js';
import { decideRoutes } from './flags/decide-routes.js';
import { remoteConfigRoutes } from './flags/remote-config-routes.js';
import type { FlagTasks, FlagWorkerData } from './flags/tasks.js';
import type { QueryTasks, QueryWorkerData } from '../workers/queries.js';

const FLAG_WORKER_URL = new URL('../workers/flags.js', import.meta.url);
const QUERY_WORKER_URL = new URL('../workers/queries.js', import.meta.url);
const HOG_API_WORKER_URL = new URL('../workers/hog-api.js', import.meta.url);
const EXPORT_WORKER_URL = new URL('../workers/exports.js', import.meta.url);
const CAPTURE_WORKER_URL = new URL('../workers/capture.js', import.meta.url);

// Every command of the management write path (src/state/, docs/decisions/0015): the
// appliers this node runs for its own writes and, with a control stream, for everyone's.
export const COMMANDS: readonly AnyCommandSpec<Store>[] = [...tenancyCommands, ...memberCommands, ...flagCommands, ...quotaCommands, ...personCommands,
  ...insightCommands, ...hogFunctionCommands, ...exportCommands];

// Every consumer of the event log the service runs, each in a worker thread of its own
// (src/log/consumers/, docs/decisions/0014).
// With HEDGEROW_INSIGHTS=nats (the default with NATS_URL) there is no insights consumer
// here: `hedgerow aggregate` replicas load the columnar store and answer queries.
export function logConsumers(config: Readonly<Config>): RegisteredConsumer[] {
  return [
    registered(eventStoreConsumer, { cachedPersons: config.personCacheSize }),
    ...(config.insights.mode === 'embedded' ? [insightsConsumerOf(config)] : []),
    registered(destinationsConsumer, {
      dataDir: config.dataDir, siteUrl: config.siteUrl, fetchAllow: config.hog.fetchAllow, hogWorkers: config.hog.workers,
      watcherLockMs: config.hog.watcherLockSeconds * 1000,
    }),
  ];
}

// `replica`: an aggregate replica's name, which answers queries over NATS.
function insightsConsumerOf(config: Readonly<Config>, replica?: string): RegisteredConsumer {
  return registered(insightsConsumer, {
    dataDir: config.dataDir,
    threads: config.insights.threads || undefined,
    memoryLimit: config.insights.memoryLimit || undefined,
    replica,
  });
}

// What a consumer's supervised thread is given, in `serve` and in `aggregate` alike: the
// process's cluster settings, from which it opens its own handle (one connection).
const consumerThread = (config: Readonly<Config>, cluster: ClusterSettings, consumer: RegisteredConsumer): ConsumerThreadData => ({
  consumer, dataDir: config.dataDir, cluster, batchBytes: config.consumerBatchBytes,
});

// What a `hedgerow aggregate` replica runs: the event store (persons resolved by the same
// code over the same ordered log as every node) and the insights loader after it, answering
// queries over NATS. Not destinations: their webhooks fire once, from the serve nodes.
export function aggregateConsumers(config: Readonly<Config>, replica: string): RegisteredConsumer[] {
  if (!config.natsUrl) throw new ConfigError('hedgerow aggregate needs NATS_URL (or --nats URL): its replicas read the JetStream event stream');
  return [
    registered(eventStoreConsumer, { cachedPersons: config.personCacheSize }),
    insightsConsumerOf(config, replica),
  ];
}

// Consumers that run on one node of a NATS cluster at a time (docs/decisions/0031): their
// effects (hog function deliveries) must happen once, not once per node.
const CLAIMED_CONSUMERS: readonly string[] = [destinationsConsumer.name];

export interface RunningServer {
  port: number;
  store: Store;
  // The management write path the service writes through.
  writes: StateWrites;
  tenancy: TenancyStore;
  // Every registered route, so tests can audit the whole table.
  routes: readonly Route[];
  close(): Promise<void>;
}

export async function startServer(
  config: Readonly<Config>, log: Logger = createLogger(config.logLevel), consumers: readonly RegisteredConsumer[] = logConsumers(config),
): Promise<RunningServer> {
  assertNativeUws();
  // The one owner of NATS in this process (src/cluster/): two connections and every
  // JetStream asset, or the embedded twin.
  const settings = clusterSettings(config);
  const cluster = await openCluster(settings);
  const { store, writes, control } = await openNode(cluster, config, log).catch(async (err: unknown) => { await cluster.close(); throw err; });
  const movedEvents = await migrateEventLayout(store);
  if (movedEvents > 0) log.info('events moved to the current storage layout', { events: movedEvents });
  const tenancy = createTenancyStore(store, writes);
  const boot = await bootstrap(tenancy);
  if (boot.created) {
    const { key } = await tenancy.createPersonalKey(boot.admin.id, [...ALL_SCOPES], null, 'bootstrap');
    process.stderr.write(
      '\n  hedgerow: new data directory initialised\n' +
      `  project id:        ${boot.project.id}\n` +
      `  project API key:   ${boot.project.api_token}\n` +
      `  personal API key:  ${key}   (shown once; store it now)\n` +
      `  admin user:        ${boot.admin.email}   (\`hedgerow init\` mints another personal key)\n\n`,
    );
  }

  const eventLog: EventLog = await openEventLog(cluster, store, captureCodec);
  await registerConsumers(store, eventLog.id, eventLog.lastSeq(), consumers);
  // Queries run in this process's aggregation worker, or in `hedgerow aggregate` replicas.
  const natsEngine = config.insights.mode === 'nats' && overNats(cluster)
    ? await connectNatsEngine(cluster.jetstream, { timeoutMs: config.insights.queryTimeoutMs })
    : null;
  // A node of a cluster is ready once its event store has applied the event stream as it
  // stood at start (a node joining late serves no persons it has not built yet).
  const eventsAtStart = eventLog.lastSeq();
  const eventStorePosition = consumerPosition(store, eventStoreConsumer.name, eventLog.id);
  let eventsCaughtUp = eventsAtStart === 0;
  const eventsReady = () => eventsCaughtUp ||= (eventStorePosition.read() ?? 0) >= eventsAtStart;
  const metrics = createMetrics({
    insightsReplicas: () => natsEngine?.replicas() ?? [],
    consumers: () => positionsOf(store, eventLog.id, consumers).map(({ name, position }) => ({
      name, position, lagRecords: Math.max(0, eventLog.lastSeq() - position),
      lagEvents: eventLog.id === LMDB_LOG_ID ? eventsAfter(store, position) : null,
    })),
    logPending: () => eventLog.pending(),
    deadLetters: () => store.deadLetters.getCount(),
    control: () => (control ? { applied: control.applied(), lag: control.lag() } : null),
  });
  const members = createMemberStore(store, writes);
  const meter = createFlagMeter(store, writes, { flushMs: config.quotaFlushMs });
  const access = createProjectAccess(members);
  const auth = createManagementAuth({
    tenancy, onAuthFailure: (reason) => metrics.authFailures.inc({ reason }), projectAccess: access.check,
    rateLimit: createRateLimiter({ limit: config.managementRateLimitPerMinute, windowMs: 60_000 }),
  });
  const supervise = (consumer: RegisteredConsumer) => superviseConsumer(
    consumerThread(config, settings, consumer), log,
    (kind) => metrics.consumerFailures.inc({ consumer: consumer.name, kind }),
  );
  // Work whose effects leave the service runs on the one node holding its claim
  // (src/log/consumers/claim.ts; embedded, this node always holds it); every other consumer
  // runs on every node.
  const isClaimed = (c: RegisteredConsumer) => CLAIMED_CONSUMERS.includes(c.name);
  const supervised = consumers.filter((c) => !isClaimed(c)).map(supervise);
  const claimedRunning = new Map<string, ReturnType<typeof supervise>>();
  // The destinations' working state (queued invocations, logs, metrics): the claim reads
  // its queue, the hog function API its logs and metrics.
  const destinations = openDestinationsStore(config.dataDir);
  // Every node prunes its own copy of the logs and metrics; with NATS every node applies
  // those and the watcher state the delivering node publishes (docs/decisions/0034).
  const destinationsRetention = startDestinationsRetention(store, destinations, config.hog, Date.now);
  const telemetry = overNats(cluster)
    ? await followTelemetry(cluster, { ds: destinations, onError: (err) => log.warn('hog function telemetry', { error: err.message }) })
    : null;
  const claims = await Promise.all(consumers.filter(isClaimed).map((consumer) => {
    const position = consumerPosition(store, consumer.name, eventLog.id);
    return claimWork(cluster, {
      name: consumer.name,
      // Far enough back that a successor replays every event whose invocation is still
      // queued here: losing this node loses no delivery (some are repeated instead).
      position: () => handoverPosition(destinations, position.read() ?? 0),
      async onAcquire(recorded) {
        if (recorded !== null) {
          const forgotten = await takeOver(destinations, eventLog.id, recorded);
          if (forgotten > 0) log.info('invocations queued here were replayed by the last holder', { consumer: consumer.name, forgotten });
          if (recorded !== position.read()) await position.commit(recorded);
        }
        // The watcher state as the last holder left it, not this node's stale copy.
        await telemetry?.syncWatcher().catch((err) => log.warn('hog function telemetry: watcher state not read', { error: (err as Error).message }));
        log.info('claimed: this node runs the consumer for the cluster', { consumer: consumer.name, from: position.read() ?? 0 });
        claimedRunning.set(consumer.name, supervise(consumer));
      },
      async onLose() {
        await claimedRunning.get(consumer.name)?.stop();
        claimedRunning.delete(consumer.name);
        log.info('claim released: another node runs the consumer', { consumer: consumer.name });
      },
      onError: (err) => log.warn('claim', { consumer: consumer.name, error: err.message }),
    });
  }));
  // With NATS, the node holding the `snapshots` claim snapshots its state for the cluster
  // and compacts the control stream behind the snapshots (docs/decisions/0033).
  const snapshots = control && config.snapshots.intervalSeconds > 0
    ? await scheduleSnapshots(cluster, {
      store, eventStore: eventStoreConsumer.name, log, applied: () => control.applied(),
      intervalSeconds: config.snapshots.intervalSeconds, keep: config.snapshots.keep,
    })
    : null;
  const geoip = deferredGeoIp(
    config.geoipDb === 'none' ? null : loadGeoIp(config.geoipDb === 'bundled' ? bundledDatabasePath() : config.geoipDb),
    (err) => log.error('GeoIP database could not be loaded; flags evaluate without $geoip_* properties', { error: err.message }),
  );
  const flagPool = createWorkerPool<FlagTasks, FlagWorkerData>({
    worker: FLAG_WORKER_URL, threads: config.flagWorkers, maxBatch: 32, workerData: { dataDir: config.dataDir },
  });
  // Capture bodies of more than 64 KiB, as sent or inflated, are decoded here; a worker
  // over its heap limit fails its requests with 503 rather than growing the process.
  const captureDecoder = createWorkerPool<CaptureTasks, CaptureWorkerData>({
    worker: CAPTURE_WORKER_URL, threads: config.capture.workers, maxBatch: 8, transfer: transferDecodeTask,
    workerData: { maxDecompressedBytes: config.capture.maxDecompressedBytes, maxJsonNodes: config.capture.maxJsonNodes },
    resourceLimits: { maxOldGenerationSizeMb: 768 },
  });
  // One thread: management scans are rare, and the flag workers keep the other cores
  // (docs/decisions/0013).
  const queries = createWorkerPool<QueryTasks, QueryWorkerData>({ worker: QUERY_WORKER_URL, threads: 1, workerData: { dataDir: config.dataDir } });
  // Queries run where the columnar store is: this process's aggregation worker, or the
  // replicas behind natsEngine (src/insights/).
  const warnStatus = (err: Error) => log.warn('query status', { error: err.message });
  const insights = createInsightsApi({
    auth, store, writes, tenancy, dataDir: config.dataDir, logId: eventLog.id, queryTimeoutMs: config.insights.queryTimeoutMs,
    engine: natsEngine ?? undefined,
    // Background calculations' statuses are in the cluster's KV bucket: with NATS a poll or a
    // cancel may reach any node (src/insights/api/kv-statuses.ts).
    statuses: await openStatuses(cluster, { onError: warnStatus }),
    onStatusError: warnStatus,
  });
  // Hog functions: compiling is slow (the WASM parser) and runs in this worker; the
  // destinations' working state (logs, metrics, watcher) is read from its own environment.
  const hogApi = createLazyWorkerPool<HogApiTasks>({ worker: HOG_API_WORKER_URL, threads: 1, workerData: undefined });
  // Export files are rendered in their own pool, started on the first export (ECharts,
  // resvg and the PDF writer load there). A worker over its heap limit fails its render.
  const exportPool = createLazyWorkerPool<ExportTasks>({
    worker: EXPORT_WORKER_URL, threads: config.exports.workers, workerData: undefined, resourceLimits: { maxOldGenerationSizeMb: 2048 },
  });
  // A render is claimed across the cluster and, with NATS, its file put in a JetStream
  // object store every node reads (src/exports/assets/shared.ts); a render whose node died
  // is resumed by another once its claim lapsed (src/exports/assets/resume.ts).
  const sharedExports = await openSharedExports(cluster, { onError: (err) => log.warn('export claim lost', { error: err.message }) });
  const exports = createExportsApi({
    auth, store, writes, tenancy, queries: insights.service, pool: exportPool, dataDir: config.dataDir, settings: config.exports, log,
    shared: sharedExports,
  });
  // JetStream bounds its own stream (max_age); the embedded log is pruned here.
  const retention = eventLog.id === LMDB_LOG_ID ? startLogRetention(store, log, config.logPruneIntervalMs, consumers.map((c) => c.name)) : null;

  // Person deletions and flag hash keys go into the event log, ordered with the events (0032).
  const personOps = personOperations({ log: eventLog, frame: captureCodec.operationFrame, applied: (projectId, uuid) => uuidRecorded(store, projectId, uuid) });
  const readiness = () => {
    const checks = {
      consumers: [...supervised, ...claimedRunning.values()].every((c) => c.running()), log: eventLog.pending() < 1_000_000, geoip: geoip.ready(),
      ...(control ? { control: control.ready(), events: eventsReady() } : {}),
    };
    return { ok: Object.values(checks).every(Boolean), checks };
  };
  const router = createRouter([
    ...opsRoutes(metrics, readiness),
    ...captureRoutes({ log: eventLog, tenancy, metrics, limits: config.capture, maxPendingEvents: 1_000_000, decoder: captureDecoder }),
    ...eventRoutes(auth, store, queries),
    ...personRoutes(auth, store, personOps, queries, log),
    ...warningRoutes(auth, queries),
    ...projectRoutes(auth, tenancy, access),
    ...memberRoutes({ auth, tenancy, members, access }),
    ...userRoutes(auth, tenancy),
    ...flagRoutes(auth, store, writes, tenancy),
    ...cohortRoutes(auth, store, writes, tenancy),
    ...feedRoutes({ auth, store, meter, tenancy, access }),
    ...quotaRoutes(auth, meter, tenancy),
    ...insights.routes,
    ...exports.routes,
    ...decideRoutes({
      persons: personOps, meter, tenancy, pool: flagPool, geoip, log,
      // A /decide body decodes on the HTTP thread, so it may not inflate past what it may be
      // sent as: capture's 64 MiB cap there would hold the thread for seconds (an lz64 or
      // gzip bomb), while real flag requests are kilobytes.
      maxDecompressedBytes: config.capture.maxEventBodyBytes, bodyLimit: config.capture.maxEventBodyBytes,
    }),
    ...remoteConfigRoutes({ store, tenancy }),
    ...hogFunctionRoutes({
      auth, store, writes, tenancy, ds: destinations, pool: hogApi, siteUrl: config.siteUrl, fetchAllow: config.hog.fetchAllow,
      watcherLockMs: config.hog.watcherLockSeconds * 1000,
    }),
    ...templateRoutes(auth, store),
  ]);
  const server = createHttpServer({
    router, log,
    observe: metrics.observeRequest,
  });
  // This node's entry in the cluster's list (`hedgerow status`, src/ops/announce.ts).
  let announcement: { close(): Promise<void> } | null = null;
  async function close() {
    await announcement?.close();
    server.close();
    await eventLog.close();
    await Promise.all(claims.map((c) => c.close()));
    await snapshots?.close();
    await Promise.all(supervised.map((c) => c.stop()));
    await retention?.stop();
    await flagPool.close();
    await captureDecoder.close();
    await queries.close();
    // Renders still running are interrupted (they resume at the next start): their queries
    // end with the engine, their files with the pool.
    const exportsClosed = exports.close();
    const insightsClosed = insights.close();
    await exportPool.close();
    await insightsClosed;
    await exportsClosed;
    await sharedExports.close();
    await hogApi.close();
    destinationsRetention.stop();
    await telemetry?.close();
    await destinations.close();
    await meter.flush();
    await control?.close();
    await cluster.close();
    await store.close();
  }
  let port: number;
  try {
    port = await server.listen(config.host, config.port);
  } catch (err) {
    await close();
    throw err;
  }
  const claimNames = consumers.filter(isClaimed).map((c) => c.name);
  announcement = await announceNode(cluster, {
    name: cluster.node, role: 'serve', listen: `${config.host}:${port}`,
    state: (): NodeState => ({
      consumers: positionsOf(store, eventLog.id, consumers), ready: readiness().ok,
      control: control ? { applied: control.applied(), lag: control.lag() } : null,
      claims: claimNames.filter((_, i) => claims[i].held()),
    }),
    onError: (err) => log.warn('announcing this node', { error: err.message }),
  }).catch(async (err: unknown) => { await close(); throw err; });
  log.info('listening', { port, data_dir: config.dataDir, log: eventLog.id === LMDB_LOG_ID ? 'lmdb' : 'nats', insights: config.insights.mode });

  return { port, store, writes, tenancy, routes: router.routes, close };
}

export interface RunningAggregator {
  replica: string;
  close(): Promise<void>;
}

// `hedgerow aggregate`: a columnar replica as a process of its own (docs/decisions/0030). It
// consumes the JetStream stream into its own data dir with the consumers above, each in its
// supervised thread, and its insights consumer answers queries from the NATS queue group.
export async function startAggregator(config: Readonly<Config>, log: Logger = createLogger(config.logLevel)): Promise<RunningAggregator> {
  const replica = `${hostname()}:${config.dataDir}`;
  const consumers = aggregateConsumers(config, replica);
  const settings = clusterSettings(config);
  const cluster = await openCluster(settings);
  let store: Store | null = null;
  let logId: string;
  try {
    // A replica joining a cluster whose event stream no longer holds its first records (7
    // days of max_age) starts from a snapshot too: its event store then follows the stream
    // from the snapshot's position, and its insights consumer backfills from that event store.
    await joinFromSnapshot(cluster, config, log);
    store = openStore(config.dataDir, tables);
    const movedEvents = await migrateEventLayout(store);
    if (movedEvents > 0) log.info('events moved to the current storage layout', { events: movedEvents });
    const reader = await openLogReader(cluster, store, captureCodec);
    await registerConsumers(store, reader.id, await reader.lastSeq(), consumers);
    logId = reader.id;
    await reader.close();
  } catch (err) {
    await store?.close();
    await cluster.close();
    throw err;
  }
  const opened = store;
  const supervised = consumers.map((consumer) => superviseConsumer(consumerThread(config, settings, consumer), log));
  const announcement = await announceNode(cluster, {
    name: replica, role: 'aggregate', listen: null,
    state: () => ({ consumers: positionsOf(opened, logId, consumers), ready: supervised.every((c) => c.running()), control: null, claims: [] }),
    onError: (err) => log.warn('announcing this replica', { error: err.message }),
  });
  log.info('aggregating', { replica, data_dir: config.dataDir, pid: process.pid });
  return {
    replica,
    async close() {
      await announcement.close();
      await Promise.all(supervised.map((c) => c.stop()));
      await cluster.close();
      await opened.close();
    },
  };
}

// The write path over `store`: embedded, or with NATS the control stream every node
// applies (docs/decisions/0031), caught up with before anything reads management state,
// so a node joining a cluster finds its organization, projects and keys instead of
// bootstrapping its own.
export async function openWrites(
  cluster: Cluster, store: Store, log: Logger, specs: readonly AnyCommandSpec<Store>[] = COMMANDS,
): Promise<{ writes: StateWrites; control: NatsWrites | null }> {
  if (!cluster.jetstream) return { writes: createLocalWrites(store, specs), control: null };
  const control = await createNatsWrites(cluster, {
    store, specs,
    holdsState: (s) => { for (const _ of s.tenancy.getKeys({ limit: 1 })) return true; return false; },
    onHalt: (err) => log.error('control stream: this node stopped applying management writes', { error: err.message }),
  });
  const behind = control.lag();
  if (behind > 0) log.info('catching up with the control stream', { stream: control.id, applied: control.applied(), behind });
  await control.caughtUp().catch(async (err: unknown) => { await control.close(); throw err; });
  return { writes: control, control };
}

// A node starting with NATS and an empty data dir restores the newest usable snapshot
// (docs/decisions/0033) before it opens the store, then follows both streams from the
// positions it holds; without one it replays them from their first message, as before.
// Resolves with whether the data dir was empty.
async function joinFromSnapshot(cluster: Cluster, config: Readonly<Config>, log: Logger): Promise<boolean> {
  if (!cluster.jetstream || !emptyDataDir(config.dataDir)) return false;
  const client = await snapshotsClient(cluster);
  const restored = await restoreSnapshot({ dataDir: config.dataDir, client, eventStore: eventStoreConsumer.name });
  if (restored) {
    const { meta } = restored;
    log.info('restored snapshot', {
      name: meta.name, bytes: meta.size, took_ms: restored.took_ms, control_seq: meta.control.seq, event_position: meta.events.position,
    });
  }
  return true;
}

// The node's store and write path, joined from a snapshot when the data dir is empty. A
// join the control stream's compaction overtook (a snapshot taken meanwhile cut what it
// was about to replay) starts again from the newer snapshot: the data dir holds nothing
// of this node's own yet, and a join that fails leaves it empty as it was found. A data
// dir that was not empty is never cleared here: the node stops, saying how to rejoin.
export async function openNode(cluster: Cluster, config: Readonly<Config>, log: Logger): Promise<{ store: Store; writes: StateWrites; control: NatsWrites | null }> {
  for (let attempt = 1; ; attempt++) {
    const joining = await joinFromSnapshot(cluster, config, log);
    const store = openStore(config.dataDir, tables);
    try {
      return { store, ...(await openWrites(cluster, store, log)) };
    } catch (err) {
      await store.close();
      if (!joining || !(err instanceof ControlBehindError || err instanceof ControlGapError)) throw err;
      clearNodeState(config.dataDir);
      if (attempt >= 3) throw err;
      log.warn('the control stream was compacted while this node joined: restoring again', { error: (err as Error).message });
    }
  }
}

// The CLI's entry was this file until src/cli/main.ts (the bin) took it, so that a command
// loads only what it uses. Run directly, say so rather than exit having done nothing.
const invokedDirectly = process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invokedDirectly) {
  process.stderr.write('hedgerow: the CLI is dist/src/cli/main.js (`npx hedgerow`); dist/src/main.js only wires the service\n');
  process.exit(2);
}
