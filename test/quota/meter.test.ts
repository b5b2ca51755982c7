// The feature flag request meter on a real LMDB store: limits, counting per calendar
// month (UTC), flushing counts as additions so several counters can share one organization.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openStore, type Store } from '../../src/store/env.js';
import { flushFlagUsage, isFlagQuotaExceeded, recordFlagRequest } from '../../src/quota/index.js';
import { billingPeriod } from '../../src/quota/period.js';
import { flagQuota, flagUsage, setFlagQuota } from '../../src/quota/meter.js';
import { tempDir } from '../helpers/server.js';

const s = suite('flag quota meter');
let dir: string;
let store: Store;

const MARCH = Date.UTC(2025, 2, 10, 12);
const APRIL = Date.UTC(2025, 3, 1, 0, 0, 0);

s.before(() => {
  dir = tempDir();
  store = openStore(dir);
});
s.after(async () => {
  flushFlagUsage(store);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

s('billing periods are calendar months in UTC', () => {
  assert.equal(billingPeriod(MARCH), { key: '2025-03', start: '2025-03-01T00:00:00.000Z', end: '2025-04-01T00:00:00.000Z' });
  assert.is(billingPeriod(APRIL - 1).key, '2025-03');
  assert.is(billingPeriod(APRIL).key, '2025-04');
  assert.equal(billingPeriod(Date.UTC(2025, 11, 31, 23)).end, '2026-01-01T00:00:00.000Z');
});

s('no limit by default: never exceeded, usage still counted', () => {
  assert.is(flagQuota(store, 'org-free'), null);
  for (let i = 0; i < 5; i++) recordFlagRequest(store, 'org-free', MARCH);
  assert.is(isFlagQuotaExceeded(store, 'org-free', MARCH), false);
  assert.is(flagUsage(store, 'org-free', MARCH), 5);
});

s('a limit of N lets N requests through in a month; the next month starts over', () => {
  setFlagQuota(store, 'org-3', 3);
  for (let i = 0; i < 3; i++) {
    assert.is(isFlagQuotaExceeded(store, 'org-3', MARCH), false, `request ${i + 1}`);
    recordFlagRequest(store, 'org-3', MARCH);
  }
  assert.is(isFlagQuotaExceeded(store, 'org-3', MARCH), true);
  assert.is(isFlagQuotaExceeded(store, 'org-3', APRIL), false);
  setFlagQuota(store, 'org-0', 0);
  assert.is(isFlagQuotaExceeded(store, 'org-0', MARCH), true);
});

s('raising or removing the limit takes effect at once in this process', () => {
  setFlagQuota(store, 'org-3', 10);
  assert.is(isFlagQuotaExceeded(store, 'org-3', MARCH), false);
  setFlagQuota(store, 'org-3', null);
  assert.is(isFlagQuotaExceeded(store, 'org-3', MARCH), false);
});

s('counts reach LMDB as additions: two counters on one data directory add up', async () => {
  const other = openStore(dir);
  try {
    recordFlagRequest(store, 'org-shared', MARCH);
    recordFlagRequest(store, 'org-shared', MARCH);
    recordFlagRequest(other, 'org-shared', MARCH);
    flushFlagUsage(store);
    flushFlagUsage(other);
    // Another handle's commits show in a later event-loop turn (a new read transaction).
    const nextTurn = () => new Promise((r) => setTimeout(r, 10));
    await nextTurn();
    // Stored usage is re-read at most once a second; a second later both see 3.
    assert.is(flagUsage(store, 'org-shared', MARCH + 1000), 3);
    assert.is(flagUsage(other, 'org-shared', MARCH + 1000), 3);
    setFlagQuota(other, 'org-shared', 3);
    await nextTurn();
    assert.is(isFlagQuotaExceeded(store, 'org-shared', MARCH + 2000), true);
  } finally {
    flushFlagUsage(other);
    await other.close();
  }
});

s('counts flush by themselves about a second after they are made', async () => {
  recordFlagRequest(store, 'org-timer', MARCH);
  await new Promise((r) => setTimeout(r, 1300));
  assert.is(store.quota.get(['usage', 'org-timer', 'feature_flag_requests', '2025-03']), 1);
});

s.run();
