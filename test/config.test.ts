// The consumer's settings: its transaction size (a whole number of log bytes, 16 MiB
// unless set) and how many persons it keeps in memory (200,000 unless set), each from
// the environment and refused at start-up when not usable.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseCommandLine } from '../src/config.js';

const s = suite('config: consumer transaction size');
const parse = (env: NodeJS.ProcessEnv) => parseCommandLine(['serve'], env).config;

s('defaults to 16 MiB and takes HEDGEROW_CONSUMER_BATCH_BYTES', () => {
  assert.is(parse({}).consumerBatchBytes, 16 * 1024 * 1024);
  assert.is(parse({ HEDGEROW_CONSUMER_BATCH_BYTES: '600000' }).consumerBatchBytes, 600_000);
});

s('refuses zero, a fraction and text, naming the setting', () => {
  for (const bad of ['0', '1.5', 'many']) {
    assert.throws(() => parse({ HEDGEROW_CONSUMER_BATCH_BYTES: bad }), (err: unknown) =>
      err instanceof ConfigError && /HEDGEROW_CONSUMER_BATCH_BYTES|consumerBatchBytes/.test((err as Error).message));
  }
});

const cache = suite('config: person cache size');

cache('keeps 200,000 persons unless HEDGEROW_PERSON_CACHE says otherwise', () => {
  assert.is(parse({}).personCacheSize, 200_000);
  assert.is(parse({ HEDGEROW_PERSON_CACHE: '5000' }).personCacheSize, 5000);
});

cache('refuses a size below 2 or not a whole number, naming the setting', () => {
  for (const bad of ['0', '1', '2.5', 'lots']) {
    assert.throws(() => parse({ HEDGEROW_PERSON_CACHE: bad }), (err: unknown) =>
      err instanceof ConfigError && /HEDGEROW_PERSON_CACHE|personCacheSize/.test((err as Error).message));
  }
});

const hog = suite('config: hog functions');

hog('the site URL defaults to this server on localhost; fetch reaches public addresses only unless allowed', () => {
  const config = parseCommandLine(['serve', '--port', '8123'], {}).config;
  assert.is(config.siteUrl, 'http://localhost:8123');
  assert.is(config.hog.fetchAllow, '');
  assert.is(parse({ HEDGEROW_SITE_URL: 'https://analytics.example.com/' }).siteUrl, 'https://analytics.example.com');
  assert.is(parse({ HEDGEROW_HOG_FETCH_ALLOW: '10.0.0.0/8, sink.internal' }).hog.fetchAllow, '10.0.0.0/8, sink.internal');
  assert.equal({ ...parse({}).hog, workers: 1 }, { workers: 1, fetchAllow: '', watcherLockSeconds: 60, logRetentionDays: 7, metricRetentionDays: 90 });
});

hog('a malformed fetch allowance stops the start, naming the setting', () => {
  for (const bad of ['10.0.0.0/40', 'http://x', '1.2.3.4/8/1']) {
    assert.throws(() => parse({ HEDGEROW_HOG_FETCH_ALLOW: bad }), (err: unknown) =>
      err instanceof ConfigError && /HEDGEROW_HOG_FETCH_ALLOW/.test((err as Error).message));
  }
});

s.run();
cache.run();
hog.run();

const exportsConfig = suite('config: exports');

exportsConfig('one render thread, a 2 s and 100,000-row wait, a 10 min render limit, an hourly sweep and 30 s render claims unless set', () => {
  assert.equal(parse({}).exports, { workers: 1, syncWaitMs: 2000, syncMaxRows: 100_000, renderTimeoutMs: 600_000, sweepIntervalMs: 3_600_000, claimTtlMs: 30_000 });
  const set = parse({
    HEDGEROW_EXPORT_WORKERS: '2', HEDGEROW_EXPORT_SYNC_MS: '0', HEDGEROW_EXPORT_SYNC_ROWS: '10', HEDGEROW_EXPORT_TIMEOUT_MS: '5000', HEDGEROW_EXPORT_SWEEP_MS: '60000',
    HEDGEROW_EXPORT_CLAIM_TTL_MS: '3000',
  }).exports;
  assert.equal(set, { workers: 2, syncWaitMs: 0, syncMaxRows: 10, renderTimeoutMs: 5000, sweepIntervalMs: 60_000, claimTtlMs: 3000 });
  for (const [name, bad] of [
    ['HEDGEROW_EXPORT_WORKERS', '0'], ['HEDGEROW_EXPORT_TIMEOUT_MS', '0'], ['HEDGEROW_EXPORT_SYNC_MS', 'soon'], ['HEDGEROW_EXPORT_CLAIM_TTL_MS', '10'],
  ]) {
    assert.throws(() => parse({ [name]: bad }), (err: unknown) => err instanceof ConfigError);
  }
});

