// FunnelsQuery against journeys whose outcome is known by construction: ordered, strict and
// unordered funnels, the conversion window, conversion times, step filters, breakdowns and
// persons merged mid-journey.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FunnelStep } from '../../src/insights/index.js';
import { ev, person, run, PROJECT, type TestStore, storePerTest } from './helpers.js';

const NOW = '2024-06-30T12:00:00Z';
const steps = (...events: (string | Record<string, unknown>)[]) => events.map((e) => (typeof e === 'string' ? { kind: 'EventsNode', event: e } : { kind: 'EventsNode', ...e }));
const funnel = (series: unknown[], extra: Record<string, unknown> = {}) => ({ kind: 'FunnelsQuery', series, dateRange: { date_from: '-30d' }, ...extra });
const counts = (r: { results: unknown }) => (r.results as FunnelStep[]).map((s) => s.count);

const f = suite('insights: funnels');
let store: TestStore;
storePerTest(f, (opened) => { store = opened; });

async function journeys(): Promise<void> {
  await store.loader.load({ events: [
    // 1: all three steps, 5 and 15 minutes apart.
    ev(1, 'signup', '2024-06-10T10:00:00Z'), ev(1, '$pageview', '2024-06-10T10:05:00Z'), ev(1, 'purchase', '2024-06-10T10:20:00Z'),
    // 2: signs up and buys without the page view.
    ev(2, 'signup', '2024-06-10T10:00:00Z'), ev(2, 'purchase', '2024-06-10T10:10:00Z'),
    // 3: a page view before signing up does not count; the one an hour after does.
    ev(3, '$pageview', '2024-06-10T09:00:00Z'), ev(3, 'signup', '2024-06-10T10:00:00Z'), ev(3, '$pageview', '2024-06-10T11:00:00Z'),
    // 4: the page view comes 15 days later, outside the 14-day window.
    ev(4, 'signup', '2024-06-01T10:00:00Z'), ev(4, '$pageview', '2024-06-16T10:00:01Z'),
    // 5: never signs up.
    ev(5, '$pageview', '2024-06-10T10:00:00Z'), ev(5, 'purchase', '2024-06-10T10:01:00Z'),
  ] });
}

f('time_to_convert: PostHog\'s histogram of each person\'s seconds from one step to another (bins, their width, the average); refusals named', async () => {
  await journeys();
  const ttc = async (filter: Record<string, unknown>, series = steps('signup', '$pageview', 'purchase')) =>
    (await run(store, funnel(series, { funnelsFilter: { funnelVizType: 'time_to_convert', ...filter } }), { now: NOW })).results;
  // Only person 1 reaches the purchase, 300 + 900 seconds after signing up: one bin (the
  // cube root of one person), 60 s wide as the span is 0, and the one after it.
  assert.equal(await ttc({}), { bins: [[1200, 1], [1260, 0]], average_conversion_time: 1200 });
  // To the page view: persons 1 (300 s) and 3 (3600 s); two bins of ceil(3300 / 2) s, and one more.
  assert.equal(await ttc({ funnelToStep: 1 }), { bins: [[300, 1], [1950, 0], [3600, 1]], average_conversion_time: 1950 });
  assert.equal(await ttc({ funnelToStep: 1, binCount: 1 }), { bins: [[300, 1], [3600, 1]], average_conversion_time: 1950 });
  assert.equal(await ttc({ funnelFromStep: 1 }), { bins: [[900, 1], [960, 0]], average_conversion_time: 900 });
  assert.equal(await ttc({}, steps('signup', 'never')), { bins: [[0, 0], [1, 0]], average_conversion_time: null });
  for (const [filter, attr] of [[{ funnelToStep: 3 }, 'funnelsFilter.funnelToStep'], [{ funnelFromStep: 2 }, 'funnelsFilter.funnelFromStep'], [{ funnelVizType: 'lifecycle' }, 'funnelsFilter.funnelVizType'], [{ binCount: 'many' }, 'funnelsFilter.binCount']] as const) {
    try {
      await ttc(filter);
      assert.unreachable(JSON.stringify(filter));
    } catch (err) {
      assert.is((err as { attr?: string }).attr, attr, (err as Error).message);
    }
  }
});

