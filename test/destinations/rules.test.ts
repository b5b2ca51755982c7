// The destinations' pure rules: the watcher's token bucket and states, masking counts in
// their window, the metrics' buckets and labels, and the globals a function sees.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openDestinationsStore, type DestinationsStore } from '../../src/destinations/runtime/env.js';
import { acknowledgeEpoch, freshRecord, invocationCost, observe, statusOf, WATCHER_DEFAULTS } from '../../src/destinations/runtime/watcher.js';
import { passesMasking } from '../../src/destinations/runtime/masking.js';
import { metricsSeries, metricsTotals, parseRelative } from '../../src/destinations/api/metrics-query.js';
import { filterGlobals, invocationGlobals, type EventContext } from '../../src/destinations/runtime/globals.js';
import { tempDir } from '../helpers/temp-dir.js';

const w = suite('destinations: watcher');
const T0 = Date.parse('2026-11-25T10:00:00Z');
const settings = { ...WATCHER_DEFAULTS, stateLockMs: 60_000 };

w('costs: Hog time beyond 50 ms and fetches beyond 100 ms, scaled and not capped; a failure costs 100', () => {
  assert.is(invocationCost([{ kind: 'hog', durationMs: 40 }, { kind: 'async_function', durationMs: 90 }], false), 0);
  assert.is(invocationCost([{ kind: 'hog', durationMs: 300 }], false), 50);
  assert.is(invocationCost([{ kind: 'hog', durationMs: 1050 }], false), 200);
  assert.is(invocationCost([{ kind: 'async_function', durationMs: 2550 }], false), 10);
  assert.is(invocationCost([], true), 100);
});

w('healthy until 0.8, degraded until below 0, then disabled; a state holds for its lock', () => {
  let r = freshRecord(settings, T0, 0);
  r = observe(r, 1999, settings, T0);
  assert.is(r.state, 1);
  r = observe(r, 1, settings, T0);
  assert.is(r.tokens, 8000);
  assert.is(r.state, 2);
  r = observe(r, 8100, settings, T0 + 1000);
  // Locked: the state waits out the minute even though tokens are below zero.
  assert.is(r.tokens, -90);
  assert.is(r.state, 2);
  r = observe(r, 0, settings, T0 + 61_000);
  assert.is(r.tokens, 510);
  assert.is(r.state, 2);
  r = observe(r, 5000, settings, T0 + 61_000);
  assert.is(r.state, 3);
  // Disabled stays disabled, however many tokens come back.
  assert.is(observe(r, 0, settings, T0 + 10 * 86_400_000).state, 3);
});

w('tokens come back at 10 a second up to the bucket', () => {
  const r = observe(freshRecord(settings, T0, 0), 5000, settings, T0);
  assert.is(statusOf(r, { enabled: true, watcher_epoch: 0 }, settings, T0 + 100_000).tokens, 6000);
  assert.is(statusOf(r, { enabled: true, watcher_epoch: 0 }, settings, T0 + 10_000_000).tokens, 10_000);
  assert.equal(statusOf(r, { enabled: false, watcher_epoch: 0 }, settings, T0), { state: 0, rating: 0, tokens: 0 });
});

w('an update that leaves the function enabled takes a disabled one back as degraded with 8,000 tokens', () => {
  const disabled = { tokens: -50, at: T0 / 1000, state: 3, lockedUntil: 0, epoch: 1 };
  assert.equal(acknowledgeEpoch(disabled, 2, settings, T0), { tokens: 8000, at: T0 / 1000, state: 2, lockedUntil: T0 + 60_000, epoch: 2 });
  assert.is(acknowledgeEpoch(disabled, 1, settings, T0), disabled);
  const healthy = freshRecord(settings, T0, 1);
  assert.equal(acknowledgeEpoch(healthy, 3, settings, T0), { ...healthy, epoch: 3 });
});

const m = suite('destinations: masking and metrics');
let dir: string;
let ds: DestinationsStore;
m.before.each(() => { dir = tempDir('hedgerow-ds-'); ds = openDestinationsStore(dir); });
m.after.each(async () => { await ds.close(); rmSync(dir, { recursive: true, force: true }); });

