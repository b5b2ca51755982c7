// hedgerow's settings (src/settings.ts): each one's default, its variable, and its refusal
// at start-up naming the variable when not usable; then what the table machinery
// (src/setting.ts) makes of any table: kinds, bounds, errors, sources, secrets.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolve } from 'node:path';
import { ConfigError, parseSettings, SETTINGS } from '../src/settings.js';
import { choice, defaultText, describeSettings, optional, REDACTED, resolveSettings, rowsOf, text, whole } from '../src/setting.js';
import { parseCommandLine } from '../src/cli/main.js';
import { MODULES } from '../src/main.js';

const MIB = 1024 * 1024;

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

const subscriptionsConfig = suite('config: subscriptions');

subscriptionsConfig('a 30 s look, 3 attempts a minute apart then doubling, public targets only, no SMTP server unless set', () => {
  assert.equal(parse({}).subscriptions, {
    tickMs: 30_000, retryMs: 60_000, attempts: 3, sendTimeoutMs: 30_000, allow: '', smtpUrl: null, smtpStartTls: 'auto', smtpCaFile: null,
    smtpCertificates: 'verify', smtpFrom: 'hedgerow@localhost',
  });
  const set = parse({ HEDGEROW_SMTP_URL: 'smtp://bot:hunter2@mail.internal:2525', HEDGEROW_SUBSCRIPTION_ALLOW: '10.0.0.0/8' }).subscriptions;
  assert.is(set.smtpUrl, 'smtp://bot:hunter2@mail.internal:2525');
  assert.is(set.allow, '10.0.0.0/8');
  const tls = parse({ HEDGEROW_SMTP_STARTTLS: 'required', HEDGEROW_SMTP_CA_FILE: '/etc/ca.pem', HEDGEROW_SMTP_CERTIFICATES: 'any' }).subscriptions;
  assert.equal([tls.smtpStartTls, tls.smtpCaFile, tls.smtpCertificates], ['required', '/etc/ca.pem', 'any']);
  assert.throws(() => parse({ HEDGEROW_SMTP_STARTTLS: 'yes' }), (err: unknown) => err instanceof ConfigError && /HEDGEROW_SMTP_STARTTLS/.test(err.message));
  assert.throws(() => parse({ HEDGEROW_SUBSCRIPTION_ALLOW: '10.0.0.0/40' }), (err: unknown) => err instanceof ConfigError);
  assert.throws(() => parse({ HEDGEROW_SUBSCRIPTION_ATTEMPTS: '0' }), (err: unknown) => err instanceof ConfigError && /HEDGEROW_SUBSCRIPTION_ATTEMPTS/.test(err.message));
});

subscriptionsConfig.run();

const exportsConfig = suite('config: exports');

