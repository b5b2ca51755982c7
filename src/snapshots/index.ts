// Public face of snapshots (docs/decisions/0033): a node's state copied into JetStream at
// known positions of both streams, taken once for the cluster (periodically, or by
// `hedgerow snapshot create`), restored by a node joining with an empty data dir, and the
// control stream compacted behind them.
export { snapshotsClient, type SnapshotsClient } from './client.js';
export { clearNodeState, emptyDataDir, restoreSnapshot, type Restored } from './restore.js';
export { scheduleSnapshots } from './schedule.js';
export { snapshotCommand } from './cli.js';
export type { SnapshotMeta } from './plan.js';