async function entrances(): Promise<void> {
  await store.loader.load({ events: [
    // 1: enters on the 10th and converts within the hour.
    ev(1, 'signup', '2024-06-10T09:00:00Z', { $browser: 'Chrome' }), ev(1, 'purchase', '2024-06-10T10:00:00Z'),
    // 2: enters on the 10th, never buys.
    ev(2, 'signup', '2024-06-10T11:00:00Z', { $browser: 'Firefox' }),
    // 3: enters on the 10th and again on the 11th; the one purchase completes both entrances.
    ev(3, 'signup', '2024-06-10T12:00:00Z', { $browser: 'Chrome' }), ev(3, 'signup', '2024-06-11T08:00:00Z', { $browser: 'Chrome' }), ev(3, 'purchase', '2024-06-11T09:00:00Z'),
    // 4: enters on the 11th, never buys.
    ev(4, 'signup', '2024-06-11T10:00:00Z', { $browser: 'Firefox' }),
    // 5: buys without entering.
    ev(5, 'purchase', '2024-06-12T10:00:00Z'),
  ] });
}

f('funnel trends: per entrance day, who reached the last step of those who entered (PostHog\'s rate, days, labels)', async () => {
  await entrances();
  const trend = async (extra: Record<string, unknown> = {}) => (await run(store, funnel(steps('signup', 'purchase'), {
    dateRange: { date_from: '2024-06-10', date_to: '2024-06-12' }, funnelsFilter: { funnelVizType: 'trends' }, ...extra,
  }), { now: NOW })).results;
  // 10th: 1, 2 and 3 entered, 1 and 3 bought: 2/3; 11th: 3 and 4 entered, 3 bought; 12th: nobody entered.
  assert.equal(await trend(), [{
    count: 3, data: [66.67, 50, 0], days: ['2024-06-10', '2024-06-11', '2024-06-12'], labels: ['10-Jun-2024', '11-Jun-2024', '12-Jun-2024'],
  }]);
  // By browser (the person's first): Chrome 1 and 3 always convert, Firefox 2 and 4 never; values in order.
  const broken = await trend({ breakdownFilter: { breakdown: '$browser' } }) as { data: number[]; breakdown_value: unknown }[];
  assert.equal(broken.map((b) => [b.breakdown_value, b.data]), [['Chrome', [100, 100, 0]], ['Firefox', [0, 0, 0]]]);
  // The persons behind a point: who entered that day and converted, or dropped off.
  const who = async (point: Record<string, unknown>, extra: Record<string, unknown> = {}) => ((await run(store, {
    kind: 'ActorsQuery', select: ['id'], orderBy: ['id'],
    source: { kind: 'FunnelsActorsQuery', source: funnel(steps('signup', 'purchase'), { dateRange: { date_from: '2024-06-10', date_to: '2024-06-12' }, funnelsFilter: { funnelVizType: 'trends' }, ...extra }), ...point },
  }, { now: NOW })).results as unknown[][]).map((row) => row[0]);
  assert.equal(await who({ funnelTrendsEntrancePeriodStart: '2024-06-10 00:00:00', funnelTrendsDropOff: false }), [person(1), person(3)]);
  assert.equal(await who({ funnelTrendsEntrancePeriodStart: '2024-06-10 00:00:00', funnelTrendsDropOff: true }), [person(2)]);
  assert.equal(await who({ funnelTrendsEntrancePeriodStart: '2024-06-11', funnelTrendsDropOff: true, funnelStepBreakdown: 'Firefox' }, { breakdownFilter: { breakdown: '$browser' } }), [person(4)]);
  assert.equal(await who({ funnelTrendsEntrancePeriodStart: '2024-06-12', funnelTrendsDropOff: false }), []);
  for (const [point, attr] of [[{ funnelTrendsDropOff: false }, 'source.funnelTrendsEntrancePeriodStart'], [{ funnelTrendsEntrancePeriodStart: '2024-06-10' }, 'source.funnelTrendsDropOff'], [{ funnelTrendsEntrancePeriodStart: '2024-07-01', funnelTrendsDropOff: false }, 'source.funnelTrendsEntrancePeriodStart']] as const) {
    try {
      await who(point);
      assert.unreachable(JSON.stringify(point));
    } catch (err) {
      assert.is((err as { attr?: string }).attr, attr, (err as Error).message);
    }
  }
  // Hours of the 10th (an hourly range ends at date_to's time): 1 entered at 9 and bought at 10;
  // 2 (11h) never bought; 3 (12h) bought after the range.
  const hours = ((await trend({ interval: 'hour', dateRange: { date_from: '2024-06-10', date_to: '2024-06-10 23:59:59' } })) as unknown[])[0] as { count: number; data: number[]; days: string[]; labels: string[] };
  assert.is(hours.count, 24);
  assert.equal(hours.data, Array.from({ length: 24 }, (_, h) => (h === 9 ? 100 : 0)));
  assert.equal([hours.days[9], hours.labels[9]], ['2024-06-10 09:00:00', '10-Jun-2024']);
  // The entrance period is the interval: in the one month, 1 and 3 of the four who entered bought.
  assert.equal(await trend({ interval: 'month' }), [{ count: 1, data: [50], days: ['2024-06-01'], labels: ['1-Jun-2024'] }]);
});

