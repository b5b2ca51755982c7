// A node's core, opened before any module starts and closed after every one has: the
// cluster handle (src/cluster/), the store and management write path (./open.ts), the event
// log, the consumers' registration and their runner, log retention and the metrics. Each
// is a module of the same lifecycle, so a core that fails half-way closes what it opened.
import type { Config } from '../settings.js';
import type { Logger } from '../logger.js';
import { clusterSettings, openCluster, type Cluster, type ClusterSettings } from '../cluster/index.js';
import type { Store } from '../tables.js';
import type { AnyCommandSpec, StateWrites } from '../state/index.js';
import type { NatsWrites } from '../state/nats.js';
import { openEventLog } from '../log/open.js';
import { startLogRetention } from '../log/retention.js';
import { eventsAfter } from '../log/lag.js';
import { LMDB_LOG_ID, type EventLog } from '../log/types.js';
import { registerConsumers, type RegisteredConsumer } from '../log/consumers/index.js';
import { captureCodec } from '../capture/frames.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { defineModule, startModules, type Readiness } from '../modules/index.js';
import { migrateEventLayout } from '../events/migrate-layout.js';
import { createLazyWorkerPool, type TaskRunner } from '../pools/index.js';
import type { QueryTasks, QueryWorkerData } from '../../workers/queries.js';
import { openNode, type NodeState } from './open.js';

const QUERY_WORKER_URL = new URL('../../workers/queries.js', import.meta.url);
import { consumerRunner, type ConsumerRunner } from './consumers.js';

export interface CoreOptions {
  config: Readonly<Config>;
  log: Logger;
  // Every management command of the service (every module's).
  specs: readonly AnyCommandSpec<Store>[];
  // Every log consumer of the service (every module's, and a test's own).
  consumers: readonly RegisteredConsumer[];
}

export interface Core {
  readonly cluster: Cluster;
  readonly scans: TaskRunner<QueryTasks>;
  readonly store: Store;
  readonly writes: StateWrites;
  readonly control: NatsWrites | null;
  readonly eventLog: EventLog;
  readonly consumers: ConsumerRunner;
  readonly metrics: Metrics;
  // The core's own checks: its consumers running, and with NATS, the control stream followed.
  readiness(): Pick<Readiness, 'checks' | 'reasons'>;
  close(): Promise<void>;
}

export async function openCore(opts: CoreOptions): Promise<Core> {
  const { config, log } = opts;
  const settings: ClusterSettings = clusterSettings(config);
  // The one owner of NATS in this process: two connections and every JetStream asset, or
  // the embedded twin.
  const cluster = defineModule<null, Cluster>({
    name: 'cluster',
    async start() {
      const handle = await openCluster(settings);
      return { provides: handle, close: () => handle.close() };
    },
  });
  const state = defineModule<null, NodeState>({
    name: 'state',
    async start(_ctx, use) {
      const opened = await openNode(use(cluster), config, log, opts.specs);
      // A data dir from before the one-write layout (docs/decisions/0012) has its events
      // moved before anything reads them.
      const moved = await migrateEventLayout(opened.store).catch(async (err: unknown) => {
        await opened.control?.close();
        await opened.store.close();
        throw err;
      });
      if (moved > 0) log.info('events moved to the current storage layout', { events: moved });
      return {
        provides: opened,
        ready: (): Record<string, boolean> => (opened.control ? { control: opened.control.ready() } : {}),
        unready: (): Record<string, string> => {
          const why = opened.control?.unready() ?? null;
          return why === null ? {} : { control: why };
        },
        async close() {
          await opened.control?.close();
          await opened.store.close();
        },
      };
    },
  });
  const eventLog = defineModule<null, EventLog>({
    name: 'event log',
    async start(_ctx, use) {
      const { store } = use(state);
      const opened = await openEventLog(use(cluster), store, captureCodec);
      await registerConsumers(store, opened.id, opened.lastSeq(), opts.consumers);
      // JetStream bounds its own stream (max_age); the embedded log is pruned here.
      const retention = opened.id === LMDB_LOG_ID ? startLogRetention(store, log, config.logPruneIntervalMs, opts.consumers.map((c) => c.name)) : null;
      return {
        provides: opened,
        async close() {
          await retention?.stop();
          await opened.close();
        },
      };
    },
  });
  const metrics = defineModule<null, Metrics>({
    name: 'metrics',
    start(_ctx, use) {
      const { store, control } = use(state);
      const log = use(eventLog);
      const created = createMetrics({
        consumers: () => runner?.positions().map(({ name, position }) => ({
          name, position, lagRecords: Math.max(0, log.lastSeq() - position),
          lagEvents: log.id === LMDB_LOG_ID ? eventsAfter(store, position) : null,
        })) ?? [],
        logPending: () => log.pending(),
        deadLetters: () => store.deadLetters.getCount(),
        control: () => (control ? { applied: control.applied(), lag: control.lag() } : null),
      });
      if (control) created.watchFollower('control', control.follower);
      return { provides: created };
    },
  });
  let runner: ConsumerRunner | null = null;
  const consumers = defineModule<null, ConsumerRunner>({
    name: 'consumers',
    start(_ctx, use) {
      runner = consumerRunner({
        config, log, cluster: use(cluster), clusterSettings: settings, store: use(state).store, logId: use(eventLog).id,
        metrics: use(metrics), registered: opts.consumers,
      });
      const opened = runner;
      return { provides: opened, ready: () => ({ consumers: opened.running() }), close: () => opened.close() };
    },
  });
  // One thread, started by the first scan: management scans are rare, and the flag workers
  // keep the other cores.
  const scans = defineModule<null, TaskRunner<QueryTasks>>({
    name: 'scans',
    start() {
      const pool = createLazyWorkerPool<QueryTasks, QueryWorkerData>({ worker: QUERY_WORKER_URL, threads: 1, workerData: { dataDir: config.dataDir } });
      return { provides: pool, close: () => pool.close() };
    },
  });
  const running = await startModules<null>([cluster, state, eventLog, metrics, consumers, scans], null, (name, ms) => log.debug('closed', { part: name, ms }));
  const { use } = running;
  return {
    cluster: use(cluster), ...use(state), eventLog: use(eventLog), consumers: use(consumers), metrics: use(metrics), scans: use(scans),
    readiness: () => running.readiness(),
    close: () => running.close(),
  };
}
