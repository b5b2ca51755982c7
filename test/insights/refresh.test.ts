// Refresh modes and staleness (SPEC §4.1, PostHog's thresholds) and result tables as CSV:
// the pure parts of the query API (query statuses: statuses-contract.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decide, refreshMode, staleAfter } from '../../src/insights/api/refresh.js';
import { cacheKey, pruneCache, readCached, writeCached } from '../../src/insights/api/cache.js';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { tempDir } from '../helpers/temp-dir.js';
import { resultTable, toCsv } from '../../src/insights/csv.js';

const HOUR = 3600_000;
const r = suite('insights: refresh modes, cache, CSV');

r('thresholds by interval: very fresh and somewhat fresh', () => {
  assert.equal(['hour', 'day', 'week', 'month', null].map((i) => staleAfter(i) / HOUR), [1, 6, 24, 24, 6]);
  assert.equal(['hour', 'day', 'week', 'month', null].map((i) => staleAfter(i, true) / HOUR), [2, 12, 24, 24, 12]);
});

r('each mode against no cache, a very fresh, a somewhat fresh and a stale result', () => {
  const none = null;
  const veryFresh = { age: HOUR, current: false };
  const somewhat = { age: 8 * HOUR, current: false };
  const stale = { age: 13 * HOUR, current: false };
  const table = (mode: Parameters<typeof decide>[0]) => [none, veryFresh, somewhat, stale].map((c) => decide(mode, c, 'day'));
  assert.equal(table('force_cache'), ['miss', 'cached', 'cached', 'cached']);
  assert.equal(table('blocking'), ['calculate', 'cached', 'calculate', 'calculate']);
  assert.equal(table('async'), ['calculate_async', 'cached', 'calculate_async', 'calculate_async']);
  assert.equal(table('lazy_async'), ['calculate_async', 'cached', 'cached', 'calculate_async']);
  assert.equal(table('force_blocking'), ['calculate', 'calculate', 'calculate', 'calculate']);
  assert.equal(table('force_async'), ['calculate_async', 'calculate_async', 'calculate_async', 'calculate_async']);
  assert.equal(table('async_except_on_cache_miss'), ['calculate', 'cached', 'calculate_async', 'calculate_async']);
  // A result of data that has not changed since is fresh whatever its age.
  assert.is(decide('blocking', { age: 100 * HOUR, current: true }, 'day'), 'cached');
});

r('refresh values: modes, PostHog’s older true/false, the default, anything else refused', () => {
  assert.is(refreshMode(undefined, 'blocking'), 'blocking');
  assert.is(refreshMode('lazy_async', 'blocking'), 'lazy_async');
  assert.is(refreshMode(true, 'force_cache'), 'blocking');
  assert.is(refreshMode('false', 'blocking'), 'force_cache');
  assert.is(refreshMode('now please', 'blocking'), null);
});

r('cache keys: the same query in any key order, another project or zone another key', () => {
  const q = { kind: 'TrendsQuery', series: [{ event: 'a', math: 'dau' }] };
  const same = { series: [{ math: 'dau', event: 'a' }], kind: 'TrendsQuery' };
  assert.is(cacheKey(q, 1, 'UTC', 0), cacheKey(same, 1, 'UTC', 0));
  assert.is.not(cacheKey(q, 1, 'UTC', 0), cacheKey(q, 2, 'UTC', 0));
  assert.is.not(cacheKey(q, 1, 'UTC', 0), cacheKey(q, 1, 'Europe/Paris', 0));
  assert.is.not(cacheKey(q, 1, 'UTC', 0), cacheKey(q, 1, 'UTC', 1));
});

r('the cache drops results calculated before a given time', async () => {
  const dir = tempDir('hedgerow-cache-');
  const store = openStore(dir, tables);
  try {
    const entry = (calculatedAt: number) => ({ response: { kind: 'TrendsQuery' as const, results: [], timezone: 'UTC' }, calculatedAt, position: 1 });
    await writeCached(store, 'old', entry(1000));
    await writeCached(store, 'new', entry(5000));
    assert.is(await pruneCache(store, 2000), 1);
    assert.is(readCached(store, 'old'), undefined);
    assert.is(readCached(store, 'new')?.calculatedAt, 5000);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

r('CSV: funnels a row per step, retention a row per cohort, quoting as RFC 4180', () => {
  const funnel = toCsv(resultTable({ kind: 'FunnelsQuery', timezone: 'UTC', results: [
    { action_id: 'a', name: 'a, "first"', custom_name: null, order: 0, people: [], count: 3, type: 'events', average_conversion_time: null, median_conversion_time: null },
    { action_id: 'b', name: 'b', custom_name: 'Bought', order: 1, people: [], count: 1, type: 'events', average_conversion_time: 60, median_conversion_time: 60 },
  ] }));
  assert.is(funnel, 'name,count,average_conversion_time,median_conversion_time\r\n"a, ""first""",3,,\r\nBought,1,60,60\r\n');
  const retention = toCsv(resultTable({ kind: 'RetentionQuery', timezone: 'UTC', results: [
    { label: 'Day 0', date: '2024-06-12T00:00:00Z', breakdown_value: null, values: [{ count: 2, label: 'Day 0' }, { count: 1, label: 'Day 1' }] },
  ] }));
  assert.is(retention, 'cohort,date,Day 0,Day 1\r\nDay 0,2024-06-12T00:00:00Z,2,1\r\n');
});

r.run();