f('funnel trends: funnelFromStep and funnelToStep choose the rate\'s steps; weeks start on Sunday; bad steps refused', async () => {
  await store.loader.load({ events: [
    ev(1, 'signup', '2024-06-03T10:00:00Z'), ev(1, '$pageview', '2024-06-03T11:00:00Z'), ev(1, 'purchase', '2024-06-04T10:00:00Z'),
    ev(2, 'signup', '2024-06-04T10:00:00Z'), ev(2, '$pageview', '2024-06-05T10:00:00Z'),
    ev(3, 'signup', '2024-06-05T10:00:00Z'),
    ev(4, 'signup', '2024-06-10T10:00:00Z'), ev(4, '$pageview', '2024-06-10T11:00:00Z'), ev(4, 'purchase', '2024-06-11T10:00:00Z'),
  ] });
  const trend = async (filter: Record<string, unknown>) => (await run(store, funnel(steps('signup', '$pageview', 'purchase'), {
    interval: 'week', dateRange: { date_from: '2024-06-02', date_to: '2024-06-15' }, funnelsFilter: { funnelVizType: 'trends', ...filter },
  }), { now: NOW })).results as { data: number[]; days: string[]; labels: string[] }[];
  // Weeks of the 2nd and the 9th: 1 of 3 then 1 of 1 bought.
  const all = await trend({});
  assert.equal([all[0].data, all[0].days, all[0].labels], [[33.33, 100], ['2024-06-02', '2024-06-09'], ['2-Jun-2024', '9-Jun-2024']]);
  // From the page view: of 1 and 2 (who viewed), 1 bought.
  assert.equal((await trend({ funnelFromStep: 1 }))[0].data, [50, 100]);
  // To the page view: 2 of 3, then 1 of 1.
  assert.equal((await trend({ funnelToStep: 1 }))[0].data, [66.67, 100]);
  for (const [filter, attr] of [[{ funnelToStep: 3 }, 'funnelsFilter.funnelToStep'], [{ funnelFromStep: 2 }, 'funnelsFilter.funnelFromStep']] as const) {
    try {
      await trend(filter);
      assert.unreachable(JSON.stringify(filter));
    } catch (err) {
      assert.is((err as { attr?: string }).attr, attr, (err as Error).message);
    }
  }
});

