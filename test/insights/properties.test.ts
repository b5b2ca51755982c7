// Property filters in queries follow the flag operators' semantics (case-insensitive exact,
// negative operators matching an absent property, numbers read from text, semver, dates,
// guarded regexes), and property names and values are data: SQL in them stays text.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TrendsItem } from '../../src/insights/index.js';
import { ev, person, run, PROJECT, type TestStore, storePerSuite } from './helpers.js';

const NOW = '2024-06-15T12:00:00Z';

const p = suite('insights: property filters');
let store: TestStore;
storePerSuite(p, async (opened) => {
  store = opened;
  await store.loader.load({
    events: [
      ev(1, 'e', '2024-06-15T10:00:00Z', { plan: 'Pro', n: 5, version: '1.2.3', signup: '2024-01-10', flag: true, url: 'https://a.com/x', 'a/b~c': 'v' }),
      ev(2, 'e', '2024-06-15T10:00:00Z', { plan: 'free', n: '15', version: '1.10.0', signup: '2024-03-01', flag: 'false', url: 'https://b.com/' }),
      ev(3, 'e', '2024-06-15T10:00:00Z', { n: 'abc', version: 'x' }),
      ev(4, 'e', '2024-06-15T10:00:00Z', { plan: null }),
    ],
    persons: [
      { project_id: PROJECT, id: person(1), created_at: '2024-01-01T00:00:00Z', properties: { email: 'one@example.com' } },
      { project_id: PROJECT, id: person(2), created_at: '2024-01-01T00:00:00Z', properties: { email: 'two@elsewhere.org' } },
    ],
  });
});

async function count(properties: unknown): Promise<number> {
  const r = await run(store, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'e' }], dateRange: { date_from: 'dStart' }, properties }, { now: NOW });
  return (r.results as TrendsItem[])[0].count;
}

const cases: [string, string, unknown, number][] = [
  ['plan', 'exact', 'pro', 1],
  ['plan', 'exact', ['pro', 'FREE'], 2],
  ['plan', 'is_not', 'pro', 3],
  ['plan', 'icontains', 'R', 2],
  ['plan', 'not_icontains', 'ree', 3],
  ['plan', 'regex', '^P', 1],
  ['plan', 'not_regex', '^P', 3],
  ['plan', 'regex', '(', 0],
  ['plan', 'not_regex', '(', 2],
  ['n', 'gt', 10, 1],
  ['n', 'lt', '10', 1],
  ['n', 'gte', 5, 2],
  ['n', 'between', [1, 10], 1],
  ['n', 'not_between', [1, 10], 2],
  ['plan', 'is_set', null, 2],
  ['plan', 'is_not_set', null, 2],
  ['version', 'semver_gt', '1.5.0', 1],
  ['version', 'semver_caret', '1.2.0', 2],
  ['version', 'semver_eq', '1.2.3', 1],
  ['signup', 'is_date_before', '2024-02-01', 1],
  ['signup', 'is_date_after', '2024-02-01', 1],
  ['flag', 'exact', true, 1],
  ['flag', 'exact', false, 1],
  ['url', 'starts_with', 'HTTPS://A', 1],
  ['url', 'ends_with', '.com/', 1],
  ['url', 'icontains_multi', ['a.com', 'b.com'], 2],
  ['plan', 'exact', null, 0],
  ['a/b~c', 'exact', 'v', 1],
];

for (const [key, operator, value, expected] of cases) {
  p(`${operator} ${JSON.stringify(value)} on ${key}: ${expected}`, async () => {
    assert.is(await count([{ key, operator, value, type: 'event' }]), expected);
  });
}

p('AND / OR groups nest', async () => {
  const or = { type: 'OR', values: [{ key: 'plan', value: 'pro', type: 'event' }, { key: 'plan', value: 'free', type: 'event' }] };
  assert.is(await count(or), 2);
  assert.is(await count({ type: 'AND', values: [or, { type: 'AND', values: [{ key: 'n', operator: 'gt', value: 10, type: 'event' }] }] }), 1);
  assert.is(await count([]), 4);
});

p('person properties are the person’s current ones', async () => {
  assert.is(await count([{ key: 'email', operator: 'icontains', value: 'example.com', type: 'person' }]), 1);
  assert.is(await count([{ key: 'email', operator: 'is_not_set', type: 'person' }]), 2);
});

p('SQL in property names and values is data', async () => {
  const hostile = "x'); DROP TABLE events; --";
  assert.is(await count([{ key: hostile, operator: 'exact', value: "' OR 1=1 --", type: 'event' }]), 0);
  assert.is(await count([{ key: 'plan', operator: 'exact', value: "pro' OR '1'='1", type: 'event' }]), 0);
  assert.is(await count([{ key: '$browser"; SELECT 1; --', operator: 'is_not_set', type: 'event' }]), 4);
  assert.is(await count([{ key: 'plan', operator: 'regex', value: "') OR TRUE --", type: 'event' }]), 0);
  const r = await run(store, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: "e' OR '1'='1" }], dateRange: { date_from: 'dStart' }, breakdownFilter: { breakdown: "plan') --" } }, { now: NOW });
  assert.equal(r.results, []);
  // The table is still there and whole.
  assert.is(await count([]), 4);
});

p('unsupported filter types and operators are refused with the field named', async () => {
  try {
    await count([{ key: 'x', operator: 'exact', value: 1, type: 'session' }]);
    assert.unreachable();
  } catch (err) {
    assert.match(String((err as Error).message), 'not supported');
    assert.is((err as { attr: string }).attr, 'properties.0');
  }
  try {
    await count([{ key: 'x', operator: 'sounds_like', value: 1, type: 'event' }]);
    assert.unreachable();
  } catch (err) {
    assert.match(String((err as Error).message), 'Unknown property operator');
  }
});

p.run();
