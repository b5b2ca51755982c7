// The test profile: what every server a test starts runs with, in process
// (./server.ts testConfig) or as a `hedgerow serve` / `aggregate` child (./cli-server.ts),
// cluster nodes included (./cluster.ts), unless the test sets otherwise (its own env and
// flags win). Tests run several files at once on two cores (test/run.ts): each server
// gets one thread per pool, and no GeoIP database (unzipping the bundled one costs a
// core for seconds per server), except in the tests about GeoIP, which ask for it;
// cluster timings are scaled down.
export const TEST_PROFILE_ENV: Readonly<NodeJS.ProcessEnv> = Object.freeze({
  HEDGEROW_GEOIP_DB: 'none',
  HEDGEROW_FLAG_WORKERS: '1',
  HEDGEROW_CAPTURE_WORKERS: '1',
  HEDGEROW_HOG_WORKERS: '1',
  HEDGEROW_EXPORT_WORKERS: '1',
  HEDGEROW_INSIGHTS_THREADS: '1',
  // Insights load each batch at once: a test reads what it captured a moment later (the
  // linger is tested on its own: test/log/consumers-linger).
  HEDGEROW_INSIGHTS_LINGER_MS: '0',
  // The HogQL parser's start and warm-up (about a second of a core) only in servers that parse HogQL.
  HEDGEROW_HOGQL_PARSER: 'lazy',
  // The flag evaluation threads (a worker thread loading the evaluator, ~0.2 s of a core) only
  // in servers that answer /decide or /flags.
  HEDGEROW_FLAG_POOL: 'lazy',
  // Tests poll the management API (25 ms apart, often several at once) for what consumers
  // applied: on a loaded machine, where each waits longer, the default 480 a minute per key
  // answered 429 and a poll ran out of time. The tests of the limit set their own.
  HEDGEROW_RATE_LIMIT_PER_MINUTE: '1000000',
  // The cluster's leases and heartbeats (src/cluster/timings.ts: claims, node
  // announcements, query-status heartbeats, export claims) at half their defaults, so a
  // test waiting out a dead node's claim waits 5 s rather than 10. Not lower: a holder
  // renews every third of its TTL, and a loaded machine must not make it miss one. The
  // stall bound and the acknowledgement timeout are not scaled (src/cluster/timings.ts).
  // A test about one of these timings sets its own scale (nodes-status, query-status) or
  // keeps the defaults ('1': export-takeover, whose claim TTL is its own).
  HEDGEROW_CLUSTER_TIME_SCALE: '0.5',
});

// The environment of a server child process: this process's, the profile, then the test's.
export const profiledEnv = (env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, ...TEST_PROFILE_ENV, ...env });
