// `hedgerow config`: every setting's effective value and where it came from, as the
// command line and environment given to it make them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hedgerow } from './helpers.js';
import { rowsOf } from '../../src/setting.js';
import { SETTINGS } from '../../src/settings.js';

const s = suite('CLI: hedgerow config');

s('one line per setting: its variable (and flag), its value, and default, env or flag', () => {
  const r = hedgerow(['config', '--port', '9001', '--data', '/srv/hedgerow'], { HEDGEROW_EXPORT_WORKERS: '3', PORT: '7000', LOG_LEVEL: '' });
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.is(lines.length, rowsOf(SETTINGS).length);
  const line = (name: string) => lines.find((l) => l.startsWith(`${name} `))!.split(/\s{2,}/);
  assert.equal(line('PORT (--port)'), ['PORT (--port)', '9001', 'flag --port']);
  assert.equal(line('HEDGEROW_DATA (--data)'), ['HEDGEROW_DATA (--data)', '/srv/hedgerow', 'flag --data']);
  assert.equal(line('HEDGEROW_EXPORT_WORKERS'), ['HEDGEROW_EXPORT_WORKERS', '3', 'env HEDGEROW_EXPORT_WORKERS']);
  assert.equal(line('LOG_LEVEL (--log-level)'), ['LOG_LEVEL (--log-level)', 'info', 'default']);
  assert.equal(line('NATS_URL (--nats)'), ['NATS_URL (--nats)', '(none)', 'default']);
  // Computed from the port the flag gave.
  assert.equal(line('HEDGEROW_SITE_URL'), ['HEDGEROW_SITE_URL', 'http://localhost:9001', 'default']);
});

s('--json: the same, as the config object holds each value', () => {
  const r = hedgerow(['config', '--json', '--nats', 'nats://127.0.0.1:4222'], { HEDGEROW_MAX_EVENT_BYTES: '4096' });
  assert.is(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as { key: string; env: string; flag?: string; value: unknown; source: string }[];
  const row = (key: string) => rows.find((x) => x.key === key);
  assert.equal(row('capture.maxEventBodyBytes'), { key: 'capture.maxEventBodyBytes', env: 'HEDGEROW_MAX_EVENT_BYTES', source: 'env', value: 4096 });
  assert.equal(row('natsUrl'), { key: 'natsUrl', env: 'NATS_URL', flag: '--nats', source: 'flag', value: 'nats://127.0.0.1:4222' });
  // Defaults that follow NATS_URL.
  assert.equal([row('insights.mode')?.value, row('quotaFlushMs')?.value], ['nats', 10_000]);
});

s('refuses what serve would refuse, and flags no setting has', () => {
  const bad = hedgerow(['config'], { HEDGEROW_NATS_REPLICAS: '6' });
  assert.is(bad.code, 2);
  assert.is(bad.stderr, 'hedgerow: HEDGEROW_NATS_REPLICAS must be from 1 to 5 (got 6)\n');
  const flag = hedgerow(['config', '--email', 'x']);
  assert.is(flag.code, 2);
  assert.match(flag.stderr, /^hedgerow: config does not take --email\n/);
});

s.run();
