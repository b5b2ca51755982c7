// The pure rules behind Retry-After and rate limits (src/destinations/fetch/fetch-rules.ts,
// src/destinations/runtime/rate-limit.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { retryAfterMs, RETRY_AFTER_MAX_MS } from '../../src/destinations/fetch/fetch-rules.js';
import { takeToken } from '../../src/destinations/runtime/rate-limit.js';

const s = suite('destinations pacing rules');
const now = Date.parse('2026-11-28T00:00:00Z');
const answer = (status: number, retryAfter?: string) => ({ ok: true as const, status, body: '', ...(retryAfter === undefined ? {} : { retryAfter }) });

s('Retry-After: seconds and HTTP dates on 429 and 503, capped; ignored elsewhere', () => {
  assert.is(retryAfterMs(answer(429, '7'), now), 7000);
  assert.is(retryAfterMs(answer(503, 'Sat, 28 Nov 2026 00:00:12 GMT'), now), 12_000);
  assert.is(retryAfterMs(answer(503, 'Fri, 27 Nov 2026 23:59:00 GMT'), now), 0);
  assert.is(retryAfterMs(answer(429, '86400'), now), RETRY_AFTER_MAX_MS);
  assert.is(retryAfterMs(answer(429, 'soon'), now), null);
  assert.is(retryAfterMs(answer(429), now), null);
  assert.is(retryAfterMs(answer(500, '5'), now), null);
  assert.is(retryAfterMs({ ok: false, retryable: true, message: 'ECONNRESET' }, now), null);
});

s('rate limit: a second\'s worth at once, then one per 1/rate s', () => {
  const bucket = { tokens: 2, at: 0 };
  assert.is(takeToken(bucket, 2, 0), null);
  assert.is(takeToken(bucket, 2, 0), null);
  assert.is(takeToken(bucket, 2, 0), 500);
  assert.is(takeToken(bucket, 2, 500), null);
  // Below one a second: one token at most, the next after 1/rate s.
  const slow = { tokens: 1, at: 0 };
  assert.is(takeToken(slow, 0.5, 0), null);
  assert.is(takeToken(slow, 0.5, 1000), 2000);
  assert.is(takeToken(slow, 0.5, 2000), null);
});

s.run();