async function cancellations(): Promise<void> {
  await store.loader.load({ events: [
    // 1: cancels between signing up and buying: that try is disqualified, and it is their only one.
    ev(1, 'signup', '2024-06-10T10:00:00Z'), ev(1, 'cancel', '2024-06-10T10:30:00Z'), ev(1, 'purchase', '2024-06-10T11:30:00Z'),
    // 2: cancels only after buying.
    ev(2, 'signup', '2024-06-10T10:00:00Z'), ev(2, 'purchase', '2024-06-10T11:00:00Z'), ev(2, 'cancel', '2024-06-10T12:00:00Z'),
    // 3: cancels within the window and never buys: disqualified too.
    ev(3, 'signup', '2024-06-10T10:00:00Z'), ev(3, 'cancel', '2024-06-10T11:00:00Z'),
    // 4: cancels after the 14-day window of their try: still counts at step 1.
    ev(4, 'signup', '2024-06-01T10:00:00Z'), ev(4, 'cancel', '2024-06-20T10:00:00Z'),
    // 5: a first try cancelled, a second one clean.
    ev(5, 'signup', '2024-06-10T09:00:00Z'), ev(5, 'cancel', '2024-06-10T09:30:00Z'), ev(5, 'signup', '2024-06-10T10:00:00Z'), ev(5, 'purchase', '2024-06-10T11:00:00Z'),
  ] });
}
const cancel = { kind: 'EventsNode', event: 'cancel', funnelFromStep: 0, funnelToStep: 1 };

f('exclusions: a try with the excluded event between its steps counts nowhere; ordered, strict, unordered; actors too', async () => {
  await cancellations();
  const q = (filter: Record<string, unknown>) => funnel(steps('signup', 'purchase'), { funnelsFilter: filter });
  assert.equal(counts(await run(store, q({}), { now: NOW })), [5, 3]);
  const ordered = await run(store, q({ exclusions: [cancel] }), { now: NOW });
  assert.equal(counts(ordered), [3, 2]);
  assert.is((ordered.results as FunnelStep[])[1].average_conversion_time, 3600);
  // Strict: 1's and 5's first tries break at the cancel anyway, and are disqualified as well.
  assert.equal(counts(await run(store, q({ funnelOrderType: 'strict' }), { now: NOW })), [5, 2]);
  assert.equal(counts(await run(store, q({ funnelOrderType: 'strict', exclusions: [cancel] }), { now: NOW })), [3, 2]);
  // Unordered: a try may start at the purchase, after which 1 cancels no more: 1 counts at step 1.
  assert.equal(counts(await run(store, q({ funnelOrderType: 'unordered', exclusions: [cancel] }), { now: NOW })), [4, 2]);
  // The exclusion's own filters narrow what it matches.
  assert.equal(counts(await run(store, q({ exclusions: [{ ...cancel, properties: [{ key: 'reason', value: 'price', operator: 'exact', type: 'event' }] }] }), { now: NOW })), [5, 3]);
  // The actors of a step are those counted there.
  const who = await run(store, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: q({ exclusions: [cancel] }), funnelStep: 1 }, select: ['actor'], limit: 100 }, { now: NOW });
  assert.is((who.results as unknown[]).length, 3);
  const dropped = await run(store, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: q({ exclusions: [cancel] }), funnelStep: -2 }, select: ['actor'], limit: 100 }, { now: NOW });
  assert.is((dropped.results as unknown[]).length, 1);
});

