// `hedgerow snapshot create | list` (docs/decisions/0033): take a snapshot of this data
// dir now (beside its running serve, or of a stopped node) and compact after it, or list
// the cluster's snapshots, newest first, with whether a joining node could restore each.
import { hostname } from 'node:os';
import type { Cluster } from '../cluster/index.js';
import { emptyDataDir } from './restore.js';
import { openStore } from '../store/index.js';
import { snapshotsClient } from './client.js';
import { compact } from './compact.js';
import { usable, type SnapshotMeta } from './plan.js';
import { takeSnapshot } from './take.js';

export interface SnapshotCliConfig {
  dataDir: string;
  json: boolean;
  snapshots: { keep: number };
  // The event store consumer's name (wired in main.ts).
  eventStore: string;
}

const line = (m: SnapshotMeta, ok: boolean) => `${m.name}  ${m.created}  ${m.size} bytes  control ${m.control.seq}  events ${m.events.position}` +
  `  from ${m.node}${ok ? '' : '  (not usable: its streams no longer hold what follows it)'}`;

// `openCluster`: the command's cluster handle, opened only once the subcommand is known.
export async function snapshotCommand(sub: string | undefined, config: SnapshotCliConfig, openCluster: () => Promise<Cluster>): Promise<string> {
  if (sub !== 'create' && sub !== 'list') throw new Error('usage: hedgerow snapshot create|list [--data DIR] [--json]');
  const cluster = await openCluster();
  try {
    if (!cluster.jetstream) throw new Error('hedgerow snapshot needs NATS_URL: snapshots are kept in JetStream for the nodes of a cluster');
    const client = await snapshotsClient(cluster);
    if (sub === 'list') {
      const now = await client.streams();
      const all = (await client.list()).sort((a, b) => b.created.localeCompare(a.created));
      if (config.json) return JSON.stringify(all.map((m) => ({ ...m, usable: usable(m, now) })));
      return all.length === 0 ? 'no snapshots' : all.map((m) => line(m, usable(m, now))).join('\n');
    }
    if (emptyDataDir(config.dataDir)) throw new Error(`${config.dataDir} holds no node state to snapshot`);
    // The environment is copied whole; no table of it is read here.
    const store = openStore(config.dataDir, []);
    let meta: SnapshotMeta;
    try {
      meta = await takeSnapshot({ store, client, eventStore: config.eventStore, node: `${hostname()}:${config.dataDir}` });
    } finally {
      await store.close();
    }
    const done = await compact(client, config.snapshots.keep);
    if (config.json) return JSON.stringify({ snapshot: meta, kept: done.kept.map((m) => m.name), removed: done.removed, control_first: done.controlFirst, purge: done.purge });
    return `${line(meta, true)}\nkept ${done.kept.length}, removed ${done.removed.length}; control stream: ${done.purge}, it starts at ${done.controlFirst}`;
  } finally {
    await cluster.close();
  }
}
