// EventsQuery: HogQL select / where / orderBy over the project's events, limit and offset
// with hasMore, aggregations grouped by the plain columns, the default last-24-hours range.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { QueryError } from '../../src/insights/index.js';
import { ev, person, run, PROJECT, type TestStore, storePerSuite } from './helpers.js';

const NOW = '2024-06-15T12:00:00Z';

const q = suite('insights: events query');
let store: TestStore;
storePerSuite(q, async (opened) => {
  store = opened;
  await store.loader.load({
    events: [
      ev(1, '$pageview', '2024-06-15T10:00:00Z', { $browser: 'Chrome', price: 5, plan: 'pro' }),
      ev(2, '$pageview', '2024-06-15T11:00:00Z', { $browser: 'Safari', price: 20 }),
      ev(1, 'purchase', '2024-06-15T11:30:00Z', { price: 30 }),
      ev(3, '$pageview', '2024-06-10T11:00:00Z', { $browser: 'Chrome', price: 40 }),
    ],
    persons: [{ project_id: PROJECT, id: person(1), created_at: '2024-01-01T00:00:00Z', properties: { email: 'one@example.com' } }],
  });
});

const events = (extra: Record<string, unknown>) => ({ kind: 'EventsQuery', ...extra });

q('columns, where, order, limit and offset; the last 24 hours by default', async () => {
  const r = await run(store, events({
    select: ['event', 'properties.$browser', 'properties.price', 'person.properties.email', 'timestamp'],
    where: ['properties.price > 1'], orderBy: ['timestamp ASC'],
  }), { now: NOW });
  assert.equal(r.columns, ['event', 'properties.$browser', 'properties.price', 'person.properties.email', 'timestamp']);
  assert.equal(r.results, [
    ['$pageview', 'Chrome', 5, 'one@example.com', '2024-06-15T10:00:00Z'],
    ['$pageview', 'Safari', 20, null, '2024-06-15T11:00:00Z'],
    ['purchase', null, 30, 'one@example.com', '2024-06-15T11:30:00Z'],
  ]);
  assert.is(r.hasMore, false);
  const page = await run(store, events({ select: ['event'], after: 'all', limit: 2, offset: 1 }), { now: NOW });
  assert.equal(page.results, [['$pageview'], ['$pageview']]);
  assert.is(page.hasMore, true);
  assert.is(page.limit, 2);
  assert.is(page.offset, 1);
});

q('the whole event with *; filters by event, properties and HogQL', async () => {
  const r = await run(store, events({ select: ['*'], event: '$pageview', properties: [{ key: '$browser', value: 'chrome', operator: 'exact', type: 'event' }], after: 'all' }), { now: NOW });
  const rows = r.results as Record<string, unknown>[][];
  assert.is(rows.length, 2);
  assert.equal(rows.map((row) => (row[0] as { properties: { price: number } }).properties.price), [5, 40]);
  const star = rows[0][0] as Record<string, unknown>;
  assert.equal(Object.keys(star).sort(), ['distinct_id', 'elements_chain', 'event', 'person_id', 'properties', 'team_id', 'timestamp', 'uuid']);
  assert.is(star.timestamp, '2024-06-15T10:00:00Z');
  const where = await run(store, events({ select: ['properties.price'], where: ["event = 'purchase' or properties.plan = 'pro'"], orderBy: ['properties.price DESC'], after: 'all' }), { now: NOW });
  assert.equal(where.results, [[30], [5]]);
});

q('aggregations group by the plain columns', async () => {
  const r = await run(store, events({ select: ['event', 'count()', 'sum(properties.price)'], orderBy: ['count() DESC'], after: 'all' }), { now: NOW });
  assert.equal(r.results, [['$pageview', 3, 65], ['purchase', 1, 30]]);
  assert.equal(r.types, ['String', 'UInt64', 'Float64']);
});

q('HogQL text is data; what the engine cannot run is refused with the field named', async () => {
  const r = await run(store, events({ select: ['event'], where: ["properties.plan = 'x'' OR 1=1 --'"], after: 'all' }), { now: NOW });
  assert.equal(r.results, []);
  for (const [bad, attr] of [[{ select: ['nosuchfield'] }, 'select.0'], [{ select: ['event'], where: ['sleep(10)'] }, 'where.0'], [{ select: ['event', 'count('] }, 'select.1']] as const) {
    try {
      await run(store, events(bad), { now: NOW });
      assert.unreachable();
    } catch (err) {
      assert.instance(err, QueryError);
      assert.is((err as QueryError).attr, attr);
    }
  }
});

q.run();

// Instants in answers, on a store of their own.
const instants = suite('insights: events query instants');
let ticks: TestStore;
storePerSuite(instants, async (opened) => {
  ticks = opened;
  await ticks.loader.load({ events: [ev(4, 'tick', '2024-06-15T10:00:00.123Z', {}), ev(4, 'tick', '2024-06-15T10:00:01Z', {})] });
});

instants('as PostHog writes them: on the project\'s wall clock with its offset, a fraction only when there is one', async () => {
  const utc = await run(ticks, events({ select: ['timestamp'], event: 'tick', orderBy: ['timestamp ASC'] }), { now: NOW });
  assert.equal(utc.results, [['2024-06-15T10:00:00.123000Z'], ['2024-06-15T10:00:01Z']]);
  const tokyo = await run(ticks, events({ select: ['*', 'timestamp'], event: 'tick', orderBy: ['timestamp ASC'] }), { now: NOW, timezone: 'Asia/Tokyo' });
  const rows = tokyo.results as [Record<string, unknown>, string][];
  assert.equal(rows.map((r) => r[1]), ['2024-06-15T19:00:00.123000+09:00', '2024-06-15T19:00:01+09:00']);
  assert.is(rows[0][0].timestamp, '2024-06-15T19:00:00.123000+09:00');
});

instants.run();
