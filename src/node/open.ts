// A node's state: its store and its management write path, joined from a snapshot when the
// data dir is empty and the node is part of a cluster (docs/decisions/0033). Used by serve,
// aggregate and the CLI commands that write (init, user, key, quota).
import type { Config } from '../settings.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../cluster/index.js';
import { openStore } from '../store/index.js';
import { tables, type Store } from '../tables.js';
import { ControlBehindError, ControlGapError, createLocalWrites, type AnyCommandSpec, type StateWrites } from '../state/index.js';
import { createNatsWrites, type NatsWrites } from '../state/nats.js';
import { clearNodeState, emptyDataDir, restoreSnapshot, snapshotsClient } from '../snapshots/index.js';
import { EVENT_STORE_CONSUMER } from '../events/index.js';

export interface NodeState {
  store: Store;
  writes: StateWrites;
  // The control stream's follower, with NATS.
  control: NatsWrites | null;
}

// The write path over `store`: embedded, or with NATS the control stream every node
// applies (docs/decisions/0031), caught up with before anything reads management state,
// so a node joining a cluster finds its organization, projects and keys instead of
// bootstrapping its own. `specs`: every management command of the service.
export async function openWrites(
  cluster: Cluster, store: Store, log: Logger, specs: readonly AnyCommandSpec<Store>[],
): Promise<{ writes: StateWrites; control: NatsWrites | null }> {
  if (!cluster.jetstream) return { writes: createLocalWrites(store, specs), control: null };
  const control = await createNatsWrites(cluster, {
    store, specs,
    holdsState: (s) => { for (const _ of s.tenancy.getKeys({ limit: 1 })) return true; return false; },
    onHalt: (err) => log.error('control stream: this node stopped applying management writes', { error: err.message }),
    onError: (err) => log.warn('control stream: following again after a failure', { error: err.message }),
    onStall: (state) => log.warn('control stream: the consumer delivered nothing while the stream held more; made anew', { ...state }),
  });
  const behind = control.lag();
  if (behind > 0) log.info('catching up with the control stream', { stream: control.id, applied: control.applied(), behind });
  await control.caughtUp().catch(async (err: unknown) => { await control.close(); throw err; });
  return { writes: control, control };
}

// A node starting with NATS and an empty data dir restores the newest usable snapshot
// before it opens the store, then follows both streams from the positions it holds;
// without one it replays them from their first message. Resolves with whether the data
// dir was empty.
export async function joinFromSnapshot(cluster: Cluster, config: Readonly<Config>, log: Logger): Promise<boolean> {
  if (!cluster.jetstream || !emptyDataDir(config.dataDir)) return false;
  const client = await snapshotsClient(cluster);
  const restored = await restoreSnapshot({ dataDir: config.dataDir, client, eventStore: EVENT_STORE_CONSUMER });
  if (restored) {
    const { meta } = restored;
    log.info('restored snapshot', {
      name: meta.name, bytes: meta.size, took_ms: restored.took_ms, control_seq: meta.control.seq, event_position: meta.events.position,
    });
  }
  return true;
}

// The node's store and write path. A join the control stream's compaction overtook (a
// snapshot taken meanwhile cut what it was about to replay) starts again from the newer
// snapshot: the data dir holds nothing of this node's own yet, and a join that fails leaves
// it empty as it was found. A data dir that was not empty is never cleared here: the node
// stops, saying how to rejoin.
export async function openNode(
  cluster: Cluster, config: Readonly<Config>, log: Logger, specs: readonly AnyCommandSpec<Store>[],
): Promise<NodeState> {
  for (let attempt = 1; ; attempt++) {
    const joining = await joinFromSnapshot(cluster, config, log);
    const store = openStore(config.dataDir, tables);
    try {
      return { store, ...(await openWrites(cluster, store, log, specs)) };
    } catch (err) {
      await store.close();
      if (!joining || !(err instanceof ControlBehindError || err instanceof ControlGapError)) throw err;
      clearNodeState(config.dataDir);
      if (attempt >= 3) throw err;
      log.warn('the control stream was compacted while this node joined: restoring again', { error: (err as Error).message });
    }
  }
}
