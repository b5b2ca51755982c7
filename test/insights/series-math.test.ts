// A series' math where the kind honours it, refused where it would be ignored: trends and
// stickiness count unique groups of a type (events without one do not count); funnels,
// stickiness and lifecycle otherwise count persons (or lifecycle the groups of
// aggregation_group_type_index), so another math is a 400 naming the series.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ev, run, storePerSuite, type TestStore } from './helpers.js';

const s = suite('insights: series math');
let store: TestStore;
const NOW = '2024-06-10T12:00:00Z';
const RANGE = { date_from: '2024-06-01', date_to: '2024-06-10' };

storePerSuite(s, async (opened) => {
  store = opened;
  await store.loader.load({ events: [
    ev(1, 'paid', '2024-06-03T10:00:00Z', { $group_0: 'acme', $group_1: 'team-a' }),
    ev(2, 'paid', '2024-06-03T11:00:00Z', { $group_0: 'acme' }),
    ev(3, 'paid', '2024-06-04T10:00:00Z', { $group_0: 'globex' }),
    ev(4, 'paid', '2024-06-04T11:00:00Z', { $group_0: '' }),
    ev(5, 'paid', '2024-06-05T10:00:00Z'),
    // Someone else at acme signs up, and never pays themselves.
    ev(6, 'signup', '2024-06-02T10:00:00Z', { $group_0: 'acme' }),
  ] });
});

const trends = (series: Record<string, unknown>) => ({
  kind: 'TrendsQuery', dateRange: RANGE, trendsFilter: { display: 'BoldNumber' }, series: [{ kind: 'EventsNode', event: 'paid', ...series }],
});

async function refused(query: unknown, attr: string, message: RegExp): Promise<void> {
  try {
    await run(store, query, { now: NOW });
    assert.unreachable('accepted');
  } catch (err) {
    assert.match((err as Error).message, message);
    assert.is((err as { attr?: string }).attr, attr);
  }
}

s('math unique_group counts the distinct keys of the group type the series names', async () => {
  const byOrg = await run(store, trends({ math: 'unique_group', math_group_type_index: 0 }), { now: NOW });
  const org = (byOrg.results as { aggregated_value: number; action: { math_group_type_index: number } }[])[0];
  assert.equal([org.aggregated_value, org.action.math_group_type_index], [2, 0]);
  const byTeam = await run(store, trends({ math: 'unique_group', math_group_type_index: 1 }), { now: NOW });
  assert.is((byTeam.results as { aggregated_value: number }[])[0].aggregated_value, 1);
  await refused(trends({ math: 'unique_group' }), 'series.0.math_group_type_index', /needs a math_group_type_index/);
});

s('aggregation_group_type_index counts groups where persons are counted: trends\' dau, funnels', async () => {
  const dau = { ...trends({ math: 'dau' }) };
  const persons = await run(store, dau, { now: NOW });
  const groups = await run(store, { ...dau, aggregation_group_type_index: 0 }, { now: NOW });
  assert.equal([persons, groups].map((r) => (r.results as { aggregated_value: number }[])[0].aggregated_value), [5, 2]);
  const funnel = { kind: 'FunnelsQuery', dateRange: RANGE, series: [{ event: 'signup' }, { event: 'paid' }] };
  const byPerson = await run(store, funnel, { now: NOW });
  const byGroup = await run(store, { ...funnel, aggregation_group_type_index: 0 }, { now: NOW });
  // The person who signed up never paid; their organisation did.
  assert.equal((byPerson.results as { count: number }[]).map((x) => x.count), [1, 0]);
  assert.equal((byGroup.results as { count: number }[]).map((x) => x.count), [1, 1]);
});

s('groups in stickiness (a series\' math unique_group) and lifecycle (aggregation_group_type_index)', async () => {
  const sticky = await run(store, { kind: 'StickinessQuery', dateRange: RANGE, series: [{ event: 'paid', math: 'unique_group', math_group_type_index: 0 }, { event: 'paid' }] }, { now: NOW });
  // acme and globex each pay on one day (the event without a group left out); five persons do.
  assert.equal((sticky.results as { data: number[] }[]).map((r) => r.data.slice(0, 2)), [[2, 0], [5, 0]]);
  // PostHog's StickinessQuery has no aggregation_group_type_index.
  await refused({ kind: 'StickinessQuery', dateRange: RANGE, series: [{ event: 'paid' }], aggregation_group_type_index: 0 }, 'aggregation_group_type_index', /Unknown field/);
  const cycle = await run(store, { kind: 'LifecycleQuery', dateRange: RANGE, series: [{ event: 'paid' }], aggregation_group_type_index: 0 }, { now: NOW });
  const status = (name: string) => (cycle.results as { status: string; data: number[] }[]).find((r) => r.status === name)!.data.slice(0, 6);
  // Never identified, neither group is ever new: acme comes on the 3rd, globex on the 4th, each for a day.
  assert.equal([status('new'), status('resurrecting'), status('dormant')], [[0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, -1, -1, 0]]);
});

s('funnels, stickiness and lifecycle refuse a math they would ignore', async () => {
  const series = [{ event: 'paid', math: 'sum', math_property: 'n' }, { event: 'paid' }];
  await refused({ kind: 'FunnelsQuery', dateRange: RANGE, series }, 'series.0.math', /not supported by hedgerow in funnels/);
  await refused({ kind: 'StickinessQuery', dateRange: RANGE, series: [{ event: 'paid', math: 'weekly_active' }] }, 'series.0.math', /in stickiness/);
  await refused({ kind: 'LifecycleQuery', dateRange: RANGE, series: [{ event: 'paid', math: 'weekly_active' }] }, 'series.0.math', /in lifecycle/);
  // total and dau are what these kinds count anyway.
  const funnel = await run(store, { kind: 'FunnelsQuery', dateRange: RANGE, series: [{ event: 'paid', math: 'dau' }, { event: 'paid', math: 'total' }] }, { now: NOW });
  assert.is((funnel.results as { count: number }[])[0].count, 5);
});

s.run();