f('exclusions with a breakdown: a person\'s value comes from their step events, not from an excluded one', async () => {
  await store.loader.load({ events: [
    ev(1, 'cancel', '2024-06-10T08:00:00Z', { $browser: 'Opera' }), ev(1, 'signup', '2024-06-10T09:00:00Z', { $browser: 'Chrome' }), ev(1, 'purchase', '2024-06-10T10:00:00Z'),
    ev(2, 'signup', '2024-06-10T09:00:00Z', { $browser: 'Chrome' }), ev(2, 'cancel', '2024-06-10T09:30:00Z', { $browser: 'Opera' }),
  ] });
  const r = await run(store, funnel(steps('signup', 'purchase'), { breakdownFilter: { breakdown: '$browser' }, funnelsFilter: { exclusions: [cancel] } }), { now: NOW });
  // 1's cancel comes before their signup: it neither disqualifies them nor names their browser; 2 is disqualified.
  assert.equal((r.results as FunnelStep[][]).map((list) => [list[0].breakdown_value, list.map((x) => x.count)]), [['Chrome', [1, 1]]]);
});

f('exclusions in the time_to_convert and trends views; ranges checked as PostHog checks them', async () => {
  await cancellations();
  const q = (filter: Record<string, unknown>, series = steps('signup', 'purchase')) => funnel(series, { funnelsFilter: filter });
  // Without: 1 (5400 s), 2 and 5 (3600 s each); with, 1 is gone.
  assert.equal((await run(store, q({ funnelVizType: 'time_to_convert' }), { now: NOW })).results, { bins: [[3600, 2], [4500, 0], [5400, 1]], average_conversion_time: 4200 });
  assert.equal((await run(store, q({ funnelVizType: 'time_to_convert', exclusions: [cancel] }), { now: NOW })).results, { bins: [[3600, 2], [3660, 0], [3720, 0]], average_conversion_time: 3600 });
  // Trends on the 10th: 1, 2, 3 and 5 entered, 1, 2 and 5 bought; with the exclusion 2 and 5 entered and bought.
  const day = { dateRange: { date_from: '2024-06-10', date_to: '2024-06-10' } };
  assert.equal(((await run(store, { ...q({ funnelVizType: 'trends' }), ...day }, { now: NOW })).results as { data: number[] }[])[0].data, [75]);
  assert.equal(((await run(store, { ...q({ funnelVizType: 'trends', exclusions: [cancel] }), ...day }, { now: NOW })).results as { data: number[] }[])[0].data, [100]);
  const three = steps('signup', '$pageview', 'purchase');
  for (const [filter, series, attr] of [
    [{ exclusions: [{ ...cancel, funnelFromStep: 1 }] }, undefined, 'funnelsFilter.exclusions.0.funnelToStep'],
    [{ exclusions: [{ ...cancel, funnelToStep: 2 }] }, undefined, 'funnelsFilter.exclusions.0.funnelToStep'],
    [{ exclusions: [{ ...cancel, event: 'purchase' }] }, undefined, 'funnelsFilter.exclusions.0'],
    [{ funnelOrderType: 'unordered', exclusions: [cancel] }, three, 'funnelsFilter.exclusions.0.funnelFromStep'],
  ] as const) {
    try {
      await run(store, q(filter, series), { now: NOW });
      assert.unreachable(JSON.stringify(filter));
    } catch (err) {
      assert.is((err as { attr?: string }).attr, attr, (err as Error).message);
    }
  }
});

f('ordered: counts per step, conversion times in seconds from the previous step', async () => {
  await journeys();
  const r = await run(store, funnel(steps('signup', '$pageview', 'purchase')), { now: NOW });
  const result = r.results as FunnelStep[];
  assert.equal(counts(r), [4, 2, 1]);
  assert.equal(result.map((s) => [s.action_id, s.name, s.order, s.type]), [['signup', 'signup', 0, 'events'], ['$pageview', '$pageview', 1, 'events'], ['purchase', 'purchase', 2, 'events']]);
  assert.is(result[0].average_conversion_time, null);
  assert.is(result[1].average_conversion_time, (300 + 3600) / 2);
  assert.is(result[1].median_conversion_time, (300 + 3600) / 2);
  assert.is(result[2].average_conversion_time, 900);
  assert.equal(result[0].people, []);
});

