// The test profile: what every server a test starts runs with, in process
// (./server.ts testConfig) or as a `hedgerow serve` / `aggregate` child (./cli-server.ts),
// cluster nodes included (./cluster.ts), unless the test sets otherwise (its own env and
// flags win). Tests run several files at once on two cores (test/run.ts): each server
// gets one thread per pool, and no GeoIP database (unzipping the bundled one costs a
// core for seconds per server), except in the tests about GeoIP, which ask for it.
export const TEST_PROFILE_ENV: Readonly<NodeJS.ProcessEnv> = Object.freeze({
  HEDGEROW_GEOIP_DB: 'none',
  HEDGEROW_FLAG_WORKERS: '1',
  HEDGEROW_CAPTURE_WORKERS: '1',
  HEDGEROW_HOG_WORKERS: '1',
  HEDGEROW_EXPORT_WORKERS: '1',
  HEDGEROW_INSIGHTS_THREADS: '1',
  // Cluster timings (leases, node announcements, query-status heartbeats, export claims,
  // stall bounds) scaled down belong here too, once src/cluster/ holds them in one
  // settable timings object (issue 25 item 2). Until then each cluster test sets the few
  // that exist (HEDGEROW_EXPORT_CLAIM_TTL_MS, HEDGEROW_QUOTA_FLUSH_MS) itself.
});

// The environment of a server child process: this process's, the profile, then the test's.
export const profiledEnv = (env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, ...TEST_PROFILE_ENV, ...env });
