// Public face of the cluster: the one owner of NATS (docs/decisions/0036). Two connections
// per process, every JetStream asset (./assets.ts), the lease mechanism, the timings, and an
// embedded twin of the same interface.
export { clusterSettings, openCluster, processNode, type ClusterConfig, type ClusterSettings } from './open.js';
export type { ClusterRole } from './nats.js';
export { overNats, type Cluster, type JetStream, type Link, type NatsCluster, type StreamHandle } from './types.js';
export {
  CONTROL_STREAM, EVENT_STREAM, EVENT_SUBJECT, QUERY_STATUS_KEEP_MS, assetTable, allAssets, controlStreamAsset, controlSubject,
  type Asset, type AssetTable, type KvAsset, type KvKey, type ObjectsAsset, type ObjectsKey, type StreamAsset, type StreamKey,
} from './assets.js';
export { DEFAULT_TIMINGS, clusterTimings, type ClusterTimings } from './timings.js';
export { createLeases, type Lease, type LeaseHooks, type Leases } from './leases.js';
export { isRefused, type KvEntry, type KvView, type KvWatch } from './kv.js';
export { memoryKv } from './memory-kv.js';
export type { ObjectMeta, ObjectsView } from './objects.js';
export { followStream, type FollowOptions, type Follower, type FollowerView } from './follow.js';
export { staleReason, streamLag, type FollowState, type StreamLag } from './lag.js';
export { availableBatches } from './available-batches.js';
