// `hedgerow aggregate`: a columnar replica as a process of its own (docs/decisions/0030). It
// consumes the JetStream event stream into its own data dir with the consumers the modules
// declare for this role (the event store, then the insights loader answering queries from
// the NATS queue group), each in its supervised thread. Not destinations: their webhooks
// fire once, from the serve nodes. No management writes are applied here.
import { ConfigError, type Config } from '../settings.js';
import { createLogger, type Logger } from '../logger.js';
import { clusterSettings, openCluster, type Cluster } from '../cluster/index.js';
import { openStore } from '../store/index.js';
import { tables, type Store } from '../tables.js';
import { openLogReader } from '../log/open.js';
import { registerConsumers } from '../log/consumers/index.js';
import { captureCodec } from '../capture/frames.js';
import { migrateEventLayout } from '../events/migrate-layout.js';
import { announceNode } from '../ops/announce.js';
import { replicaName } from '../insights/module.js';
import { consumersOf, defineModule, startModules, type NodeModule } from '../modules/index.js';
import { joinFromSnapshot } from './open.js';
import { consumerRunner } from './consumers.js';

export interface RunningAggregator {
  replica: string;
  close(): Promise<void>;
}

export async function startAggregator(
  config: Readonly<Config>, modules: readonly NodeModule[], log: Logger = createLogger(config.logLevel),
): Promise<RunningAggregator> {
  if (!config.natsUrl) throw new ConfigError('hedgerow aggregate needs NATS_URL (or --nats URL): its replicas read the JetStream event stream');
  const replica = replicaName(config);
  const consumers = await consumersOf(modules, config, 'aggregate');
  const settings = clusterSettings(config);
  const cluster = defineModule<null, Cluster>({
    name: 'cluster',
    async start() {
      const handle = await openCluster(settings);
      return { provides: handle, close: () => handle.close() };
    },
  });
  // A replica joining a cluster whose event stream no longer holds its first records (7
  // days of max_age) starts from a snapshot too: its event store then follows the stream
  // from the snapshot's position, and its insights consumer backfills from that event store.
  const state = defineModule<null, { store: Store; logId: string }>({
    name: 'state',
    async start(_ctx, use) {
      await joinFromSnapshot(use(cluster), config, log);
      const store = openStore(config.dataDir, tables);
      try {
        const moved = await migrateEventLayout(store);
        if (moved > 0) log.info('events moved to the current storage layout', { events: moved });
        const reader = await openLogReader(use(cluster), store, captureCodec);
        try {
          await registerConsumers(store, reader.id, await reader.lastSeq(), consumers);
          return { provides: { store, logId: reader.id }, close: () => store.close() };
        } finally {
          await reader.close();
        }
      } catch (err) {
        await store.close();
        throw err;
      }
    },
  });
  const running = defineModule<null>({
    name: 'consumers',
    async start(_ctx, use) {
      const { store, logId } = use(state);
      const runner = consumerRunner({
        config, log, cluster: use(cluster), clusterSettings: settings, store, logId, metrics: null, registered: consumers,
      });
      runner.start();
      const announcement = await announceNode(use(cluster), {
        name: replica, role: 'aggregate', listen: null,
        state: () => ({ consumers: runner.positions(), ready: runner.running(), control: null, claims: [] }),
        onError: (err) => log.warn('announcing this replica', { error: err.message }),
      }).catch(async (err: unknown) => { await runner.close(); throw err; });
      return {
        async close() {
          // The threads finish their steps while the announcement is withdrawn.
          runner.stopAll();
          await announcement.close();
          await runner.close();
        },
      };
    },
  });
  const started = await startModules<null>([cluster, state, running], null, (name, ms) => log.debug('closed', { part: name, ms }));
  log.info('aggregating', { replica, data_dir: config.dataDir, pid: process.pid });
  return { replica, close: () => started.close() };
}
