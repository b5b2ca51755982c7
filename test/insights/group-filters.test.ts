// Group property filters (`{type: "group", group_type_index: N, key, …}`): an event matches
// when the group of that type it names ($group_N) has the property as the columnar store
// holds the group now; an event without such a group has no value. Date operators decide
// over the groups' distinct values as for events and persons.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ev, PROJECT, run, storePerSuite, type TestStore } from './helpers.js';

const s = suite('insights: group property filters');
let store: TestStore;
const NOW = '2024-06-10T12:00:00Z';

storePerSuite(s, async (opened) => {
  store = opened;
  await store.loader.load({
    events: [
      ev(1, 'paid', '2024-06-03T10:00:00Z', { $group_0: 'acme', $group_1: 'acme' }),
      ev(2, 'paid', '2024-06-03T11:00:00Z', { $group_0: 'globex' }),
      ev(3, 'paid', '2024-06-04T10:00:00Z', { $group_0: 'initech' }),
      ev(4, 'paid', '2024-06-04T11:00:00Z'),
    ],
    groups: [
      { project_id: PROJECT, type_index: 0, key: 'acme', created_at: '2024-01-01T00:00:00Z', properties: { industry: 'tech', founded: '2001-05-01' } },
      { project_id: PROJECT, type_index: 0, key: 'globex', created_at: '2024-01-01T00:00:00Z', properties: { industry: 'energy', founded: '1990-01-01' } },
      // Another type's group of the same key: not the organisation.
      { project_id: PROJECT, type_index: 1, key: 'acme', created_at: '2024-01-01T00:00:00Z', properties: { industry: 'retail' } },
      // Another project's group of the same type and key.
      { project_id: PROJECT + 1, type_index: 0, key: 'initech', created_at: '2024-01-01T00:00:00Z', properties: { industry: 'tech' } },
    ],
  });
});

async function count(properties: unknown): Promise<number> {
  const r = await run(store, {
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'paid' }], trendsFilter: { display: 'BoldNumber' },
    dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, properties,
  }, { now: NOW });
  return (r.results as { aggregated_value: number }[])[0].aggregated_value;
}

const group = (index: number, key: string, operator: string, value: unknown) => ({ type: 'group', group_type_index: index, key, operator, value });

s('an event matches by its group of the filter\'s type, in its own project', async () => {
  assert.is(await count([group(0, 'industry', 'exact', 'tech')]), 1);
  assert.is(await count([group(1, 'industry', 'exact', 'retail')]), 1);
  assert.is(await count([group(0, 'industry', 'is_not', 'tech')]), 3);
  assert.is(await count([group(0, 'industry', 'is_set', null)]), 2);
});

s('date operators decide over the groups\' values', async () => {
  assert.is(await count([group(0, 'founded', 'is_date_before', '2000-01-01')]), 1);
});

s('a group filter without its type index is refused naming it', async () => {
  try {
    await count([{ type: 'group', key: 'industry', operator: 'exact', value: 'tech' }]);
    assert.unreachable('accepted');
  } catch (err) {
    assert.match((err as Error).message, /group_type_index/);
    assert.is((err as { attr?: string }).attr, 'properties.0.group_type_index');
  }
});

s('a breakdown by a group property: each event under its group\'s value, none without one', async () => {
  const r = await run(store, {
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'paid' }], trendsFilter: { display: 'BoldNumber' },
    dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, breakdownFilter: { breakdown_type: 'group', breakdown_group_type_index: 0, breakdown: 'industry' },
  }, { now: NOW });
  const values = (r.results as { breakdown_value: string; aggregated_value: number }[]).map((x) => [x.breakdown_value, x.aggregated_value]).sort();
  assert.equal(values, [['$$_posthog_breakdown_null_$$', 2], ['energy', 1], ['tech', 1]]);
  try {
    await run(store, {
      kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'paid' }], breakdownFilter: { breakdown_type: 'group', breakdown: 'industry' },
    }, { now: NOW });
    assert.unreachable('accepted');
  } catch (err) {
    assert.is((err as { attr?: string }).attr, 'breakdownFilter.breakdown_group_type_index');
  }
});

s.run();
