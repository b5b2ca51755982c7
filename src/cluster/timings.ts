// Every liveness timing of the cluster in one object (docs/decisions/0036): how long a lease
// outlives its holder's last renewal, how often a holder renews, how long a follower waits
// before it takes its consumer for stalled, how long a publish waits for JetStream. The
// defaults are what hedgerow has always used; a deployment or a test sets them through
// HEDGEROW_CLUSTER_TIME_SCALE (the leases and heartbeats, scaled together so their ratios
// hold) or, in process, an option of the cluster opener (any field).
export interface ClusterTimings {
  // Claimed work (HEDGEROW_CLAIMS: the destinations consumer, snapshots): the TTL of the
  // bucket this node creates; a claim is renewed, and an idle node tries to take it, every
  // third of the bucket's TTL.
  claimTtlMs: number;
  // Export renders (HEDGEROW_EXPORT_CLAIMS; HEDGEROW_EXPORT_CLAIM_TTL_MS): renewed every
  // third while the render runs; the periodic resume of dead nodes' renders looks every half.
  exportClaimTtlMs: number;
  // Node announcements (HEDGEROW_NODES): each process rewrites its entry every third of it;
  // a dead process leaves `hedgerow status` this long after its last write.
  nodeTtlMs: number;
  // Background query statuses: the runner rewrites a running status this often; one not
  // rewritten for statusLostAfterMs reads as lost on every node.
  statusHeartbeatMs: number;
  statusLostAfterMs: number;
  // The stream followers' stall bound (src/cluster/follow.ts): a follower waiting for half of
  // it while its stream held a message it has not had for as long makes its consumer anew; one
  // still behind past all of it, or that learnt nothing of its stream's end for as long, is
  // stale (the control stream's and the hog telemetry's: the node is not ready). A consumer's
  // creation is attempted every quarter of it, and given up after all of it.
  stallMs: number;
  // How long a publish to a stream (an event log append, a management command) waits for
  // JetStream's acknowledgement before it fails.
  ackTimeoutMs: number;
}

export const DEFAULT_TIMINGS: Readonly<ClusterTimings> = Object.freeze({
  claimTtlMs: 10_000,
  exportClaimTtlMs: 30_000,
  nodeTtlMs: 15_000,
  statusHeartbeatMs: 2_000,
  statusLostAfterMs: 10_000,
  stallMs: 5_000,
  ackTimeoutMs: 5_000,
});

// The fields HEDGEROW_CLUSTER_TIME_SCALE scales: the leases and heartbeats, whose lapse is what
// a test waits out. The stall bound and the acknowledgement timeout bound waits for a server,
// which is no faster in a test: scaled down they would only fail on a loaded machine.
const SCALED = ['claimTtlMs', 'exportClaimTtlMs', 'nodeTtlMs', 'statusHeartbeatMs', 'statusLostAfterMs'] as const;

export interface TimingSettings {
  // HEDGEROW_CLUSTER_TIME_SCALE (config.clusterTimeScale): 1 keeps the defaults.
  clusterTimeScale: number;
  // HEDGEROW_EXPORT_CLAIM_TTL_MS (config.exports.claimTtlMs), scaled like the others.
  exports: { claimTtlMs: number };
}

// The timings a process runs with: the defaults, the export claim TTL as configured, the
// leases and heartbeats scaled, then `overrides` as given.
export function clusterTimings(settings: TimingSettings, overrides: Partial<ClusterTimings> = {}): ClusterTimings {
  const t: ClusterTimings = { ...DEFAULT_TIMINGS, exportClaimTtlMs: settings.exports.claimTtlMs };
  for (const k of SCALED) t[k] = Math.max(1, Math.round(t[k] * settings.clusterTimeScale));
  return Object.freeze({ ...t, ...overrides });
}
