// Where the destinations' telemetry goes across a NATS cluster (docs/decisions/0034): the
// node holding the deliveries (the destinations claim, docs/decisions/0031) writes logs,
// metrics and watcher state to its own destinations store and publishes them here; every
// other node applies them to its own store, so the hog function API answers the same on
// every node. Logs and metric increments go to a stream aged out with the retentions
// (an increment must be applied once per store, in no particular order, and a node joining
// replays what is retained); the watcher state goes to a KV bucket, one key per function
// (only its latest value matters, and it must outlive any age limit: a function disabled
// long ago stays disabled). Records are msgpack, as the control stream's. Both are rows of
// the cluster's asset table (src/cluster/assets.ts: the stream aged out with the longer of
// the two retentions, a node that joins getting what the others still keep; its own
// retention prunes the rest).
import { randomInt } from 'node:crypto';
import { decode, encode } from '@msgpack/msgpack';
import type { StreamInfo } from 'nats';
import type { DestinationsStore, WatcherRecord } from './env.js';
import type { TelemetryBatch } from './telemetry.js';

// The data dir's origin (in the store's meta): what it publishes is marked with it, and
// its follower skips messages so marked, which it wrote already. Kept in the store rather
// than per process, so a restarted node does not apply its own telemetry a second time.
const ORIGIN_KEY = 'telemetry_origin';

// One message of the stream: telemetry batches of one origin, merged.
export interface TelemetryMessage extends TelemetryBatch {
  origin: number;
}

// One value of the watcher bucket.
export interface WatcherMessage {
  origin: number;
  record: WatcherRecord;
}

export const encodeTelemetry = (m: TelemetryMessage): Uint8Array => encode(m);
export const decodeTelemetry = (data: Uint8Array): TelemetryMessage => decode(data) as TelemetryMessage;
export const encodeWatcher = (m: WatcherMessage): Uint8Array => encode(m);
export const decodeWatcher = (data: Uint8Array): WatcherMessage => decode(data) as WatcherMessage;

/** The data dir's origin, made on first use (in either thread: the write transaction serialises them). */
export function telemetryOrigin(ds: DestinationsStore): Promise<number> {
  return ds.root.transaction(() => {
    const known = ds.meta.get(ORIGIN_KEY);
    if (known !== undefined) return known;
    const origin = randomInt(2 ** 47);
    ds.meta.put(ORIGIN_KEY, origin);
    return origin;
  });
}

// Where a store keeps the last sequence of the stream it has applied (a stream made anew
// has another creation time, so it is followed from its start).
export const telemetryPositionKey = (info: StreamInfo) => `telemetry@nats:${info.config.name}:${info.created}`;
