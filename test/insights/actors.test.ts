// ActorsQuery: the persons (or groups) behind each number of an insight, on a generated event
// set: for every cell of trends, funnels, retention, stickiness and lifecycle results the
// listed actors are exactly as many as the number counts (and for event counts, their
// events sum to it); then paging, search, persons directly, and the fields refused.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FunnelStep, LifecycleItem, RetentionRow, StickinessItem, TrendsItem } from '../../src/insights/index.js';
import { QueryError } from '../../src/insights/index.js';
import type { ColumnarEvent } from '../../src/insights/columnar/stage.js';
import { ev, person, run, PROJECT, type TestStore, storePerSuite } from './helpers.js';

const NOW = '2024-06-15T12:00:00Z';
const RANGE = { date_from: '2024-06-01', date_to: '2024-06-14' };
const BROWSERS = ['Chrome', 'Safari', 'Firefox'];
const PERSONS = 40;

const s = suite('insights: actors behind the numbers');
let store: TestStore;
const events: ColumnarEvent[] = [];

// A seeded generator: the same event set every run.
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

storePerSuite(s, async (opened) => {
  store = opened;
  const next = random(29);
  for (let n = 1; n <= PERSONS; n++) {
    const browser = BROWSERS[n % 3];
    const company = `company-${n % 5}`;
    const activeDays = 1 + Math.floor(next() * 8);
    for (let i = 0; i < activeDays; i++) {
      const day = 1 + Math.floor(next() * 14);
      const at = (h: number) => `2024-06-${String(day).padStart(2, '0')}T${String(h).padStart(2, '0')}:${String(Math.floor(next() * 60)).padStart(2, '0')}:00Z`;
      const props = { $browser: next() < 0.8 ? browser : BROWSERS[(n + 1) % 3], ...(n % 4 === 0 ? {} : { $group_0: company }) };
      events.push(ev(n, '$pageview', at(8), props, n % 2 ? `user-${n}` : `anon-${n}`));
      if (next() < 0.6) events.push(ev(n, 'signup', at(10), props));
      if (next() < 0.35) events.push(ev(n, 'purchase', at(12), props));
      if (next() < 0.3) events.push(ev(n, '$pageview', at(14), props));
    }
  }
  await store.loader.load({
    events,
    persons: Array.from({ length: PERSONS }, (_, i) => ({
      project_id: PROJECT, id: person(i + 1), created_at: `2024-06-${String(1 + (i % 14)).padStart(2, '0')}T00:00:00Z`,
      properties: { email: `person${i + 1}@example.com`, name: `Person ${i + 1}`, plan: i % 2 ? 'pro' : 'free' }, is_identified: i % 3 === 0,
    })),
    distinctIds: Array.from({ length: PERSONS }, (_, i) => [
      { project_id: PROJECT, distinct_id: `user-${i + 1}`, person_id: person(i + 1) },
      { project_id: PROJECT, distinct_id: `anon-${i + 1}`, person_id: person(i + 1) },
    ]).flat(),
    groups: Array.from({ length: 5 }, (_, i) => ({ project_id: PROJECT, type_index: 0, key: `company-${i}`, created_at: '2024-05-01T00:00:00Z', properties: { name: `Company ${i}` } })),
  });
});

interface Actors { results: unknown[][]; columns: string[]; hasMore: boolean; limit: number; offset: number }

