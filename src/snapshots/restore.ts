// Joining from a snapshot: a node starting with an empty data dir restores the newest
// usable snapshot before it opens its store, then follows both streams from the positions
// the copy holds. The copy is downloaded and made this node's in a directory beside, and
// becomes the data dir's environment by one rename: a crash before it leaves the data dir
// empty (the next start restores again), never half restored.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../store/index.js';
import { logTables, type LogTables } from '../log/tables.js';
import { insightsTables, type InsightsTables } from '../insights/tables.js';
import { controlPositionKey } from '../state/control-stream.js';
import { positionKey } from '../log/consumers/index.js';
import type { SnapshotsClient } from './client.js';
import { newestUsable, type SnapshotMeta } from './plan.js';

export interface Restored {
  meta: SnapshotMeta;
  took_ms: number;
}

const STORE_FILE = 'hedgerow.lmdb';

// Whether `dataDir` holds no node state yet (absent, or without the main environment).
export const emptyDataDir = (dataDir: string) => !existsSync(join(dataDir, STORE_FILE));

// Empties again a data dir this process found empty and restored or started (the files
// openStore makes, src/store/env.ts): for a node whose join was overtaken by a compaction.
export function clearNodeState(dataDir: string): void {
  for (const f of [STORE_FILE, 'log.lmdb']) for (const file of [f, `${f}-lock`]) rmSync(join(dataDir, file), { force: true });
}

// Restores the newest usable snapshot into an empty data dir; null when the data dir is
// not empty or no snapshot is usable (the node then replays the streams, as before).
export async function restoreSnapshot(opts: { dataDir: string; client: SnapshotsClient; eventStore: string }): Promise<Restored | null> {
  if (!emptyDataDir(opts.dataDir)) return null;
  const streams = await opts.client.streams();
  const meta = newestUsable(await opts.client.list(), streams);
  if (!meta) return null;
  const started = Date.now();
  const staging = join(opts.dataDir, 'restoring');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await opts.client.download(meta.name, join(staging, STORE_FILE));
    // The copy is an environment of its own, opened here alone: what is reset is all it needs.
    const store = openStore(staging, [logTables, insightsTables]);
    try {
      await resetNodeLocal(store, meta, opts.eventStore);
    } finally {
      await store.close();
    }
    renameSync(join(staging, STORE_FILE), join(opts.dataDir, STORE_FILE));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { meta, took_ms: Date.now() - started };
}

// What the copy holds that was the source node's own, not the cluster's, is reset:
// - consumer positions other than the control stream's and the event store's: the
//   destinations consumer is claimed (a node taking the claim starts from the position
//   its last holder recorded, and one that never does stands at the stream's end like any
//   new node), and its queue lives in the source's own environment; the insights
//   consumer's columnar store is not in the copy, so it backfills from the event store;
//   positions in other logs (an embedded log, an older stream) mean nothing here.
// - dead letters: the source's consumers' reports of what they set aside (it keeps them).
// - the insight cache: answers computed by the source's engine, recomputed on demand.
// Kept: everything applied from the two streams (management state, events, persons,
// groups, ingestion warnings, flag hash keys), which is the state the cluster shares.
async function resetNodeLocal(store: LogTables & InsightsTables, meta: SnapshotMeta, eventStore: string): Promise<void> {
  const keep = new Set([controlPositionKey(meta.control.stream), positionKey(eventStore, meta.events.log)]);
  await store.root.transaction(() => {
    for (const key of store.positions.getKeys()) if (!keep.has(key)) store.positions.remove(key);
    for (const key of store.deadLetters.getKeys()) store.deadLetters.remove(key);
    for (const key of store.insightCache.getKeys()) store.insightCache.remove(key);
  });
}
