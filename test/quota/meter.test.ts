// The feature flag request meter on a real LMDB store: limits, counting per calendar
// month (UTC), flushing counts as additions so several counters can share one organization.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { createFlagMeter, quotaCommands, type FlagMeter } from '../../src/quota/index.js';
import { billingPeriod } from '../../src/quota/period.js';
import { createLocalWrites } from '../../src/state/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';

const s = suite('flag quota meter');
let dir: string;
let store: Store;
let meter: FlagMeter;
const meterOf = (s: Store) => createFlagMeter(s, createLocalWrites(s, quotaCommands));

const MARCH = Date.UTC(2025, 2, 10, 12);
const APRIL = Date.UTC(2025, 3, 1, 0, 0, 0);

s.before(() => {
  dir = tempDir();
  store = openStore(dir, tables);
  meter = meterOf(store);
});
s.after(async () => {
  await meter.flush();
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
  assert.is(meter.quota('org-free'), null);
  for (let i = 0; i < 5; i++) meter.record('org-free', MARCH);
  assert.is(meter.exceeded('org-free', MARCH), false);
  assert.is(meter.usage('org-free', MARCH), 5);
});

s('a limit of N lets N requests through in a month; the next month starts over', async () => {
  await meter.setQuota('org-3', 3);
  for (let i = 0; i < 3; i++) {
    assert.is(meter.exceeded('org-3', MARCH), false, `request ${i + 1}`);
    meter.record('org-3', MARCH);
  }
  assert.is(meter.exceeded('org-3', MARCH), true);
  assert.is(meter.exceeded('org-3', APRIL), false);
  await meter.setQuota('org-0', 0);
  assert.is(meter.exceeded('org-0', MARCH), true);
});

s('usage read while a flush is under way still counts what it is writing', async () => {
  for (let i = 0; i < 4; i++) meter.record('org-flushing', MARCH);
  assert.is(meter.usage('org-flushing', MARCH), 4);
  const flushed = meter.flush();
  // The write is submitted, not yet applied: the counts are in neither the store nor pending.
  assert.is(meter.usage('org-flushing', MARCH), 4);
  meter.record('org-flushing', MARCH);
  assert.is(meter.usage('org-flushing', MARCH), 5);
  await flushed;
  assert.is(meter.usage('org-flushing', MARCH), 5);
});

s('two flushes under way at once (a slow write): usage counts both until each has landed', async () => {
  for (let i = 0; i < 3; i++) meter.record('org-overlap', MARCH);
  const first = meter.flush();
  for (let i = 0; i < 2; i++) meter.record('org-overlap', MARCH);
  const second = meter.flush();
  assert.is(meter.usage('org-overlap', MARCH), 5);
  await first;
  // The first has landed; the second's 2 are still counted as in flight, not forgotten.
  assert.is(meter.usage('org-overlap', MARCH), 5);
  await second;
  assert.is(meter.usage('org-overlap', MARCH), 5);
});

s('raising or removing the limit takes effect at once in this process', async () => {
  await meter.setQuota('org-3', 10);
  assert.is(meter.exceeded('org-3', MARCH), false);
  await meter.setQuota('org-3', null);
  assert.is(meter.exceeded('org-3', MARCH), false);
});

s('counts reach LMDB as additions: two counters on one data directory add up', async () => {
  const other = openStore(dir, tables);
  const otherMeter = meterOf(other);
  try {
    meter.record('org-shared', MARCH);
    meter.record('org-shared', MARCH);
    otherMeter.record('org-shared', MARCH);
    await meter.flush();
    await otherMeter.flush();
    // Another handle's commits show in a new read transaction: lmdb-js renews a thread's
    // only from a timer, so each handle ends its own here.
    const nextTurn = () => { store.root.resetReadTxn(); other.root.resetReadTxn(); };
    nextTurn();
    // Stored usage is re-read at most once a second; a second later both see 3.
    assert.is(meter.usage('org-shared', MARCH + 1000), 3);
    assert.is(otherMeter.usage('org-shared', MARCH + 1000), 3);
    await otherMeter.setQuota('org-shared', 3);
    nextTurn();
    assert.is(meter.exceeded('org-shared', MARCH + 2000), true);
  } finally {
    await otherMeter.flush();
    await other.close();
  }
});

s('counts flush by themselves about a second after they are made', async () => {
  meter.record('org-timer', MARCH);
  // Nothing else flushes: the meter's own timer does, or the count never arrives.
  await eventually(async () => store.quota.get(['usage', 'org-timer', 'feature_flag_requests', '2025-03']) !== undefined);
  assert.is(store.quota.get(['usage', 'org-timer', 'feature_flag_requests', '2025-03']), 1);
});

s('a longer flush interval holds the counts in memory until it ends (the default with NATS)', async () => {
  const slow = createFlagMeter(store, createLocalWrites(store, quotaCommands), { flushMs: 2500 });
  const stored = () => store.quota.get(['usage', 'org-slow', 'feature_flag_requests', '2025-03']);
  slow.record('org-slow', MARCH);
  slow.record('org-slow', MARCH);
  // Past the one-second default: nothing stored yet, though this meter counts both. (Time
  // passing is the point: the interval is what holds the counts back.)
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(stored(), undefined);
  assert.is(slow.usage('org-slow', MARCH), 2);
  // Then flushed by its own timer, once.
  const started = Date.now();
  await eventually(async () => stored() === 2, 20_000);
  assert.ok(Date.now() - started >= 500, 'flushed before its interval ended');
});

s.run();