m('masking: without a threshold the first per window; with threshold 3 the 1st, 4th, 7th; a new window starts over', async () => {
  const pass = (hash: string, threshold: number | null, at: number) => ds.root.transactionSync(() => passesMasking(ds, 'f', hash, { ttl: 60, threshold }, at));
  assert.equal([1, 2, 3].map((i) => pass('a', null, T0 + i)), [true, false, false]);
  assert.equal(Array.from({ length: 7 }, (_, i) => pass('b', 3, T0 + i)), [true, false, false, true, false, false, true]);
  assert.is(pass('a', null, T0 + 59_000), false);
  assert.is(pass('a', null, T0 + 60_001), true);
});

m('metrics: a label per bucket from after to before, counts summed per breakdown, weeks from Monday', async () => {
  const HOUR = 3_600_000;
  await ds.root.transaction(() => {
    ds.metrics.put(['f', T0, 'success', 'succeeded'], 3);
    ds.metrics.put(['f', T0 + HOUR, 'success', 'succeeded'], 2);
    ds.metrics.put(['f', T0 - 2 * 86_400_000, 'failure', 'failed'], 1);
    ds.metrics.put(['f', T0, 'other', 'fetch'], 5);
    ds.metrics.put(['g', T0, 'other', 'fetch'], 9);
  });
  const now = T0 + 2 * HOUR;
  const q = { after: parseRelative('-7d', now, 'after'), before: now, interval: 'day' as const, breakdownBy: 'kind' as const, names: [], kinds: [] };
  const daily = metricsSeries(ds, 'f', q);
  assert.equal(daily.labels, ['2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25']);
  assert.equal(daily.series, [
    { name: 'failure', values: [0, 0, 0, 0, 0, 1, 0, 0] },
    { name: 'other', values: [0, 0, 0, 0, 0, 0, 0, 5] },
    { name: 'success', values: [0, 0, 0, 0, 0, 0, 0, 5] },
  ]);
  const hourly = metricsSeries(ds, 'f', { ...q, after: parseRelative('-2h', now, 'after'), interval: 'hour', breakdownBy: 'name', kinds: ['success'] });
  assert.equal(hourly, { labels: ['2026-11-25T10:00', '2026-11-25T11:00', '2026-11-25T12:00'], series: [{ name: 'succeeded', values: [3, 2, 0] }] });
  assert.equal(metricsSeries(ds, 'f', { ...q, interval: 'week' }).labels, ['2026-11-16', '2026-11-23']);
  assert.equal(metricsTotals(ds, 'f', { ...q, after: null, before: null, breakdownBy: 'name' }).totals, { failed: 1, succeeded: 5, fetch: 5 });
});

const g = suite('destinations: globals');

g('a function sees PostHog\'s globals: project, event with its URL, person with name and URL, groups, filter globals', () => {
  const ctx: EventContext = {
    project: { id: 2, name: 'P', url: 'https://h.test/project/2' },
    event: {
      uuid: 'u-1', event: '$autocapture', distinct_id: 'd 1', properties: { $groups: { company: 'acme' } }, timestamp: '2026-01-01T00:00:00Z',
      elements_chain: 'a.link:href="/x"nth-child="1"text="Go";button:attr_id="b1"text="Buy"',
    },
    person: { id: 'p-1', properties: { name: 'Ann', email: 'ann@x.test' } },
    groups: { company: { index: 0, key: 'acme', properties: { size: 5 } } },
  };
  const inv = invocationGlobals(ctx);
  assert.equal(inv.event, { ...ctx.event, url: 'https://h.test/project/2/events/u-1/2026-01-01T00%3A00%3A00Z' });
  assert.equal(inv.person, { id: 'p-1', properties: ctx.person!.properties, name: 'ann@x.test', url: 'https://h.test/project/2/person/d%201' });
  assert.equal(inv.groups, { company: { id: 'acme', type: 'company', index: 0, url: 'https://h.test/project/2/groups/0/acme', properties: { size: 5 } } });
  const f = filterGlobals(ctx);
  assert.is(f.elements_chain_href, '/x');
  assert.equal(f.elements_chain_texts, ['Go', 'Buy']);
  assert.equal(f.elements_chain_ids, ['b1']);
  assert.equal(f.elements_chain_elements, ['a', 'button']);
  assert.is(f.$group_0, 'acme');
  assert.equal(f.group_0, { properties: { size: 5 } });
  assert.equal(f.person, { id: 'p-1', properties: ctx.person!.properties });
  assert.is(invocationGlobals({ ...ctx, person: null }).person, undefined);
});

w.run();
m.run();
g.run();