async function actors(source: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Actors> {
  return await run(store, { kind: 'ActorsQuery', source, limit: 1000, ...extra }, { now: NOW }) as unknown as Actors;
}

const column = (r: Actors, name: string) => r.results.map((row) => row[r.columns.indexOf(name)]);
const sum = (xs: unknown[]) => xs.reduce<number>((a, b) => a + Number(b), 0);

s('trends: the actors of each day (and breakdown value, and previous period) are as many as the series counts; their events sum to the total', async () => {
  const trends = { kind: 'TrendsQuery', dateRange: RANGE, interval: 'day', series: [{ event: '$pageview', math: 'dau' }, { event: 'signup' }], breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 }, compareFilter: { compare: true } };
  const result = (await run(store, trends, { now: NOW })).results as TrendsItem[];
  let checked = 0;
  for (const item of result) {
    for (let i = 0; i < item.days.length; i += 3) {
      const r = await actors({ kind: 'InsightActorsQuery', source: trends, series: item.action!.order, day: item.days[i], breakdown: item.breakdown_value, compare: item.compare_label });
      if (item.action!.order === 0) assert.is(r.results.length, item.data[i], `dau ${item.label} ${item.days[i]} ${item.compare_label}`);
      else assert.is(sum(column(r, 'event_count')), item.data[i], `total ${item.label} ${item.days[i]}`);
      checked += item.data[i] > 0 ? 1 : 0;
    }
  }
  assert.ok(checked > 10, 'cells with actors were checked');
  // "other" is the values past breakdown_limit: its actors are those of the folded values.
  assert.ok(result.some((i) => i.breakdown_value === '$$_posthog_breakdown_other_$$'));
});

s('trends: weekly active users, unique groups and the total value displays', async () => {
  const wau = { kind: 'TrendsQuery', dateRange: RANGE, series: [{ event: '$pageview', math: 'weekly_active' }] };
  const item = ((await run(store, wau, { now: NOW })).results as TrendsItem[])[0];
  for (const i of [0, 6, 13]) assert.is((await actors({ kind: 'InsightActorsQuery', source: wau, day: item.days[i] })).results.length, item.data[i]);

  const groups = { kind: 'TrendsQuery', dateRange: RANGE, series: [{ event: 'signup', math: 'unique_group', math_group_type_index: 0 }], trendsFilter: { display: 'BoldNumber' } };
  const total = ((await run(store, groups, { now: NOW })).results as TrendsItem[])[0].aggregated_value!;
  const r = await actors({ kind: 'InsightActorsQuery', source: groups });
  assert.is(r.results.length, total);
  const actor = r.results[0][0] as Record<string, unknown>;
  assert.is(actor.type, 'group');
  assert.is(actor.group_type_index, 0);
  assert.match(String(actor.id), /^company-\d$/);
  assert.equal(actor.properties, { name: `Company ${String(actor.id).slice(-1)}` });

  const aggregated = { kind: 'TrendsQuery', dateRange: RANGE, aggregation_group_type_index: 0, series: [{ event: '$pageview', math: 'dau' }], trendsFilter: { display: 'ActionsTable' } };
  const value = ((await run(store, aggregated, { now: NOW })).results as TrendsItem[])[0].aggregated_value!;
  assert.is((await actors({ kind: 'InsightActorsQuery', source: aggregated })).results.length, value);
});

s('funnels: who reached each step and who dropped off at it, per breakdown value, are the step counts', async () => {
  const funnel = { kind: 'FunnelsQuery', dateRange: RANGE, series: [{ event: '$pageview' }, { event: 'signup' }, { event: 'purchase' }], funnelsFilter: { funnelWindowInterval: 2, funnelWindowIntervalUnit: 'day' } };
  const steps = (await run(store, funnel, { now: NOW })).results as FunnelStep[];
  for (let k = 1; k <= 3; k++) {
    assert.is((await actors({ kind: 'FunnelsActorsQuery', source: funnel, funnelStep: k })).results.length, steps[k - 1].count, `reached ${k}`);
    if (k > 1) assert.is((await actors({ kind: 'FunnelsActorsQuery', source: funnel, funnelStep: -k })).results.length, steps[k - 2].count - steps[k - 1].count, `dropped ${k}`);
  }
  assert.ok(steps[2].count > 0 && steps[1].count > steps[2].count);
  // The same through an InsightActorsQuery.
  assert.is((await actors({ kind: 'InsightActorsQuery', source: funnel, funnelStep: 2 })).results.length, steps[1].count);

  for (const attribution of ['first_touch', 'all_events']) {
    const broken = { ...funnel, breakdownFilter: { breakdown: '$browser' }, funnelsFilter: { ...funnel.funnelsFilter, breakdownAttributionType: attribution } };
    const lists = (await run(store, broken, { now: NOW })).results as FunnelStep[][];
    for (const list of lists) {
      for (const k of [1, 3, -2]) {
        const r = await actors({ kind: 'FunnelsActorsQuery', source: broken, funnelStep: k, funnelStepBreakdown: list[0].breakdown_value });
        const expected = k > 0 ? list[k - 1].count : list[-k - 2].count - list[-k - 1].count;
        assert.is(r.results.length, expected, `${attribution} ${String(list[0].breakdown_value)} step ${k}`);
      }
    }
  }
});

