// Per-key rate limit of the management API and the failed-authentication metric.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, NO_CONSUMERS, request, bearer, type TestServer } from '../../helpers/server.js';
import { createRateLimiter } from '../../../src/access/auth/rate-limit.js';
import { ApiError } from '../../../src/errors.js';

const s = suite('management rate limit');
let t: TestServer;

// No log consumers: nothing here reads what they apply.
s.before(async () => { t = await startTestServer({ env: { HEDGEROW_RATE_LIMIT_PER_MINUTE: '3' }, consumers: NO_CONSUMERS }); });
s.after(async () => { await t.close(); });

const me = (key: string) => request(`${t.url}/api/users/@me/`, { headers: bearer(key) });

s('past its budget a key gets 429 with Retry-After and the throttled body; other keys are unaffected', async () => {
  const owner = t.server.tenancy.userByEmail('admin@hedgerow.local')!;
  const { key } = await t.server.tenancy.createPersonalKey(owner.id, ['user:read'], null, 'busy');
  for (let i = 0; i < 3; i++) assert.is((await me(key)).status, 200);
  const r = await me(key);
  assert.is(r.status, 429);
  const wait = Number(r.headers.get('retry-after'));
  assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 60, `Retry-After ${wait}`);
  assert.equal(r.body, {
    type: 'throttled_error', code: 'throttled', detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.`, attr: null,
  });
  // Refused requests count too: a key hammering a route it may not use is throttled alike.
  assert.is((await request(`${t.url}/api/projects/`, { headers: bearer(key) })).status, 429);
  const { key: other } = await t.server.tenancy.createPersonalKey(owner.id, ['user:read'], null, 'calm');
  assert.is((await me(other)).status, 200);
});

s('failed authentication attempts are counted by reason', async () => {
  await request(`${t.url}/api/users/@me/`);
  await me('phx_not_a_key');
  await me('phx_not_a_key_either');
  const metrics = (await request(`${t.url}/metrics`)).body as string;
  assert.match(metrics, /hedgerow_auth_failures_total\{reason="missing"\} 1\b/);
  assert.match(metrics, /hedgerow_auth_failures_total\{reason="invalid"\} 2\b/);
});

s('the window slides: a request is admitted again once the oldest leaves it', () => {
  let now = 0;
  const limiter = createRateLimiter({ limit: 2, windowMs: 60_000, now: () => now });
  limiter.hit('k');
  now = 30_000;
  limiter.hit('k');
  now = 59_000;
  try {
    limiter.hit('k');
    assert.unreachable('third request in the window');
  } catch (err) {
    assert.instance(err, ApiError);
    assert.is((err as ApiError).headers?.['Retry-After'], '1');
    assert.is((err as ApiError).body.detail, 'Request was throttled. Expected available in 1 second.');
  }
  now = 60_000;
  limiter.hit('k');
  limiter.hit('other');
  now = 61_000;
  try {
    limiter.hit('k');
    assert.unreachable('still two in the window');
  } catch (err) {
    assert.is((err as ApiError).headers?.['Retry-After'], '29');
  }
});

s('requests close together count until the last of them leaves the window; Retry-After says when', () => {
  let now = 0;
  const limiter = createRateLimiter({ limit: 5, windowMs: 60_000, now: () => now });
  for (now = 0; now < 5; now++) limiter.hit('k');
  const retryAfter = (): string | undefined => {
    try {
      limiter.hit('k');
      return undefined;
    } catch (err) {
      return (err as ApiError).headers?.['Retry-After'];
    }
  };
  now = 100;
  assert.is(retryAfter(), '60');
  now = 59_990;
  assert.is(retryAfter(), '1');
  // All five came within one bucket (a second): they leave together, after the last.
  now = 60_004;
  for (let i = 0; i < 5; i++) assert.is(retryAfter(), undefined, `request ${i} after the window`);
  assert.is(retryAfter(), '60');
});

s('a request 59.9 s old still counts when the ring of buckets comes round to its slice of time', () => {
  let now = 0;
  const limiter = createRateLimiter({ limit: 2, windowMs: 60_000, now: () => now });
  now = 950;
  limiter.hit('k');
  // Sixty slices later: with a ring of exactly sixty buckets this would overwrite the first.
  now = 60_850;
  limiter.hit('k');
  now = 60_900;
  assert.throws(() => limiter.hit('k'), (err: ApiError) => err.headers?.['Retry-After'] === '1');
});

s('memory per key does not grow with the limit', () => {
  const before = process.memoryUsage().arrayBuffers;
  const limiter = createRateLimiter({ limit: 100_000_000, windowMs: 60_000 });
  for (let k = 0; k < 100; k++) limiter.hit(`key-${k}`);
  const grown = process.memoryUsage().arrayBuffers - before;
  // A log of every request time would take 800 MB for each key.
  assert.ok(grown < 4 * 1024 * 1024, `grew ${grown} bytes for 100 keys`);
});

s.run();
