// Taking a snapshot: a consistent copy of the node's main LMDB environment (lmdb-js
// backup, one read transaction, compacted), read back for the two positions it holds (the
// control stream's applied sequence and the event store's position are written in the
// same transactions as the state they cover, so the copy carries the pair that matches
// it), then put in the object store. The copy is written under the data dir (the same
// file system as the environment it copies, not a possibly small /tmp) and removed after.
import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openStore, type Environments } from '../store/index.js';
import { logTables } from '../log/tables.js';
import { controlPositionKey } from '../state/control-stream.js';
import { positionKey } from '../log/consumers/index.js';
import type { SnapshotsClient } from './client.js';
import { SNAPSHOT_FORMAT, type SnapshotMeta } from './plan.js';

export interface TakeOptions {
  store: Pick<Environments, 'path' | 'root'>;
  client: SnapshotsClient;
  // The event store consumer's name (its position is the one a restored node starts from).
  eventStore: string;
  node: string;
  now?: () => Date;
}

export class SnapshotUnavailableError extends Error {}

export async function takeSnapshot(opts: TakeOptions): Promise<SnapshotMeta> {
  const now = opts.now ?? (() => new Date());
  const streams = await opts.client.streams();
  if (!streams.control || !streams.events) {
    throw new SnapshotUnavailableError('no snapshot: the control stream and the event stream must both exist (start a node with NATS_URL first)');
  }
  const dir = join(dirname(opts.store.path), `snapshot-${randomUUID()}`);
  try {
    const started = Date.now();
    const copy = join(dir, 'hedgerow.lmdb');
    await opts.store.root.backup(copy, true);
    const tookMs = Date.now() - started;
    // The copy is an environment of its own, read here alone: the positions are all it needs.
    const copied = openStore(dir, [logTables]);
    const control = copied.positions.get(controlPositionKey(streams.control.id)) ?? 0;
    const events = copied.positions.get(positionKey(opts.eventStore, streams.events.id)) ?? 0;
    await copied.close();
    const created = now();
    const meta = {
      name: `${created.toISOString().replace(/[-:.]/g, '')}-${control}`,
      format: SNAPSHOT_FORMAT, created: created.toISOString(), size: statSync(copy).size,
      control: { stream: streams.control.id, seq: control }, events: { log: streams.events.id, position: events },
      node: opts.node, took_ms: tookMs,
    };
    return await opts.client.put(copy, meta);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