s('retention: a cohort row\'s actors are its size, and those with period k among their appearances are its value k', async () => {
  for (const retentionType of ['retention_first_time', 'retention_recurring']) {
    const retention = { kind: 'RetentionQuery', dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, retentionFilter: { period: 'Day', totalIntervals: 5, retentionType, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: 'signup', type: 'events' } } };
    const rows = (await run(store, retention, { now: NOW })).results as RetentionRow[];
    for (let i = 0; i < rows.length; i += 2) {
      const r = await actors({ kind: 'InsightActorsQuery', source: retention, interval: i });
      assert.equal(r.columns, ['actor', 'appearances']);
      const appearances = column(r, 'appearances') as number[][];
      rows[i].values.forEach((v, k) => assert.is(appearances.filter((a) => a.includes(k)).length, v.count, `${retentionType} row ${i} value ${k}`));
    }
  }
  const broken = { kind: 'RetentionQuery', dateRange: { date_from: '2024-06-01', date_to: '2024-06-05' }, breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 }, retentionFilter: { period: 'Day', totalIntervals: 3, retentionType: 'retention_recurring' } };
  const rows = (await run(store, broken, { now: NOW })).results as RetentionRow[];
  for (const row of rows) {
    const i = Number(row.label.split(' ')[1]);
    const r = await actors({ kind: 'InsightActorsQuery', source: broken, interval: i, breakdown: row.breakdown_value });
    const distinct = new Set(r.results.map((x) => (x[0] as { id: string }).id));
    // "other" folds several values: one person can be in its cohort once per value.
    if (row.breakdown_value !== '$$_posthog_breakdown_other_$$') assert.is(r.results.length, row.values[0].count);
    else assert.ok(distinct.size <= row.values[0].count);
  }
});

s('stickiness and lifecycle: each bar\'s actors are its count', async () => {
  const sticky = { kind: 'StickinessQuery', dateRange: RANGE, series: [{ event: '$pageview' }, { event: 'signup' }] };
  const items = (await run(store, sticky, { now: NOW })).results as StickinessItem[];
  for (const item of items) {
    for (let n = 1; n <= 6; n++) {
      const r = await actors({ kind: 'InsightActorsQuery', source: sticky, series: item.action.order, day: n });
      assert.is(r.results.length, item.data[n - 1], `${item.label} ${n}`);
    }
  }
  const lifecycle = { kind: 'LifecycleQuery', dateRange: { date_from: '2024-06-03', date_to: '2024-06-14' }, series: [{ event: '$pageview' }] };
  const statuses = (await run(store, lifecycle, { now: NOW })).results as LifecycleItem[];
  let seen = 0;
  for (const item of statuses) {
    for (let i = 0; i < item.days.length; i += 2) {
      const r = await actors({ kind: 'InsightActorsQuery', source: lifecycle, day: item.days[i], status: item.status });
      assert.is(r.results.length, Math.abs(item.data[i]), `${item.status} ${item.days[i]}`);
      seen += r.results.length;
    }
  }
  assert.ok(seen > 0);
});