f('the conversion window: within it (inclusive) or not', async () => {
  await journeys();
  const hour = await run(store, funnel(steps('signup', '$pageview'), { funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' } }), { now: NOW });
  assert.equal(counts(hour), [4, 2]);
  const minutes = await run(store, funnel(steps('signup', '$pageview'), { funnelsFilter: { funnelWindowInterval: 59, funnelWindowIntervalUnit: 'minute' } }), { now: NOW });
  assert.equal(counts(minutes), [4, 1]);
  const long = await run(store, funnel(steps('signup', '$pageview'), { funnelsFilter: { funnelWindowInterval: 16, funnelWindowIntervalUnit: 'day' } }), { now: NOW });
  assert.equal(counts(long), [4, 3]);
});

f('a later try can reach further than an earlier one; each person counts once', async () => {
  await store.loader.load({ events: [
    ev(1, 'signup', '2024-06-01T10:00:00Z'),
    ev(1, 'signup', '2024-06-20T10:00:00Z'), ev(1, '$pageview', '2024-06-20T10:01:00Z'), ev(1, 'purchase', '2024-06-20T10:02:00Z'),
  ] });
  const r = await run(store, funnel(steps('signup', '$pageview', 'purchase')), { now: NOW });
  assert.equal(counts(r), [1, 1, 1]);
  assert.is((r.results as FunnelStep[])[1].average_conversion_time, 60);
});

f('conversion times: one path per person (the first reaching their furthest step), then mean and interpolated median across persons', async () => {
  await store.loader.load({ events: [
    // 1: two paths, 10:05 → 10:15 (600 s; the latest page view before the signup starts it)
    // and later 11:00 → 11:01:40 (100 s): PostHog takes the first, 600 s.
    ev(1, '$pageview', '2024-06-10T10:00:00Z'), ev(1, '$pageview', '2024-06-10T10:05:00Z'), ev(1, 'signup', '2024-06-10T10:15:00Z'),
    ev(1, '$pageview', '2024-06-10T11:00:00Z'), ev(1, 'signup', '2024-06-10T11:01:40Z'),
    ev(2, '$pageview', '2024-06-11T10:00:00Z'), ev(2, 'signup', '2024-06-11T10:05:00Z'),
    ev(3, '$pageview', '2024-06-12T10:00:00Z'), ev(3, 'signup', '2024-06-12T10:20:00Z'),
    ev(4, '$pageview', '2024-06-13T10:00:00Z'), ev(4, 'signup', '2024-06-13T10:33:20Z'),
    // 5: never converts, so has no time.
    ev(5, '$pageview', '2024-06-13T10:00:00Z'),
  ] });
  const r = await run(store, funnel(steps('$pageview', 'signup')), { now: NOW });
  const [, second] = r.results as FunnelStep[];
  assert.is(second.count, 4);
  // Per person: 600, 300, 1200, 2000 seconds.
  assert.is(second.average_conversion_time, (600 + 300 + 1200 + 2000) / 4);
  assert.is(second.median_conversion_time, (600 + 1200) / 2);
});

f('conversion times: a person whose second path reaches further is timed on that path only', async () => {
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-06-10T10:00:00Z'), ev(1, 'signup', '2024-06-10T10:10:00Z'),
    ev(1, '$pageview', '2024-06-25T10:00:00Z'), ev(1, 'signup', '2024-06-25T10:00:50Z'), ev(1, 'purchase', '2024-06-25T10:01:10Z'),
  ] });
  const r = await run(store, funnel(steps('$pageview', 'signup', 'purchase')), { now: NOW });
  const result = r.results as FunnelStep[];
  assert.equal(counts(r), [1, 1, 1]);
  assert.is(result[1].average_conversion_time, 50);
  assert.is(result[2].average_conversion_time, 20);
});

