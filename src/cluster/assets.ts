// Every JetStream asset hedgerow uses, in one table (docs/decisions/0036): 3 streams, 6 KV
// buckets and 3 object stores, each with the settings it is created with when missing, the
// connection it is used on, and what the embedded twin keeps in its place. A process of
// `serve` or `aggregate` ensures all of them once at start, each with HEDGEROW_NATS_REPLICAS
// replicas; an asset that exists is used as it is (say one an operator made with R3, or a
// bucket an older node made with another TTL: leases follow the bucket's own TTL).
import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from 'nats';
import type { ClusterTimings } from './timings.js';

// The two connections of a process (docs/decisions/0031, 0036): `bulk` carries capture's
// publishes of up to a megabyte, the event and telemetry stream reads and object transfers;
// `control` the control stream, leases and heartbeats, KV and request/reply, which must never
// wait behind a megabyte of events on one socket.
export type Connection = 'bulk' | 'control';

export interface StreamAsset {
  kind: 'stream';
  name: string;
  subject: string;
  connection: Connection;
  // What the stream is created with when missing (name, subjects and replicas added).
  config: Partial<StreamConfig>;
}

export interface KvAsset {
  kind: 'kv';
  name: string;
  // Entries expire this long after their last write (0: never); an existing bucket keeps its own.
  ttlMs: number;
  description: string;
}

export interface ObjectsAsset {
  kind: 'objects';
  name: string;
  ttlMs: number;
  description: string;
  // Embedded (one node, no NATS): kept in this process's memory, or nothing at all where the
  // node's own disk is the only copy there is (export files) or there is no cluster to
  // share with (snapshots).
  embedded: 'memory' | 'none';
}

export type Asset = StreamAsset | KvAsset | ObjectsAsset;

export type StreamKey = 'events' | 'control' | 'hogTelemetry';
export type KvKey = 'claims' | 'claimPositions' | 'exportClaims' | 'queryStatuses' | 'nodes' | 'hogWatcher';
export type ObjectsKey = 'exports' | 'queryResults' | 'snapshots';

export interface AssetTable {
  streams: Record<StreamKey, StreamAsset>;
  kv: Record<KvKey, KvAsset>;
  objects: Record<ObjectsKey, ObjectsAsset>;
}

export interface AssetSettings {
  timings: ClusterTimings;
  // The hog function telemetry stream keeps the longer of the two retentions.
  hog: { logRetentionDays: number; metricRetentionDays: number };
}

const NS_PER_MS = 1e6;
const DAY_MS = 86_400_000;
// A message published again with the same id (after a lost acknowledgement) is dropped by
// JetStream within this window.
const DUPLICATE_WINDOW_MS = 2 * 60_000;
// How long a background query's status (and a result too large to inline) is kept after its
// last write: the end of its calculation, or a lost runner's last heartbeat.
export const QUERY_STATUS_KEEP_MS = 10 * 60_000;

export const EVENT_STREAM = 'HEDGEROW_EVENTS';
export const EVENT_SUBJECT = 'hedgerow.events';
export const CONTROL_STREAM = 'HEDGEROW_CONTROL';
export const controlSubject = (stream: string) => (stream === CONTROL_STREAM ? 'hedgerow.control' : `hedgerow.control.${stream}`);

// The control stream's row under another name (tests run one stream per case).
export function controlStreamAsset(name: string): StreamAsset {
  return {
    kind: 'stream', name, subject: controlSubject(name), connection: 'control',
    config: {
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.New,
      // Never aged out, never cut by size: it is the history a new node builds its state from.
      max_age: 0,
      max_msgs: -1,
      max_bytes: -1,
      duplicate_window: DUPLICATE_WINDOW_MS * NS_PER_MS,
      // No single command may be cut out (a hole is a gap every follower halts at); a purge of
      // its beginning is how the snapshot taker bounds it (docs/decisions/0033). A stream made
      // earlier with deny_purge keeps it, and is then never compacted.
      deny_delete: true,
      deny_purge: false,
    },
  };
}

const kv = (name: string, ttlMs: number, description: string): KvAsset => ({ kind: 'kv', name, ttlMs, description });

export function assetTable(s: AssetSettings): AssetTable {
  return {
    streams: {
      // The event log (docs/decisions/0001): consumers keep their own positions; the stream
      // is a bounded buffer. File storage: an acknowledged message is in the server's files.
      events: {
        kind: 'stream', name: EVENT_STREAM, subject: EVENT_SUBJECT, connection: 'bulk',
        config: { storage: StorageType.File, retention: RetentionPolicy.Limits, max_age: 7 * DAY_MS * NS_PER_MS },
      },
      // Management writes (docs/decisions/0031).
      control: controlStreamAsset(CONTROL_STREAM),
      // Hog function logs and metrics from the delivering node (docs/decisions/0034).
      hogTelemetry: {
        kind: 'stream', name: 'HEDGEROW_HOG_TELEMETRY', subject: 'hedgerow.hog.telemetry', connection: 'bulk',
        config: {
          storage: StorageType.File, retention: RetentionPolicy.Limits,
          max_age: Math.max(s.hog.logRetentionDays, s.hog.metricRetentionDays) * DAY_MS * NS_PER_MS,
          duplicate_window: DUPLICATE_WINDOW_MS * NS_PER_MS,
        },
      },
    },
    kv: {
      claims: kv('HEDGEROW_CLAIMS', s.timings.claimTtlMs, 'hedgerow claimed work: one holder per key'),
      claimPositions: kv('HEDGEROW_CLAIM_POSITIONS', 0, 'hedgerow claimed consumers: where a successor starts'),
      exportClaims: kv('HEDGEROW_EXPORT_CLAIMS', s.timings.exportClaimTtlMs, 'hedgerow export renders: one holder per asset'),
      queryStatuses: kv('HEDGEROW_QUERY_STATUSES', QUERY_STATUS_KEEP_MS, 'hedgerow background query statuses'),
      nodes: kv('HEDGEROW_NODES', s.timings.nodeTtlMs, 'hedgerow live processes (hedgerow status)'),
      hogWatcher: kv('HEDGEROW_HOG_WATCHER', 0, 'hedgerow hog function watcher state'),
    },
    objects: {
      exports: { kind: 'objects', name: 'HEDGEROW_EXPORTS', ttlMs: 0, description: 'hedgerow export files by SHA-256', embedded: 'none' },
      queryResults: {
        kind: 'objects', name: 'HEDGEROW_QUERY_RESULTS', ttlMs: QUERY_STATUS_KEEP_MS, description: 'hedgerow query results too large for a status',
        embedded: 'memory',
      },
      snapshots: { kind: 'objects', name: 'HEDGEROW_SNAPSHOTS', ttlMs: 0, description: 'hedgerow node state snapshots', embedded: 'none' },
    },
  };
}

// Every row, in the order a process ensures them.
export const allAssets = (t: AssetTable): Asset[] => [...Object.values(t.streams), ...Object.values(t.kv), ...Object.values(t.objects)];