s('math *_count_per_actor: per day each person\'s events, then their average, extremes and interpolated quantiles (from the event set itself), and the actors behind it', async () => {
  const quantile = (xs: number[], q: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const at = (sorted.length - 1) * q;
    const lo = Math.floor(at);
    return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
  };
  const expected: Record<string, (xs: number[]) => number> = {
    avg_count_per_actor: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length, min_count_per_actor: (xs) => Math.min(...xs), max_count_per_actor: (xs) => Math.max(...xs),
    median_count_per_actor: (xs) => quantile(xs, 0.5), p90_count_per_actor: (xs) => quantile(xs, 0.9), p99_count_per_actor: (xs) => quantile(xs, 0.99),
  };
  const maths = Object.keys(expected);
  const trends = { kind: 'TrendsQuery', dateRange: RANGE, series: maths.map((math) => ({ event: '$pageview', math })) };
  const items = (await run(store, trends, { now: NOW })).results as TrendsItem[];
  let days = 0;
  items[0].days.forEach((day, i) => {
    const perPerson = new Map<string, number>();
    for (const e of events) if (e.event === '$pageview' && e.timestamp.startsWith(day)) perPerson.set(e.person_id, (perPerson.get(e.person_id) ?? 0) + 1);
    const counts = [...perPerson.values()];
    if (counts.length > 0) days++;
    maths.forEach((math, k) => assert.ok(Math.abs(items[k].data[i] - (counts.length ? expected[math](counts) : 0)) < 1e-9, `${math} ${day}: ${items[k].data[i]}`));
  });
  assert.ok(days > 5);
  const day = items[0].days[4];
  const r = await actors({ kind: 'InsightActorsQuery', source: trends, series: 2, day });
  assert.is(Math.max(...(column(r, 'event_count') as number[])), items[2].data[4]);
  // A total over the range, by group.
  const grouped = { kind: 'TrendsQuery', dateRange: RANGE, aggregation_group_type_index: 0, series: [{ event: 'signup', math: 'max_count_per_actor' }], trendsFilter: { display: 'BoldNumber' } };
  const byCompany = new Map<string, number>();
  for (const e of events) if (e.event === 'signup' && e.properties.$group_0) byCompany.set(String(e.properties.$group_0), (byCompany.get(String(e.properties.$group_0)) ?? 0) + 1);
  assert.is(((await run(store, grouped, { now: NOW })).results as TrendsItem[])[0].aggregated_value, Math.max(...byCompany.values()));
});

s('math first_time_for_user and first_matching_event_for_user: each person once, at their first (matching) event, from the event set itself; their actors', async () => {
  const chrome = [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }];
  const range = { date_from: '2024-06-05', date_to: '2024-06-14' };
  const trends = { kind: 'TrendsQuery', dateRange: range, series: ['first_time_for_user', 'first_matching_event_for_user'].map((math) => ({ event: 'signup', math, properties: chrome })) };
  const items = (await run(store, trends, { now: NOW })).results as TrendsItem[];
  const expected = (matching: boolean) => {
    const byDay = new Map<string, number>();
    const people = new Map<string, ColumnarEvent[]>();
    for (const e of events) if (e.event === 'signup') people.set(e.person_id, [...(people.get(e.person_id) ?? []), e]);
    for (const list of people.values()) {
      const meets = (e: ColumnarEvent) => e.properties.$browser === 'Chrome';
      const first = Math.min(...list.filter((e) => !matching || meets(e)).map((e) => Date.parse(e.timestamp)));
      const withCondition = Math.min(...list.filter((e) => Date.parse(e.timestamp) >= Date.parse('2024-06-05T00:00:00Z') && meets(e)).map((e) => Date.parse(e.timestamp)));
      if (Number.isFinite(first) && first === withCondition) {
        const day = new Date(first).toISOString().slice(0, 10);
        byDay.set(day, (byDay.get(day) ?? 0) + 1);
      }
    }
    return items[0].days.map((d) => byDay.get(d) ?? 0);
  };
  assert.equal(items[0].data, expected(false));
  assert.equal(items[1].data, expected(true));
  assert.ok(items[1].count > items[0].count, 'a later first Chrome signup counts only as the first matching one');
  const i = items[0].data.findIndex((v) => v > 0);
  assert.is((await actors({ kind: 'InsightActorsQuery', source: trends, series: 0, day: items[0].days[i] })).results.length, items[0].data[i]);
  try {
    await run(store, { ...trends, breakdownFilter: { breakdown: '$browser' } }, { now: NOW });
    assert.unreachable('a breakdown was accepted');
  } catch (err) {
    assert.is((err as { attr?: string }).attr, 'breakdownFilter');
  }
});