f('conversion times: when one event completes two tries, the later started one is timed (PostHog keeps the latest path to each step)', async () => {
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-06-10T10:00:00Z'), ev(1, 'added_to_cart', '2024-06-10T10:01:00Z'),
    ev(1, '$pageview', '2024-06-10T10:02:00Z'), ev(1, 'added_to_cart', '2024-06-10T10:03:00Z'), ev(1, 'purchase', '2024-06-10T10:04:00Z'),
  ] });
  const r = await run(store, funnel(steps('$pageview', 'added_to_cart', 'purchase')), { now: NOW });
  const result = r.results as FunnelStep[];
  assert.equal(counts(r), [1, 1, 1]);
  // 10:02 → 10:03 → 10:04, not 10:00 → 10:01 → 10:04.
  assert.is(result[1].average_conversion_time, 60);
  assert.is(result[2].average_conversion_time, 60);
});

f('conversion times: a middle step met twice on one path keeps its first time, whatever order the store returns them in', async () => {
  // Loaded latest first, so an answer that depended on the order rows come back in would show it.
  await store.loader.load({ events: [
    ev(1, 'purchase', '2024-06-10T10:04:00Z'), ev(1, 'added_to_cart', '2024-06-10T10:02:00Z'),
    ev(1, 'added_to_cart', '2024-06-10T10:01:00Z'), ev(1, '$pageview', '2024-06-10T10:00:00Z'),
  ] });
  for (let i = 0; i < 3; i++) {
    const r = await run(store, funnel(steps('$pageview', 'added_to_cart', 'purchase')), { now: NOW });
    const result = r.results as FunnelStep[];
    // 10:00 → 10:01 → 10:04, not 10:00 → 10:02 → 10:04.
    assert.equal([result[1].average_conversion_time, result[2].average_conversion_time], [60, 180]);
  }
});

f('a try starts at the latest first-step event before the second step (conversion time from there)', async () => {
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-06-10T10:00:00Z'), ev(1, '$pageview', '2024-06-10T10:05:00Z'), ev(1, 'added_to_cart', '2024-06-10T10:06:00Z'),
    // The same event as both steps: a later page view is the second step of an earlier one.
    ev(2, '$pageview', '2024-06-10T10:00:00Z'), ev(2, '$pageview', '2024-06-10T10:00:30Z'),
  ] });
  const r = await run(store, funnel(steps('$pageview', 'added_to_cart')), { now: NOW });
  assert.equal(counts(r), [2, 1]);
  assert.is((r.results as FunnelStep[])[1].average_conversion_time, 60);
  const same = await run(store, funnel(steps('$pageview', '$pageview')), { now: NOW });
  assert.equal(counts(same), [2, 2]);
  // Person 1: 10:00 → 10:05 (300 s), person 2: 30 s.
  assert.is((same.results as FunnelStep[])[1].median_conversion_time, (300 + 30) / 2);
});

f('strict: the next step must be the very next event', async () => {
  await store.loader.load({ events: [
    ev(1, 'signup', '2024-06-10T10:00:00Z'), ev(1, 'other', '2024-06-10T10:01:00Z'), ev(1, '$pageview', '2024-06-10T10:02:00Z'),
    ev(2, 'signup', '2024-06-10T10:00:00Z'), ev(2, '$pageview', '2024-06-10T10:02:00Z'),
  ] });
  const ordered = await run(store, funnel(steps('signup', '$pageview')), { now: NOW });
  assert.equal(counts(ordered), [2, 2]);
  const strict = await run(store, funnel(steps('signup', '$pageview'), { funnelsFilter: { funnelOrderType: 'strict' } }), { now: NOW });
  assert.equal(counts(strict), [2, 1]);
});

