// The cluster handle (docs/decisions/0036): what a process of hedgerow holds of the cluster
// it belongs to, opened once (per thread for consumer threads) and handed to every feature,
// which receives typed handles from it and never a URL or a connection of its own. With
// NATS it is two connections and the JetStream assets of ./assets.ts (./nats.ts); embedded
// it is this process alone (./embedded.ts), behind the same interface, so the features
// stop asking whether there is a cluster for their leases, statuses, announcements and objects.
import type { JetStreamClient, JetStreamManager, NatsConnection, StreamInfo } from 'nats';
import type { AssetTable, KvAsset, KvKey, ObjectsAsset, ObjectsKey, StreamAsset, StreamKey } from './assets.js';
import type { KvView } from './kv.js';
import type { Leases } from './leases.js';
import type { ObjectsView } from './objects.js';
import type { ClusterTimings } from './timings.js';

// One of the process's connections, as a feature sees it.
export interface Link {
  // For request/reply (publish, subscribe): the insights engine and replicas.
  readonly nc: NatsConnection;
  // The server's message limit (1 MiB unless configured).
  maxPayload(): number;
  // False while the connection is down (it reconnects for ever).
  connected(): boolean;
}

// A stream of the asset table, ensured (created when missing).
export interface StreamHandle {
  readonly name: string;
  readonly subject: string;
  // The stream as it stood when the handle was made: its creation time tells a stream made
  // anew from the one a position was recorded in.
  readonly info: StreamInfo;
  // Publishes (acknowledged within the timings' ackTimeoutMs) and consumers, on the
  // stream's connection.
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly link: Link;
  // The stream's state now.
  current(): Promise<StreamInfo>;
}

export interface JetStream {
  readonly bulk: Link;
  // The same connection as `bulk` in a consumer thread (one connection per thread).
  readonly control: Link;
  stream(stream: StreamKey | StreamAsset): Promise<StreamHandle>;
  // A stream as it is now, null when absent: creates nothing (`hedgerow status`).
  streamInfo(stream: StreamKey): Promise<StreamInfo | null>;
}

export interface Cluster {
  // This process in leases and announcements: host, pid and a random part.
  readonly node: string;
  readonly timings: ClusterTimings;
  readonly assets: AssetTable;
  // The streams and connections: null embedded, where the event log and the management
  // writes are their domains' LMDB twins.
  readonly jetstream: JetStream | null;
  // A KV bucket (a row of the table, or a row made from one: tests).
  kv(bucket: KvKey | KvAsset): Promise<KvView>;
  // An object store; null embedded where the asset table keeps nothing in its place.
  objects(store: ObjectsKey | ObjectsAsset): Promise<ObjectsView | null>;
  // Leases over a KV bucket: its own TTL unless given (a bucket that keeps its entries longer
  // than their holders live: query statuses), renewed every third of it unless given.
  leases(bucket: KvKey | KvAsset, opts?: { ttlMs?: number; renewMs?: number }): Promise<Leases>;
  // Releases the leases still held, then closes the connections.
  close(): Promise<void>;
}

// A cluster handle over NATS: its streams and connections are there.
export type NatsCluster = Cluster & { readonly jetstream: JetStream };
export const overNats = (cluster: Cluster): cluster is NatsCluster => cluster.jetstream !== null;