s('paging, search and the person actor: PostHog\'s object, limit/offset/hasMore, email, name, distinct id and id', async () => {
  const trends = { kind: 'TrendsQuery', dateRange: RANGE, series: [{ event: '$pageview', math: 'dau' }], trendsFilter: { display: 'BoldNumber' } };
  const all = await actors({ kind: 'InsightActorsQuery', source: trends });
  assert.equal(all.columns, ['actor', 'event_count']);
  const counts = column(all, 'event_count') as number[];
  assert.equal(counts, [...counts].sort((a, b) => b - a), 'most events first');
  const actor = all.results[0][0] as Record<string, unknown>;
  const n = Number(String(actor.id).slice(-12));
  assert.equal(actor, {
    type: 'person', id: person(n), distinct_ids: [`anon-${n}`, `user-${n}`], properties: { email: `person${n}@example.com`, name: `Person ${n}`, plan: n % 2 ? 'free' : 'pro' },
    created_at: `2024-06-${String(1 + ((n - 1) % 14)).padStart(2, '0')}T00:00:00.000Z`, is_identified: (n - 1) % 3 === 0,
  });
  const pages: unknown[] = [];
  for (let offset = 0; ; offset += 7) {
    const page = await actors({ kind: 'InsightActorsQuery', source: trends }, { limit: 7, offset });
    assert.is(page.limit, 7);
    assert.is(page.offset, offset);
    pages.push(...page.results.map((r) => (r[0] as { id: string }).id));
    if (!page.hasMore) break;
  }
  assert.equal(pages, all.results.map((r) => (r[0] as { id: string }).id));
  assert.is(all.hasMore, false);

  const found = async (search: string) => (await actors({ kind: 'InsightActorsQuery', source: trends }, { search })).results.map((r) => (r[0] as { id: string }).id);
  assert.equal(await found(`person${n}@example.com`), [person(n)]);
  assert.ok((await found(`PERSON ${n}`)).includes(person(n)), 'name, any case');
  assert.equal(await found(`anon-${n}`), [person(n)]);
  assert.equal(await found(person(n)), [person(n)]);
  assert.equal(await found('nobody@nowhere'), []);
});

s('ActorsQuery over persons: select, person property filters, orderBy, search', async () => {
  const r = await run(store, { kind: 'ActorsQuery', select: ['id', 'properties.email', 'created_at'], properties: [{ type: 'person', key: 'plan', operator: 'exact', value: 'pro' }], orderBy: ['properties.email ASC'], limit: 5 }, { now: NOW }) as unknown as Actors;
  assert.equal(r.columns, ['id', 'properties.email', 'created_at']);
  assert.is(r.results.length, 5);
  assert.ok(r.hasMore);
  const emails = column(r, 'properties.email') as string[];
  assert.equal(emails, [...emails].sort());
  for (const row of r.results) assert.is(Number(String(row[0]).slice(-12)) % 2, 0, 'pro persons are the even ones');
  const defaults = await run(store, { kind: 'ActorsQuery', search: 'person7@' }, { now: NOW }) as unknown as Actors;
  assert.equal(defaults.columns, ['person', 'id', 'created_at']);
  assert.equal(defaults.results.map((row) => row[1]), [person(7)]);
  const everyone = await run(store, { kind: 'ActorsQuery', select: ['id'], limit: 1000 }, { now: NOW }) as unknown as Actors;
  assert.is(everyone.results.length, PERSONS);
  // A static cohort's persons, by their distinct ids (either of a person's).
  const cohorts = { 5: { id: 5, is_static: true, properties: null, distinctIds: ['user-3', 'anon-4'] } };
  const members = await run(store, { kind: 'ActorsQuery', select: ['id'], properties: [{ type: 'cohort', key: 'id', value: 5 }], orderBy: ['id'] }, { now: NOW, cohorts }) as unknown as Actors;
  assert.equal(members.results.map((row) => row[0]), [person(3), person(4)]);
});