f('unordered: the steps in any order within the window', async () => {
  await store.loader.load({ events: [
    ev(1, 'purchase', '2024-06-10T10:00:00Z'), ev(1, '$pageview', '2024-06-10T10:01:00Z'), ev(1, 'signup', '2024-06-10T10:03:00Z'),
    ev(2, '$pageview', '2024-06-10T10:00:00Z'),
    ev(3, 'purchase', '2024-06-01T10:00:00Z'), ev(3, 'signup', '2024-06-20T10:00:00Z'),
  ] });
  const r = await run(store, funnel(steps('signup', '$pageview', 'purchase'), { funnelsFilter: { funnelOrderType: 'unordered' } }), { now: NOW });
  assert.equal(counts(r), [3, 1, 1]);
  const result = r.results as FunnelStep[];
  assert.is(result[1].average_conversion_time, 60);
  assert.is(result[2].average_conversion_time, 120);
  const ordered = await run(store, funnel(steps('signup', '$pageview', 'purchase')), { now: NOW });
  assert.equal(counts(ordered), [2, 0, 0]);
});

f('step property filters, and events outside the date range left out', async () => {
  await store.loader.load({ events: [
    ev(1, 'signup', '2024-06-10T10:00:00Z'), ev(1, 'purchase', '2024-06-10T11:00:00Z', { plan: 'pro' }),
    ev(2, 'signup', '2024-06-10T10:00:00Z'), ev(2, 'purchase', '2024-06-10T11:00:00Z', { plan: 'free' }),
    ev(3, 'signup', '2024-05-01T10:00:00Z'), ev(3, 'purchase', '2024-05-01T11:00:00Z', { plan: 'pro' }),
  ] });
  const r = await run(store, funnel(steps('signup', { event: 'purchase', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] })), { now: NOW });
  assert.equal(counts(r), [2, 1]);
});

f('breakdown: one funnel per value of the first step, most entrants first', async () => {
  await store.loader.load({ events: [
    ev(1, 'signup', '2024-06-10T10:00:00Z', { $browser: 'Chrome' }), ev(1, 'purchase', '2024-06-10T10:05:00Z', { $browser: 'Safari' }),
    ev(2, 'signup', '2024-06-10T10:00:00Z', { $browser: 'Chrome' }),
    ev(3, 'signup', '2024-06-10T10:00:00Z', { $browser: 'Firefox' }), ev(3, 'purchase', '2024-06-10T10:05:00Z'),
  ] });
  const r = await run(store, funnel(steps('signup', 'purchase'), { breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }), { now: NOW });
  const lists = r.results as FunnelStep[][];
  assert.equal(lists.map((l) => [l[0].breakdown_value, l.map((s) => s.count)]), [['Chrome', [2, 1]], ['Firefox', [1, 1]]]);
  assert.equal(lists[0][1].breakdown, 'Chrome');
  const last = await run(store, funnel(steps('signup', 'purchase'), { breakdownFilter: { breakdown: ['$browser'] }, funnelsFilter: { breakdownAttributionType: 'last_touch' } }), { now: NOW });
  assert.equal((last.results as FunnelStep[][]).map((l) => [l[0].breakdown_value, l.map((s) => s.count)]), [
    [['Chrome'], [1, 0]], [['Firefox'], [1, 1]], [['Safari'], [1, 1]],
  ]);
});

f('a visitor who converts after logging in is one person once the anonymous id is merged', async () => {
  await store.loader.load({
    events: [ev(9, 'signup', '2024-06-10T10:00:00Z', {}, 'anon-1'), ev(1, 'purchase', '2024-06-10T10:30:00Z', {}, 'user-1')],
    distinctIds: [{ project_id: PROJECT, distinct_id: 'anon-1', person_id: person(9) }, { project_id: PROJECT, distinct_id: 'user-1', person_id: person(1) }],
  });
  assert.equal(counts(await run(store, funnel(steps('signup', 'purchase')), { now: NOW })), [1, 0]);
  await store.loader.load({ distinctIds: [{ project_id: PROJECT, distinct_id: 'anon-1', person_id: person(1) }] });
  assert.equal(counts(await run(store, funnel(steps('signup', 'purchase')), { now: NOW })), [1, 1]);
});

f('no matching events: every step counts zero', async () => {
  const r = await run(store, funnel(steps('signup', 'purchase')), { now: NOW });
  assert.equal(counts(r), [0, 0]);
});

f.run();
