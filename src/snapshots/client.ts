// Snapshots in JetStream (docs/decisions/0033): the copies in the object store
// HEDGEROW_SNAPSHOTS (the cluster's asset table), their metadata on each object, and the two streams they are taken
// against (the control stream, which the snapshot taker also compacts, and the event stream).
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Cluster, ObjectMeta } from '../cluster/index.js';
import { controlStreamId } from '../state/control-stream.js';
import { natsLogId } from '../log/nats-stream.js';
import type { SnapshotMeta, StreamsNow } from './plan.js';

export interface SnapshotsClient {
  streams(): Promise<StreamsNow>;
  list(): Promise<SnapshotMeta[]>;
  // Puts the file at `path` as a snapshot with this metadata (its size is the file's).
  put(path: string, meta: Omit<SnapshotMeta, 'size'>): Promise<SnapshotMeta>;
  // Writes the snapshot's bytes to `path`, checked against the digest it was stored with.
  download(name: string, path: string): Promise<void>;
  remove(name: string): Promise<void>;
  // Purges the control stream's messages up to and including `seq`.
  purgeControl(seq: number): Promise<void>;
}

// Object metadata is text: each field as a string.
function metaOf(info: ObjectMeta): SnapshotMeta | null {
  const m = info.metadata ?? {};
  if (info.deleted || m.format === undefined) return null;
  return {
    name: info.name, format: Number(m.format), created: m.created ?? '', size: info.size,
    control: { stream: m.control_stream ?? '', seq: Number(m.control_seq) || 0 },
    events: { log: m.event_log ?? '', position: Number(m.event_position) || 0 },
    node: m.node ?? '', took_ms: Number(m.took_ms) || 0,
  };
}

// Over the cluster's object store and streams (NATS only: embedded there are no snapshots).
export async function snapshotsClient(cluster: Cluster): Promise<SnapshotsClient> {
  const { jetstream } = cluster;
  const os = await cluster.objects('snapshots');
  if (!jetstream || !os) throw new Error('snapshots are kept in JetStream for the nodes of a cluster: they need NATS_URL');
  return {
    async streams() {
      const [control, events] = await Promise.all([jetstream.streamInfo('control'), jetstream.streamInfo('events')]);
      return {
        control: control && {
          id: controlStreamId(control), first: control.state.first_seq, last: control.state.last_seq, purgeable: !control.config.deny_purge,
        },
        events: events && { id: natsLogId(events), first: events.state.first_seq },
      };
    },
    async list() {
      return (await os.list()).map(metaOf).filter((m): m is SnapshotMeta => m !== null);
    },
    async put(path, meta) {
      const metadata: Record<string, string> = {
        format: String(meta.format), created: meta.created, control_stream: meta.control.stream, control_seq: String(meta.control.seq),
        event_log: meta.events.log, event_position: String(meta.events.position), node: meta.node, took_ms: String(meta.took_ms),
      };
      // Node's web stream and the client's are the same at run time; their typings differ.
      const body = Readable.toWeb(createReadStream(path)) as unknown as ReadableStream<Uint8Array>;
      const info = await os.put({ name: meta.name, metadata }, body);
      return { ...meta, size: info.size };
    },
    async download(name, path) {
      const result = await os.get(name);
      if (!result) throw new Error(`snapshot ${name} is not in ${cluster.assets.objects.snapshots.name}`);
      await pipeline(Readable.fromWeb(result.data as never), createWriteStream(path));
      const err = await result.error;
      if (err) throw err;
    },
    async remove(name) {
      await os.delete(name);
    },
    async purgeControl(seq) {
      const control = await jetstream.stream('control');
      await control.jsm.streams.purge(control.name, { seq: seq + 1 });
    },
  };
}