exportsConfig('one render thread, a 2 s and 100,000-row wait, a 10 min render limit, an hourly sweep, 30 s render claims and event exports of 50,000 rows read 10,000 at a time unless set', () => {
  assert.equal(parse({}).exports, { workers: 1, syncWaitMs: 2000, syncMaxRows: 100_000, renderTimeoutMs: 600_000, sweepIntervalMs: 3_600_000, claimTtlMs: 30_000, rowLimit: 50_000, pageRows: 10_000 });
  const set = parse({
    HEDGEROW_EXPORT_WORKERS: '2', HEDGEROW_EXPORT_SYNC_MS: '0', HEDGEROW_EXPORT_SYNC_ROWS: '10', HEDGEROW_EXPORT_TIMEOUT_MS: '5000', HEDGEROW_EXPORT_SWEEP_MS: '60000',
    HEDGEROW_EXPORT_CLAIM_TTL_MS: '3000', HEDGEROW_EXPORT_ROW_LIMIT: '300000', HEDGEROW_EXPORT_PAGE_ROWS: '500',
  }).exports;
  assert.equal(set, { workers: 2, syncWaitMs: 0, syncMaxRows: 10, renderTimeoutMs: 5000, sweepIntervalMs: 60_000, claimTtlMs: 3000, rowLimit: 300_000, pageRows: 500 });
  for (const [name, bad] of [
    ['HEDGEROW_EXPORT_WORKERS', '0'], ['HEDGEROW_EXPORT_TIMEOUT_MS', '0'], ['HEDGEROW_EXPORT_SYNC_MS', 'soon'], ['HEDGEROW_EXPORT_CLAIM_TTL_MS', '10'],
    ['HEDGEROW_EXPORT_ROW_LIMIT', '300001'], ['HEDGEROW_EXPORT_PAGE_ROWS', '0'],
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
  assert.throws(() => parse({ HEDGEROW_SNAPSHOT_KEEP: '1' }), (err: unknown) => err instanceof ConfigError && /HEDGEROW_SNAPSHOT_KEEP must be from 2 to 100 \(got 1\)/.test((err as Error).message));
  // A snapshot must come well within the event stream's 7-day max_age.
  assert.equal(parse({ HEDGEROW_SNAPSHOT_INTERVAL_SECONDS: '259200' }).snapshots.intervalSeconds, 259_200);
  assert.throws(() => parse({ HEDGEROW_SNAPSHOT_INTERVAL_SECONDS: '259201' }), (err: unknown) => err instanceof ConfigError && /HEDGEROW_SNAPSHOT_INTERVAL_SECONDS must be from 0 to 259200 \(got 259201\)/.test((err as Error).message));
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

// The settings table itself (src/settings.ts, src/setting.ts): every kind of setting, the
// errors that name the variable (or flag) and the bound, where each value came from.
const kinds = suite('settings: kinds, bounds and their errors');
const messageOf = (f: () => unknown) => { try { f(); } catch (err) { return (err as Error).message; } return 'no error'; };
const input = (env: Record<string, string> = {}, flags: Record<string, string> = {}, cores = 4) => ({ env, flags, cores });

kinds('a whole number: within its bounds, or refused naming the variable (or the flag that gave it) and the bound', () => {
  const table = {
    both: whole({ env: 'BOTH', flag: 'both', min: 2, max: 5, default: 3, doc: 'd' }),
    low: whole({ env: 'LOW', min: 1024, default: 2048, doc: 'd' }),
    high: whole({ env: 'HIGH', max: 10, default: 1, doc: 'd' }),
  };
  assert.equal(resolveSettings(table, input()).values, { both: 3, low: 2048, high: 1 });
  assert.equal(resolveSettings(table, input({ BOTH: '5', LOW: '1024', HIGH: '0' })).values, { both: 5, low: 1024, high: 0 });
  const cases: [Record<string, string>, Record<string, string>, string][] = [
    [{ BOTH: '6' }, {}, 'BOTH must be from 2 to 5 (got 6)'],
    [{ BOTH: '3' }, { both: '1' }, '--both must be from 2 to 5 (got 1)'],
    [{ LOW: '5' }, {}, 'LOW must be at least 1024 (got 5)'],
    [{ HIGH: '11' }, {}, 'HIGH must be at most 10 (got 11)'],
    [{ LOW: '2.5' }, {}, 'LOW must be a whole number (got 2.5)'],
    [{ LOW: '-3' }, {}, 'LOW must be a whole number (got -3)'],
    [{ LOW: 'lots' }, {}, 'LOW must be a whole number (got "lots")'],
  ];
  for (const [env, flags, said] of cases) {
    assert.throws(() => resolveSettings(table, input(env, flags)), (err: unknown) => err instanceof ConfigError && (err as Error).message === said, said);
  }
});

kinds('text (non-empty, a pattern, a check of its own, normalised), a choice, and an optional value', () => {
  const table = {
    name: text({ env: 'NAME', nonEmpty: true, default: 'x', doc: 'd' }),
    size: text({ env: 'SIZE', default: '', pattern: { re: /^$|^\d+GB$/, says: 'a size such as 2GB' }, doc: 'd' }),
    even: text({ env: 'EVEN', default: '', check: (v) => { if (v.length % 2) throw new Error(`EVEN: "${v}" has an odd length`); }, doc: 'd' }),
    url: text({ env: 'URL', default: 'http://a/', normalize: (v) => v.replace(/\/+$/, ''), doc: 'd' }),
    level: choice({ env: 'LEVEL', values: ['low', 'high'], default: 'low', doc: 'd' }),
    nats: optional({ env: 'NATS', doc: 'd' }),
  };
  assert.equal(resolveSettings(table, input()).values, { name: 'x', size: '', even: '', url: 'http://a', level: 'low', nats: null });
  assert.equal(resolveSettings(table, input({ SIZE: '2GB', EVEN: 'ab', URL: 'https://b.example//', LEVEL: 'high', NATS: 'nats://n:4222' })).values,
    { name: 'x', size: '2GB', even: 'ab', url: 'https://b.example', level: 'high', nats: 'nats://n:4222' });
  assert.is(messageOf(() => resolveSettings(table, input({ SIZE: 'big' }))), 'SIZE must be a size such as 2GB (got "big")');
  // A check's own message names the setting already: said as it is.
  assert.is(messageOf(() => resolveSettings(table, input({ EVEN: 'abc' }))), 'EVEN: "abc" has an odd length');
  assert.is(messageOf(() => resolveSettings(table, input({ LEVEL: 'mid' }))), 'LEVEL must be one of low, high (got "mid")');
});

kinds('a flag wins over its variable, a variable over the default; an empty variable is unset; each value says where it came from', () => {
  const table = {
    port: whole({ env: 'PORT', flag: 'port', min: 0, max: 65535, default: 8000, doc: 'd' }),
    nested: { host: text({ env: 'HOST', flag: 'host', default: '0.0.0.0', doc: 'd' }), other: whole({ env: 'OTHER', default: 1, doc: 'd' }) },
  };
  const r = resolveSettings(table, input({ PORT: '9000', HOST: 'a', OTHER: '' }, { host: 'b' }));
  assert.equal(r.values, { port: 9000, nested: { host: 'b', other: 1 } });
  assert.equal([...r.sources], [['port', 'env'], ['nested.host', 'flag'], ['nested.other', 'default']]);
  assert.equal(describeSettings(table, r).map((d) => [d.env, d.flag, d.value, d.source]), [
    ['PORT', '--port', 9000, 'env'], ['HOST', '--host', 'b', 'flag'], ['OTHER', null, 1, 'default'],
  ]);
});

kinds('a computed default reads the settings above it and the cores', () => {
  const table = {
    nats: optional({ env: 'NATS', doc: 'd' }),
    flush: whole({ env: 'FLUSH', min: 1, default: { says: '10 with NATS, else 1', of: (e) => (e.value('nats') === null ? 1 : 10) }, doc: 'd' }),
    threads: whole({ env: 'THREADS', min: 1, default: { says: 'spare cores', of: (e) => Math.max(1, e.cores - 1) }, doc: 'd' }),
  };
  assert.equal(resolveSettings(table, input({}, {}, 1)).values, { nats: null, flush: 1, threads: 1 });
  assert.equal(resolveSettings(table, input({ NATS: 'nats://x' }, {}, 8)).values, { nats: 'nats://x', flush: 10, threads: 7 });
  assert.equal(resolveSettings(table, input({ NATS: 'nats://x', FLUSH: '3' }, {}, 8)).sources.get('flush'), 'env');
  assert.is(defaultText(table.flush), '10 with NATS, else 1');
  const wrongOrder = { flush: table.flush, nats: table.nats };
  assert.match(messageOf(() => resolveSettings(wrongOrder, input())), 'not declared above it');
});

kinds('a secret is never printed: not by `hedgerow config`, not in an error', () => {
  const table = {
    token: text({ env: 'TOKEN', secret: true, default: '', pattern: { re: /^$|^tok_/, says: 'a token (tok_…)' }, doc: 'd' }),
    plain: text({ env: 'PLAIN', default: 'p', doc: 'd' }),
  };
  const set = resolveSettings(table, input({ TOKEN: 'tok_s3cret' }));
  assert.is(set.values.token, 'tok_s3cret');
  const described = describeSettings(table, set);
  assert.is(described[0].value, REDACTED);
  assert.is(described[1].value, 'p');
  assert.not.match(JSON.stringify(described), 's3cret');
  assert.is(messageOf(() => resolveSettings(table, input({ TOKEN: 'leaked' }))), 'TOKEN must be a token (tok_…)');
});

kinds.run();

const table = suite('settings: hedgerow\'s table');

table('HEDGEROW_MAX_EVENT_BYTES=5 says the variable and the bound', () => {
  assert.is(messageOf(() => parse({ HEDGEROW_MAX_EVENT_BYTES: '5' })), 'HEDGEROW_MAX_EVENT_BYTES must be at least 1024 (got 5)');
  assert.is(messageOf(() => parseCommandLine(['serve', '--port', '70000'], {})), '--port must be from 0 to 65535 (got 70000)');
  assert.is(messageOf(() => parse({ LOG_LEVEL: 'loud' })), 'LOG_LEVEL must be one of debug, info, warn, error, silent (got "loud")');
  assert.is(messageOf(() => parse({ HEDGEROW_INSIGHTS_MEMORY: 'lots' })), 'HEDGEROW_INSIGHTS_MEMORY must be a size such as 2GB (got "lots")');
});

table('the config object keeps its shape: every key the service reads', () => {
  const config = parse({});
  const keys = (o: object, prefix = ''): string[] => Object.entries(o).flatMap(([k, v]) =>
    (typeof v === 'object' && v !== null ? keys(v, `${prefix}${k}.`) : [prefix + k]));
  assert.equal(keys(config).sort(), [
    'app.port', 'app.sessionSeconds', 'app.signInAttempts',
    'capture.maxBatchBodyBytes', 'capture.maxDecompressedBytes', 'capture.maxEventBodyBytes', 'capture.maxJsonNodes', 'capture.workers',
    'clusterTimeScale', 'consumerBatchBytes', 'dataDir', 'exports.claimTtlMs', 'exports.pageRows', 'exports.renderTimeoutMs', 'exports.rowLimit', 'exports.sweepIntervalMs', 'exports.syncMaxRows',
    'exports.syncWaitMs', 'exports.workers', 'flagPool', 'flagWorkers', 'geoipDb', 'hog.fetchAllow', 'hog.logRetentionDays', 'hog.metricRetentionDays',
    'hog.watcherLockSeconds', 'hog.workers', 'host', 'insights.cohortIntervalMs', 'insights.hogqlParser', 'insights.lingerMs', 'insights.memoryLimit', 'insights.mode', 'insights.queryTimeoutMs', 'insights.threads', 'json',
    'logLevel', 'logPruneIntervalMs', 'managementRateLimitPerMinute', 'natsReplicas', 'natsUrl', 'personCacheSize', 'port', 'quotaFlushMs',
    'siteUrl', 'snapshots.intervalSeconds', 'snapshots.keep', 'subscriptions.allow', 'subscriptions.attempts', 'subscriptions.retryMs',
    'subscriptions.sendTimeoutMs', 'subscriptions.smtpCaFile', 'subscriptions.smtpCertificates', 'subscriptions.smtpFrom', 'subscriptions.smtpStartTls',
    'subscriptions.smtpUrl', 'subscriptions.tickMs',
  ]);
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.capture) && Object.isFrozen(config.hog), 'frozen, nested objects too');
  assert.equal([config.port, config.host, config.natsUrl, config.logLevel, config.json, config.geoipDb], [8000, '0.0.0.0', null, 'info', false, 'bundled']);
  assert.is(config.dataDir, resolve('./data'));
  assert.equal(config.capture, { maxEventBodyBytes: 2 * MIB, maxBatchBodyBytes: 20 * MIB, maxDecompressedBytes: 64 * MIB, maxJsonNodes: 2_000_000, workers: config.capture.workers });
  assert.equal(config.insights, { mode: 'embedded', threads: 0, memoryLimit: '', queryTimeoutMs: 120_000, hogqlParser: 'warm', cohortIntervalMs: 3_600_000, lingerMs: 1_000 });
  assert.equal([config.managementRateLimitPerMinute, config.logPruneIntervalMs], [480, 10_000]);
});

table('flags: --data is resolved, --nats switches the defaults that follow NATS, --json sets json; flags beat variables', () => {
  const { config } = parseCommandLine(['serve', '--data', 'rel/dir', '--nats', 'nats://n:4222', '--log-level', 'warn', '--geoip-db', 'none', '--flag-workers', '3'],
    { HEDGEROW_DATA: '/elsewhere', LOG_LEVEL: 'debug', HEDGEROW_FLAG_WORKERS: '9' });
  assert.equal([config.dataDir, config.natsUrl, config.logLevel, config.geoipDb, config.flagWorkers], [resolve('rel/dir'), 'nats://n:4222', 'warn', 'none', 3]);
  assert.equal([config.insights.mode, config.quotaFlushMs], ['nats', 10_000]);
  assert.is(parseCommandLine(['init', '--json'], {}, MODULES).config.json, true);
  assert.is(parseCommandLine(['serve'], { HOST: '' }).config.host, '0.0.0.0', 'an empty variable is unset');
});

table('threads per pool: one per spare core, within each pool\'s bound', () => {
  const on = (cores: number) => parseSettings({}, {}, false, cores).config;
  assert.equal([on(1).capture.workers, on(1).flagWorkers, on(1).hog.workers], [1, 1, 1]);
  assert.equal([on(8).capture.workers, on(8).flagWorkers, on(8).hog.workers], [2, 7, 4]);
});

table('`hedgerow config` sources: default, env, flag', () => {
  const { config, sources } = parseSettings({ HEDGEROW_EXPORT_WORKERS: '2' }, { port: '9001' });
  const d = describeSettings(SETTINGS, { values: config, sources });
  const row = (env: string) => d.find((x) => x.env === env)!;
  assert.equal([row('PORT').value, row('PORT').source], [9001, 'flag']);
  assert.equal([row('HEDGEROW_EXPORT_WORKERS').value, row('HEDGEROW_EXPORT_WORKERS').source], [2, 'env']);
  assert.equal([row('HEDGEROW_SITE_URL').value, row('HEDGEROW_SITE_URL').source], ['http://localhost:9001', 'default']);
  assert.is(d.length, rowsOf(SETTINGS).length);
});

table('each row: a variable of its own, a doc line, bounds in words, a default it would accept', () => {
  const rows = rowsOf(SETTINGS);
  assert.is(new Set(rows.map((r) => r.setting.env)).size, rows.length, 'one variable per setting');
  const flags = rows.flatMap((r) => (r.setting.flag ? [r.setting.flag.name] : []));
  assert.is(new Set(flags).size, flags.length, 'one flag per setting');
  for (const { key, setting } of rows) {
    assert.ok(setting.doc.length > 10 && !setting.doc.includes('\n'), `${key}: one doc line`);
    assert.ok(setting.allowed.length > 0, `${key}: bounds in words`);
    assert.ok(defaultText(setting).length > 0, `${key}: a default in words`);
    const value = parseSettings({}).config as unknown as Record<string, unknown>;
    const dflt = key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], value);
    if (typeof dflt === 'number' || (typeof dflt === 'string' && dflt !== '')) {
      assert.equal(setting.read(String(dflt)), dflt, `${key}: its default is within its bounds`);
    }
  }
});

table.run();
