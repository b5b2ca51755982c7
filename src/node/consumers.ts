// The node's log consumers (src/log/consumers/, docs/decisions/0014): every module's, each in
// a supervised thread of its own. Registered before any module starts (so log retention
// waits for them); started once every module has, except a claimed one, which runs only on
// the node holding its claim (docs/decisions/0031) and is started and stopped by it.
import type { Config } from '../settings.js';
import type { Logger } from '../logger.js';
import type { Cluster, ClusterSettings } from '../cluster/index.js';
import type { Store } from '../tables.js';
import type { Metrics } from '../metrics.js';
import type { ClaimHooks, Consumers } from '../modules/index.js';
import {
  claimWork, consumerPosition, positionsOf, superviseConsumer, type Claim, type ConsumerThreadData, type RegisteredConsumer, type SupervisedConsumer,
} from '../log/consumers/index.js';

export interface ConsumerRunner extends Consumers {
  readonly registered: readonly RegisteredConsumer[];
  // Starts every registered consumer not claimed by its module (after every module started).
  start(): void;
  // Every consumer this node runs has a live thread (a crash-looping one does not count).
  running(): boolean;
  // The claims this node holds now, by consumer name.
  held(): string[];
  positions(): { name: string; position: number }[];
  // Tells every consumer thread to stop, without waiting: the node's stop begins with
  // this, so the threads finish their steps side by side rather than one after another as
  // the modules close (a claimed consumer's module still gives up its claim after its
  // thread has stopped). Starts no consumer afterwards.
  stopAll(): void;
  // Gives up the claims (stopping their consumers) and stops every thread.
  close(): Promise<void>;
}

export interface RunnerOptions {
  config: Readonly<Config>;
  log: Logger;
  cluster: Cluster;
  clusterSettings: ClusterSettings;
  store: Store;
  logId: string;
  metrics: Metrics | null;
  registered: readonly RegisteredConsumer[];
}

export function consumerRunner(opts: RunnerOptions): ConsumerRunner {
  const { config, log, cluster, store, logId } = opts;
  const running = new Map<string, SupervisedConsumer>();
  const claims = new Map<string, Claim>();
  // Consumers their module runs through a claim: never started by start().
  const claimed = new Set<string>();
  let closed = false;


  // What a consumer's thread is given: the process's cluster settings, from which it opens
  // its own handle (one connection).
  const threadData = (consumer: RegisteredConsumer): ConsumerThreadData => ({
    consumer, dataDir: config.dataDir, cluster: opts.clusterSettings, batchBytes: config.consumerBatchBytes,
  });
  const supervise = (consumer: RegisteredConsumer) => {
    if (closed) return;
    running.set(consumer.name, superviseConsumer(threadData(consumer), log, (kind) => opts.metrics?.consumerFailures.inc({ consumer: consumer.name, kind })));
  };
  const stop = async (name: string) => {
    const c = running.get(name);
    running.delete(name);
    await c?.stop();
  };

  return {
    registered: opts.registered,
    async claim(name: string, hooks: ClaimHooks) {
      // A consumer this node does not run (a test's own list of consumers) is not claimed.
      const consumer = opts.registered.find((c) => c.name === name);
      if (!consumer) return { release: async () => {} };
      claimed.add(name);
      const position = consumerPosition(store, name, logId);
      const claim = await claimWork(cluster, {
        name,
        position: () => hooks.position(position.read() ?? 0),
        async onAcquire(recorded) {
          await hooks.onAcquire?.(recorded);
          // The successor starts where the last holder said it must.
          if (recorded !== null && recorded !== position.read()) await position.commit(recorded);
          log.info('claimed: this node runs the consumer for the cluster', { consumer: name, from: position.read() ?? 0 });
          supervise(consumer);
        },
        async onLose() {
          await stop(name);
          log.info('claim released: another node runs the consumer', { consumer: name });
        },
        onError: (err) => log.warn('claim', { consumer: name, error: err.message }),
      });
      claims.set(name, claim);
      return {
        async release() {
          claims.delete(name);
          await claim.close();
        },
      };
    },
    start() {
      for (const c of opts.registered) if (!claimed.has(c.name)) supervise(c);
    },
    running: () => [...running.values()].every((c) => c.running()),
    held: () => [...claims].filter(([, c]) => c.held()).map(([name]) => name),
    positions: () => positionsOf(store, logId, opts.registered),
    stopAll() {
      closed = true;
      for (const c of running.values()) void c.stop().catch(() => undefined);
    },
    async close() {
      closed = true;
      await Promise.all([...claims.values()].map((c) => c.close()));
      await Promise.all([...running.keys()].map(stop));
    },
  };
}
