// RetentionQuery, LifecycleQuery and StickinessQuery against activity whose answer is known
// by construction (first-time and recurring cohorts, week starts, merges, person creation).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LifecycleItem, RetentionRow, StickinessItem } from '../../src/insights/index.js';
import { ev, person, run, PROJECT, type TestStore, storePerTest } from './helpers.js';

const NOW = '2024-06-15T12:00:00Z';
const retention = (filter: Record<string, unknown>) => ({ kind: 'RetentionQuery', retentionFilter: { targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' }, ...filter } });
const matrix = (r: { results: unknown }) => (r.results as RetentionRow[]).map((row) => row.values.map((v) => v.count));

const s = suite('insights: retention, lifecycle, stickiness');
let store: TestStore;
storePerTest(s, (opened) => { store = opened; });

async function activity(): Promise<void> {
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-06-12T10:00:00Z'), ev(1, '$pageview', '2024-06-13T10:00:00Z'), ev(1, '$pageview', '2024-06-15T10:00:00Z'),
    ev(2, '$pageview', '2024-06-10T10:00:00Z'), ev(2, '$pageview', '2024-06-13T10:00:00Z'),
    ev(3, '$pageview', '2024-06-14T10:00:00Z'), ev(3, '$pageview', '2024-06-15T10:00:00Z'),
  ] });
}

s('first-time retention: cohorts by each person’s first ever event, returns counted per day after', async () => {
  await activity();
  const r = await run(store, retention({ period: 'Day', totalIntervals: 4, retentionType: 'retention_first_time' }), { now: NOW });
  assert.equal(matrix(r), [[1, 1, 0, 1], [0, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]);
  const rows = r.results as RetentionRow[];
  assert.equal(rows.map((row) => [row.label, row.date]), [['Day 0', '2024-06-12T00:00:00Z'], ['Day 1', '2024-06-13T00:00:00Z'], ['Day 2', '2024-06-14T00:00:00Z'], ['Day 3', '2024-06-15T00:00:00Z']]);
  assert.equal(rows[0].values.map((v) => v.label), ['Day 0', 'Day 1', 'Day 2', 'Day 3']);
});

s('a date range gives one cohort per period in it; totalIntervals is how far each looks ahead (and the cohorts without date_from)', async () => {
  await activity();
  // First events: person 2 on the 10th, person 1 on the 12th, person 3 on the 14th. Returns
  // after date_to are outside the range.
  const explicit = await run(store, { ...retention({ period: 'Day', totalIntervals: 2 }), dateRange: { date_from: '2024-06-10', date_to: '2024-06-13' } }, { now: NOW });
  assert.equal(matrix(explicit), [[1, 0], [0, 0], [1, 1], [0, 0]]);
  // Values per row are the periods looked ahead (totalIntervals): 4 of them show a return 3 days on.
  const longer = await run(store, { ...retention({ period: 'Day', totalIntervals: 4 }), dateRange: { date_from: '2024-06-10', date_to: '2024-06-13' } }, { now: NOW });
  assert.equal(matrix(longer), [[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]);
  assert.equal((explicit.results as RetentionRow[]).map((row) => row.date), ['2024-06-10T00:00:00Z', '2024-06-11T00:00:00Z', '2024-06-12T00:00:00Z', '2024-06-13T00:00:00Z']);
  const relative = await run(store, { ...retention({ period: 'Day', totalIntervals: 2 }), dateRange: { date_from: '-3d' } }, { now: NOW });
  assert.equal(matrix(relative), [[1, 1], [0, 0], [1, 1], [0, 0]]);
  assert.is(matrix(await run(store, { ...retention({ period: 'Day', totalIntervals: 2 }), dateRange: { date_to: '2024-06-13' } }, { now: NOW })).length, 2);
});

s('retention breakdown: each (person, value) followed on its own over the events with that value; top values by cohort size, the rest other', async () => {
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-06-12T10:00:00Z', { $browser: 'Chrome' }), ev(1, '$pageview', '2024-06-13T10:00:00Z', { $browser: 'Chrome' }),
    ev(1, '$pageview', '2024-06-13T11:00:00Z', { $browser: 'Safari' }), ev(1, '$pageview', '2024-06-14T10:00:00Z', { $browser: 'Safari' }),
    ev(2, '$pageview', '2024-06-12T10:00:00Z', { $browser: 'Chrome' }), ev(2, '$pageview', '2024-06-14T10:00:00Z', { $browser: 'Chrome' }),
    ev(3, '$pageview', '2024-06-13T10:00:00Z'), ev(3, '$pageview', '2024-06-14T10:00:00Z'),
  ] });
  const query = (breakdownFilter: Record<string, unknown>) => ({
    ...retention({ period: 'Day', totalIntervals: 3 }), dateRange: { date_from: '2024-06-12', date_to: '2024-06-14' }, breakdownFilter,
  });
  const byValue = (r: { results: unknown }) => (r.results as RetentionRow[]).map((row) => [row.breakdown_value, row.values.map((v) => v.count)]);
  const all = await run(store, query({ breakdown: '$browser' }), { now: NOW });
  assert.equal(byValue(all), [
    ['Chrome', [2, 1, 1]], ['Chrome', [0, 0, 0]], ['Chrome', [0, 0, 0]],
    ['', [0, 0, 0]], ['', [1, 1, 0]], ['', [0, 0, 0]],
    ['Safari', [0, 0, 0]], ['Safari', [1, 1, 0]], ['Safari', [0, 0, 0]],
  ]);
  const top = await run(store, query({ breakdowns: [{ property: '$browser', type: 'event' }], breakdown_limit: 1 }), { now: NOW });
  assert.equal(byValue(top).slice(3), [['$$_posthog_breakdown_other_$$', [0, 0, 0]], ['$$_posthog_breakdown_other_$$', [2, 2, 0]], ['$$_posthog_breakdown_other_$$', [0, 0, 0]]]);
  const two = await run(store, query({ breakdowns: [{ property: '$browser' }, { property: '$os' }] }), { now: NOW }).catch((e: unknown) => e);
  assert.is((two as { attr?: string }).attr, 'breakdownFilter.breakdowns');
});

