// Snapshots in JetStream (docs/decisions/0033): the copies in the object store
// HEDGEROW_SNAPSHOTS, their metadata on each object, and the two streams they are taken
// against (the control stream, which the snapshot taker also compacts, and the event stream).
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StorageType, type NatsConnection, type ObjectInfo, type ObjectStore, type JetStreamManager } from 'nats';
import { connectNats } from '../nats/connect.js';
import { CONTROL_STREAM, controlStreamId } from '../state/control-stream.js';
import { natsLogId, STREAM as EVENT_STREAM } from '../log/nats-stream.js';
import type { SnapshotMeta, StreamsNow } from './plan.js';

export const SNAPSHOTS_BUCKET = 'HEDGEROW_SNAPSHOTS';

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
  close(): Promise<void>;
}

function isStreamNotFound(err: unknown): boolean {
  return (err as { api_error?: { err_code?: number } }).api_error?.err_code === 10059;
}

async function infoOrNull(jsm: JetStreamManager, name: string) {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (isStreamNotFound(err)) return null;
    throw err;
  }
}

// Object metadata is text: each field as a string.
function metaOf(info: ObjectInfo): SnapshotMeta | null {
  const m = info.metadata ?? {};
  if (info.deleted || m.format === undefined) return null;
  return {
    name: info.name, format: Number(m.format), created: m.created ?? '', size: info.size,
    control: { stream: m.control_stream ?? '', seq: Number(m.control_seq) || 0 },
    events: { log: m.event_log ?? '', position: Number(m.event_position) || 0 },
    node: m.node ?? '', took_ms: Number(m.took_ms) || 0,
  };
}

// `replicas`: of the object store, when this creates it (HEDGEROW_NATS_REPLICAS).
export async function connectSnapshots(url: string, replicas = 1): Promise<SnapshotsClient> {
  const nc: NatsConnection = await connectNats(url, 'hedgerow-snapshots');
  let os: ObjectStore;
  let jsm: JetStreamManager;
  try {
    jsm = await nc.jetstreamManager();
    os = await nc.jetstream().views.os(SNAPSHOTS_BUCKET, { storage: StorageType.File, replicas, description: 'hedgerow node state snapshots' });
  } catch (err) {
    await nc.close();
    throw err;
  }
  return {
    async streams() {
      const [control, events] = await Promise.all([infoOrNull(jsm, CONTROL_STREAM), infoOrNull(jsm, EVENT_STREAM)]);
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
      if (!result) throw new Error(`snapshot ${name} is not in ${SNAPSHOTS_BUCKET}`);
      await pipeline(Readable.fromWeb(result.data as never), createWriteStream(path));
      const err = await result.error;
      if (err) throw err;
    },
    async remove(name) {
      await os.delete(name);
    },
    async purgeControl(seq) {
      await jsm.streams.purge(CONTROL_STREAM, { seq: seq + 1 });
    },
    async close() {
      await nc.drain().catch(() => nc.close());
    },
  };
}