s('refused with the field named: unknown fields, a step or day that is not the insight\'s, what hedgerow does not compute', async () => {
  const funnel = { kind: 'FunnelsQuery', series: [{ event: '$pageview' }, { event: 'signup' }] };
  const trends = { kind: 'TrendsQuery', dateRange: RANGE, series: [{ event: '$pageview' }] };
  const cases: [Record<string, unknown>, string][] = [
    [{ kind: 'ActorsQuery', nonsense: 1 }, 'nonsense'],
    [{ kind: 'FunnelsActorsQuery', source: funnel }, 'source.funnelStep'],
    [{ kind: 'FunnelsActorsQuery', source: funnel, funnelStep: 3 }, 'source.funnelStep'],
    [{ kind: 'FunnelsActorsQuery', source: funnel, funnelStep: 1, funnelTrendsDropOff: true }, 'source.funnelTrendsDropOff'],
    [{ kind: 'InsightActorsQuery', source: trends, day: '2023-01-01' }, 'source.day'],
    [{ kind: 'InsightActorsQuery', source: trends, series: 2, day: '2024-06-02' }, 'source.series'],
    [{ kind: 'InsightActorsQuery', source: trends, day: '2024-06-02', breakdown: 'Chrome' }, 'source.breakdown'],
    [{ kind: 'InsightActorsQuery', source: trends, day: '2024-06-02', funnelStep: 1 }, 'source.funnelStep'],
    [{ kind: 'InsightActorsQuery', source: trends, day: '2024-06-02', compare: 'previous' }, 'source.compare'],
    [{ kind: 'InsightActorsQuery', source: { kind: 'LifecycleQuery', series: [{ event: 'x' }] }, day: '2024-06-02' }, 'source.status'],
    [{ kind: 'InsightActorsQuery', source: { kind: 'RetentionQuery', retentionFilter: {} } }, 'source.interval'],
    [{ kind: 'InsightActorsQuery', source: { kind: 'RetentionQuery', retentionFilter: {} }, interval: 0, day: '2024-06-02' }, 'source.day'],
    [{ kind: 'InsightActorsQuery', source: { kind: 'StickinessQuery', series: [{ event: 'x' }] }, day: 1, breakdown: 'Chrome' }, 'source.breakdown'],
    [{ kind: 'FunnelsActorsQuery', source: funnel, funnelStep: 1, day: '2024-06-02' }, 'source.day'],
    [{ kind: 'InsightActorsQuery', source: { ...trends, series: [{ event: 'x', math: 'bogus' }] }, day: '2024-06-02' }, 'source.source.series.0.math'],
    [{ kind: 'InsightActorsQuery', source: { kind: 'EventsQuery', select: ['*'] } }, 'source.source.kind'],
    [{ kind: 'ActorsQuery', select: ['event_count'] }, 'select.0'],
    [{ kind: 'ActorsQuery', properties: [{ type: 'event', key: '$browser', value: 'Chrome' }] }, 'properties'],
  ];
  for (const [query, attr] of cases) {
    try {
      await run(store, query, { now: NOW });
      assert.unreachable(`${JSON.stringify(query)} was accepted`);
    } catch (err) {
      if (!(err instanceof QueryError)) throw err;
      assert.is(err.attr, attr, err.message);
    }
  }
});

s.run();