s('cumulative retention: a person counts in every period up to their furthest return', async () => {
  await activity();
  // Recurring cohorts (see above): the 12th's person 1 returns on days 1 and 3, so counts in 1, 2 and 3.
  const r = await run(store, retention({ period: 'Day', totalIntervals: 4, retentionType: 'retention_recurring', cumulative: true }), { now: NOW });
  assert.equal(matrix(r), [[1, 1, 1, 1], [2, 1, 1, 0], [1, 1, 0, 0], [2, 0, 0, 0]]);
});

s('minimumOccurrences: a period is a return only with that many returning events in it (the cohort itself unchanged)', async () => {
  await activity();
  // Person 1 comes back twice on the 13th, which still counts; their single visits on the 15th no longer do.
  await store.loader.load({ events: [ev(1, '$pageview', '2024-06-13T18:00:00Z')] });
  const r = await run(store, retention({ period: 'Day', totalIntervals: 4, retentionType: 'retention_recurring', minimumOccurrences: 2 }), { now: NOW });
  assert.equal(matrix(r), [[1, 1, 0, 0], [2, 0, 0, 0], [1, 0, 0, 0], [2, 0, 0, 0]]);
});

s('a returning event other than the target: cohorts by the target, returns by the other', async () => {
  await activity();
  await store.loader.load({ events: [ev(7, 'signup', '2024-06-12T09:00:00Z'), ev(7, '$pageview', '2024-06-14T09:00:00Z'), ev(1, 'signup', '2024-06-15T09:00:00Z')] });
  const r = await run(store, retention({ period: 'Day', totalIntervals: 4, targetEntity: { id: 'signup', type: 'events' } }), { now: NOW });
  assert.equal(matrix(r), [[1, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]]);
});

s('recurring retention: a cohort for every day a person was active', async () => {
  await activity();
  const r = await run(store, retention({ period: 'Day', totalIntervals: 4, retentionType: 'retention_recurring' }), { now: NOW });
  assert.equal(matrix(r), [[1, 1, 0, 1], [2, 0, 1, 0], [1, 1, 0, 0], [2, 0, 0, 0]]);
});

s('weekly retention follows the project’s week start; a merged anonymous id joins its person', async () => {
  // Sunday 2024-06-09 closes a Monday week and opens a Sunday one.
  await store.loader.load({ events: [ev(4, '$pageview', '2024-06-09T10:00:00Z'), ev(4, '$pageview', '2024-06-11T10:00:00Z')] });
  const weekly = retention({ period: 'Week', totalIntervals: 2 });
  assert.equal(matrix(await run(store, weekly, { now: NOW, weekStart: 1 })), [[1, 1], [0, 0]]);
  const sunday = await run(store, weekly, { now: NOW, weekStart: 0 });
  assert.equal(matrix(sunday), [[0, 0], [1, 0]]);
  assert.equal((sunday.results as RetentionRow[]).map((row) => row.date), ['2024-06-02T00:00:00Z', '2024-06-09T00:00:00Z']);
  // Person 5 is first seen anonymously in the first week; merged, their cohort is that week.
  await store.loader.load({
    events: [ev(9, '$pageview', '2024-06-03T10:00:00Z', {}, 'anon-5'), ev(5, '$pageview', '2024-06-12T10:00:00Z', {}, 'user-5')],
    distinctIds: [{ project_id: PROJECT, distinct_id: 'anon-5', person_id: person(9) }],
  });
  await store.loader.load({ distinctIds: [{ project_id: PROJECT, distinct_id: 'anon-5', person_id: person(5) }] });
  assert.equal(matrix(await run(store, weekly, { now: NOW, weekStart: 1 })), [[2, 2], [0, 0]]);
});