exportsConfig.run();

const insightsConfig = suite('config: where insights queries run');

insightsConfig('embedded without NATS; with NATS_URL (or --nats) the aggregate replicas, unless HEDGEROW_INSIGHTS=embedded', () => {
  assert.is(parse({}).insights.mode, 'embedded');
  assert.is(parse({ NATS_URL: 'nats://127.0.0.1:4222' }).insights.mode, 'nats');
  assert.is(parseCommandLine(['serve', '--nats', 'nats://127.0.0.1:4222'], {}).config.insights.mode, 'nats');
  assert.is(parse({ NATS_URL: 'nats://127.0.0.1:4222', HEDGEROW_INSIGHTS: 'embedded' }).insights.mode, 'embedded');
  assert.is(parse({ NATS_URL: 'nats://127.0.0.1:4222', HEDGEROW_INSIGHTS: 'nats' }).insights.mode, 'nats');
});

insightsConfig('refuses nats without NATS_URL, and any other value, naming the setting', () => {
  assert.throws(() => parse({ HEDGEROW_INSIGHTS: 'nats' }), (err: unknown) => err instanceof ConfigError && /needs NATS_URL/.test((err as Error).message));
  assert.throws(() => parse({ HEDGEROW_INSIGHTS: 'duckdb' }), (err: unknown) => err instanceof ConfigError && /HEDGEROW_INSIGHTS/.test((err as Error).message));
});

insightsConfig.run();

const quotaFlush = suite('config: quota usage flush interval');

quotaFlush('a second embedded, ten seconds with NATS (one control-stream command per flush), or HEDGEROW_QUOTA_FLUSH_MS', () => {
  assert.is(parse({}).quotaFlushMs, 1000);
  assert.is(parse({ NATS_URL: 'nats://127.0.0.1:4222' }).quotaFlushMs, 10_000);
  assert.is(parseCommandLine(['serve', '--nats', 'nats://127.0.0.1:4222'], {}).config.quotaFlushMs, 10_000);
  assert.is(parse({ NATS_URL: 'nats://127.0.0.1:4222', HEDGEROW_QUOTA_FLUSH_MS: '2500' }).quotaFlushMs, 2500);
  for (const bad of ['0', 'soon']) {
    assert.throws(() => parse({ HEDGEROW_QUOTA_FLUSH_MS: bad }), (err: unknown) => err instanceof ConfigError && /HEDGEROW_QUOTA_FLUSH_MS|quotaFlushMs/.test((err as Error).message));
  }
});

quotaFlush('snapshots: every six hours, three kept, unless HEDGEROW_SNAPSHOT_INTERVAL_SECONDS / HEDGEROW_SNAPSHOT_KEEP say otherwise', () => {
  assert.equal(parse({}).snapshots, { intervalSeconds: 21_600, keep: 3 });
  assert.equal(parse({ HEDGEROW_SNAPSHOT_INTERVAL_SECONDS: '0', HEDGEROW_SNAPSHOT_KEEP: '2' }).snapshots, { intervalSeconds: 0, keep: 2 });
  // One kept would cut the control stream at each snapshot's own sequence: no margin.
  assert.throws(() => parse({ HEDGEROW_SNAPSHOT_KEEP: '1' }), (err: unknown) => err instanceof ConfigError && /keep/.test((err as Error).message));
  // A snapshot must come well within the event stream's 7-day max_age.
  assert.equal(parse({ HEDGEROW_SNAPSHOT_INTERVAL_SECONDS: '259200' }).snapshots.intervalSeconds, 259_200);
  assert.throws(() => parse({ HEDGEROW_SNAPSHOT_INTERVAL_SECONDS: '259201' }), (err: unknown) => err instanceof ConfigError && /intervalSeconds/.test((err as Error).message));
});

quotaFlush.run();

const replicas = suite('config: JetStream replicas');

replicas('one unless HEDGEROW_NATS_REPLICAS says otherwise, at most 5 (JetStream\'s limit)', () => {
  assert.is(parse({}).natsReplicas, 1);
  assert.is(parse({ NATS_URL: 'nats://127.0.0.1:4222', HEDGEROW_NATS_REPLICAS: '3' }).natsReplicas, 3);
  for (const bad of ['0', '6', '2.5', 'three']) {
    assert.throws(() => parse({ HEDGEROW_NATS_REPLICAS: bad }), (err: unknown) =>
      err instanceof ConfigError && /HEDGEROW_NATS_REPLICAS|natsReplicas/.test((err as Error).message), bad);
  }
});

replicas.run();