s('lifecycle: new (created in the interval), returning, resurrecting, dormant (negative)', async () => {
  await store.loader.load({
    events: [
      ev(1, '$pageview', '2024-06-12T10:00:00Z'), ev(1, '$pageview', '2024-06-13T10:00:00Z'), ev(1, '$pageview', '2024-06-15T10:00:00Z'),
      ev(2, '$pageview', '2024-06-11T10:00:00Z'), ev(2, '$pageview', '2024-06-12T10:00:00Z'),
      ev(3, '$pageview', '2024-06-14T10:00:00Z'),
      ev(4, '$pageview', '2024-06-15T10:00:00Z'),
    ],
    persons: [
      { project_id: PROJECT, id: person(1), created_at: '2024-06-12T09:00:00Z', properties: {} },
      { project_id: PROJECT, id: person(2), created_at: '2024-01-01T00:00:00Z', properties: {} },
      { project_id: PROJECT, id: person(3), created_at: '2024-06-14T09:00:00Z', properties: {} },
      { project_id: PROJECT, id: person(4), created_at: '2024-01-01T00:00:00Z', properties: {} },
    ],
  });
  const r = await run(store, { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: { date_from: '2024-06-12', date_to: '2024-06-15' } }, { now: NOW });
  const got = Object.fromEntries((r.results as LifecycleItem[]).map((i) => [i.status, i.data]));
  assert.equal(got, { new: [1, 0, 1, 0], returning: [1, 1, 0, 0], resurrecting: [0, 0, 0, 2], dormant: [0, -1, -1, -1] });
  const items = r.results as LifecycleItem[];
  assert.equal(items.map((i) => i.label), ['$pageview - new', '$pageview - returning', '$pageview - resurrecting', '$pageview - dormant']);
  assert.equal(items[0].days, ['2024-06-12', '2024-06-13', '2024-06-14', '2024-06-15']);
  assert.equal(items[0].labels, ['12-Jun-2024', '13-Jun-2024', '14-Jun-2024', '15-Jun-2024']);
  assert.equal(items[0].action, { id: '$pageview', name: '$pageview', type: 'events', order: 0, math: 'total' });
  assert.is(items[3].count, -3);
});

s('stickinessCriteria: a day counts only when the person did the event at least, at most or exactly that many times in it', async () => {
  const times = (n: number, day: string, k: number) => Array.from({ length: k }, (_, i) => ev(n, 'x', `2024-06-${day}T1${i}:00:00Z`));
  await store.loader.load({ events: [
    ...times(1, '13', 2), ...times(1, '14', 1), ...times(1, '15', 3),
    ...times(2, '14', 2),
    ...times(3, '13', 1), ...times(3, '15', 1),
  ] });
  const data = async (criteria?: Record<string, unknown>) => {
    const r = await run(store, {
      kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: 'x' }], dateRange: { date_from: '2024-06-13', date_to: '2024-06-15' },
      ...(criteria ? { stickinessFilter: { stickinessCriteria: criteria } } : {}),
    }, { now: NOW });
    return (r.results as StickinessItem[])[0].data;
  };
  assert.equal(await data(), [1, 1, 1]);
  assert.equal(await data({ operator: 'gte', value: 2 }), [1, 1, 0]);
  assert.equal(await data({ operator: 'lte', value: 1 }), [1, 1, 0]);
  assert.equal(await data({ operator: 'exact', value: 3 }), [1, 0, 0]);
});

s('stickiness: persons by the number of days they were active', async () => {
  await store.loader.load({ events: [
    ev(1, 'x', '2024-06-13T10:00:00Z'), ev(1, 'x', '2024-06-14T10:00:00Z'), ev(1, 'x', '2024-06-15T10:00:00Z'),
    ev(2, 'x', '2024-06-13T10:00:00Z'), ev(2, 'x', '2024-06-13T11:00:00Z'),
    ev(3, 'x', '2024-06-13T10:00:00Z'), ev(3, 'x', '2024-06-15T10:00:00Z'),
    ev(4, 'x', '2024-06-14T10:00:00Z'),
  ] });
  const r = await run(store, { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: 'x' }], dateRange: { date_from: '2024-06-13', date_to: '2024-06-15' } }, { now: NOW });
  const [item] = r.results as StickinessItem[];
  assert.equal(item.data, [2, 1, 1]);
  assert.equal(item.days, [1, 2, 3]);
  assert.equal(item.labels, ['1 day', '2 days', '3 days']);
  assert.is(item.count, 4);
  assert.equal(item.action, { order: 0, type: 'events', name: 'x', id: 'x' });
});

s.run();
