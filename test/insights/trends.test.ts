// TrendsQuery against hand-made events whose answer is known by construction: intervals,
// date ranges (relative, absolute, all), time zones and DST, week starts, every math,
// breakdowns with top N / other / null, compare to previous, formulas, total-value displays.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TrendsItem } from '../../src/insights/index.js';
import { ev, person, run, PROJECT, type TestStore, storePerTest } from './helpers.js';

const NOW = '2024-06-15T12:00:00Z';
const trends = (extra: Record<string, unknown> = {}, series: unknown[] = [{ kind: 'EventsNode', event: '$pageview' }]) =>
  ({ kind: 'TrendsQuery', series, ...extra });
const items = (r: { results: unknown }) => r.results as TrendsItem[];

const t = suite('insights: trends');
let store: TestStore;
storePerTest(t, (opened) => { store = opened; });

t('daily counts over -7d: eight days, empty ones zero, events outside the range left out', async () => {
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-06-07T23:59:59Z'),
    ev(1, '$pageview', '2024-06-08T00:00:00Z'),
    ev(2, '$pageview', '2024-06-10T10:00:00Z'),
    ev(2, '$pageview', '2024-06-10T11:00:00Z'),
    ev(3, '$pageview', '2024-06-15T11:59:00Z'),
    ev(3, 'other', '2024-06-12T11:59:00Z'),
  ] });
  const r = await run(store, trends({ dateRange: { date_from: '-7d' } }), { now: NOW });
  const [s] = items(r);
  assert.equal(s.days, ['2024-06-08', '2024-06-09', '2024-06-10', '2024-06-11', '2024-06-12', '2024-06-13', '2024-06-14', '2024-06-15']);
  assert.equal(s.labels, ['8-Jun-2024', '9-Jun-2024', '10-Jun-2024', '11-Jun-2024', '12-Jun-2024', '13-Jun-2024', '14-Jun-2024', '15-Jun-2024']);
  assert.equal(s.data, [1, 0, 2, 0, 0, 0, 0, 1]);
  assert.is(s.count, 4);
  assert.is(s.label, '$pageview');
  assert.is(s.action?.id, '$pageview');
  assert.is(s.action?.math, 'total');
  assert.equal(s.action?.days, s.days);
  // PostHog truncates a relative date_from to the start of its day, in the project's zone.
  assert.equal(r.resolved_date_range, { date_from: '2024-06-08T00:00:00Z', date_to: '2024-06-15T23:59:59.999Z' });
  const ny = await run(store, trends({ dateRange: { date_from: '-14d' } }), { now: NOW, timezone: 'America/New_York' });
  assert.equal(ny.resolved_date_range, { date_from: '2024-06-01T00:00:00-04:00', date_to: '2024-06-15T23:59:59.999-04:00' });
  const hours = await run(store, trends({ dateRange: { date_from: '-24h' }, interval: 'hour' }), { now: NOW });
  assert.is(hours.resolved_date_range?.date_from, '2024-06-14T12:00:00Z');
});

t('a series without an event counts every event; a second series is its own item', async () => {
  await store.loader.load({ events: [ev(1, 'a', '2024-06-14T10:00:00Z'), ev(1, 'b', '2024-06-14T11:00:00Z'), ev(1, 'b', '2024-06-15T10:00:00Z')] });
  const r = await run(store, trends({ dateRange: { date_from: '-1d' } }, [{ event: null }, { event: 'b' }]), { now: NOW });
  const [all, b] = items(r);
  assert.is(all.label, 'All events');
  assert.equal(all.data, [2, 1]);
  assert.equal(b.data, [1, 1]);
  assert.is(b.action?.order, 1);
});

t('unique users count persons: an anonymous id merged into an identified one counts once', async () => {
  // Day 14: the visitor browses anonymously (a person of its own at the time), then logs in.
  await store.loader.load({
    events: [
      ev(9, '$pageview', '2024-06-14T09:00:00Z', {}, 'anon-1'),
      ev(1, '$pageview', '2024-06-14T10:00:00Z', {}, 'user-1'),
      ev(2, '$pageview', '2024-06-14T10:00:00Z'),
    ],
    distinctIds: [
      { project_id: PROJECT, distinct_id: 'anon-1', person_id: person(9) },
      { project_id: PROJECT, distinct_id: 'user-1', person_id: person(1) },
    ],
  });
  const before = await run(store, trends({ dateRange: { date_from: '-1d' } }, [{ event: '$pageview', math: 'dau' }]), { now: NOW });
  assert.equal(items(before)[0].data, [3, 0]);
  // The identify merged person 9 into person 1.
  const merged = await store.loader.load({ distinctIds: [{ project_id: PROJECT, distinct_id: 'anon-1', person_id: person(1) }] });
  assert.is(merged.moved, 1);
  const after = await run(store, trends({ dateRange: { date_from: '-1d' } }, [{ event: '$pageview', math: 'dau' }]), { now: NOW });
  assert.equal(items(after)[0].data, [2, 0]);
  // Later events of the anonymous id arrive already resolved; still one person.
  await store.loader.load({ events: [ev(1, '$pageview', '2024-06-15T08:00:00Z', {}, 'anon-1'), ev(1, '$pageview', '2024-06-15T09:00:00Z', {}, 'user-1')] });
  const later = await run(store, trends({ dateRange: { date_from: '-1d' } }, [{ event: '$pageview', math: 'dau' }]), { now: NOW });
  assert.equal(items(later)[0].data, [2, 1]);
});

t('days are the project time zone’s: an evening event in New York lands on its local day', async () => {
  await store.loader.load({ events: [ev(1, '$pageview', '2024-06-10T02:00:00Z'), ev(1, '$pageview', '2024-06-10T05:00:00Z')] });
  const r = await run(store, trends({ dateRange: { date_from: '2024-06-09', date_to: '2024-06-10' } }), { now: NOW, timezone: 'America/New_York' });
  const [s] = items(r);
  assert.equal(s.days, ['2024-06-09', '2024-06-10']);
  assert.equal(s.data, [1, 1]);
  assert.equal(r.resolved_date_range, { date_from: '2024-06-09T00:00:00-04:00', date_to: '2024-06-10T23:59:59.999-04:00' });
});

t('DST: hours follow the local wall clock (the skipped hour stays empty), days keep their local midnight', async () => {
  // 2024-03-31: clocks go from 02:00 CET to 03:00 CEST (01:00 UTC).
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-03-30T23:30:00Z'), // 00:30 CET, March 31
    ev(1, '$pageview', '2024-03-31T00:30:00Z'), // 01:30 CET
    ev(1, '$pageview', '2024-03-31T01:30:00Z'), // 03:30 CEST
    ev(1, '$pageview', '2024-03-31T21:59:00Z'), // 23:59 CEST, March 31
    ev(1, '$pageview', '2024-03-31T22:00:00Z'), // 00:00 CEST, April 1
  ] });
  const hourly = await run(store, trends({ interval: 'hour', dateRange: { date_from: '2024-03-31T00:00:00', date_to: '2024-03-31T04:00:00' } }), { now: NOW, timezone: 'Europe/Paris' });
  const [h] = items(hourly);
  assert.equal(h.days, ['2024-03-31 00:00:00', '2024-03-31 01:00:00', '2024-03-31 02:00:00', '2024-03-31 03:00:00', '2024-03-31 04:00:00']);
  assert.equal(h.labels, ['31-Mar 00:00', '31-Mar 01:00', '31-Mar 02:00', '31-Mar 03:00', '31-Mar 04:00']);
  assert.equal(h.data, [1, 1, 0, 1, 0]);
  const daily = await run(store, trends({ dateRange: { date_from: '2024-03-30', date_to: '2024-04-01' } }), { now: NOW, timezone: 'Europe/Paris' });
  assert.equal(items(daily)[0].data, [0, 4, 1]);
  // Autumn: 2024-10-27 has 25 hours in Paris; 00:30 and 23:30 local are the same day.
  await store.loader.load({ events: [ev(1, 'autumn', '2024-10-26T22:30:00Z'), ev(1, 'autumn', '2024-10-27T22:30:00Z'), ev(1, 'autumn', '2024-10-27T23:30:00Z')] });
  const autumn = await run(store, trends({ dateRange: { date_from: '2024-10-27', date_to: '2024-10-28' } }, [{ event: 'autumn' }]), { now: '2024-11-01T00:00:00Z', timezone: 'Europe/Paris' });
  assert.equal(items(autumn)[0].data, [2, 1]);
});

t('weeks start on the project’s week start; labels are the week’s days within the range', async () => {
  // 2024-06-09 is a Sunday.
  await store.loader.load({ events: [ev(1, '$pageview', '2024-06-08T12:00:00Z'), ev(1, '$pageview', '2024-06-09T12:00:00Z'), ev(1, '$pageview', '2024-06-10T12:00:00Z')] });
  const q = trends({ interval: 'week', dateRange: { date_from: '2024-06-05', date_to: '2024-06-12' } });
  const sunday = items(await run(store, q, { now: NOW, weekStart: 0 }))[0];
  assert.equal(sunday.days, ['2024-06-02', '2024-06-09']);
  assert.equal(sunday.data, [1, 2]);
  assert.equal(sunday.labels, ['5–8 Jun', '9–12 Jun']);
  const monday = items(await run(store, q, { now: NOW, weekStart: 1 }))[0];
  assert.equal(monday.days, ['2024-06-03', '2024-06-10']);
  assert.equal(monday.data, [2, 1]);
  assert.equal(monday.labels, ['5–9 Jun', '10–12 Jun']);
});

t('months and "all": from the project’s first event, monthly labels', async () => {
  await store.loader.load({ events: [ev(1, '$pageview', '2024-04-20T12:00:00Z'), ev(1, 'other', '2024-03-02T12:00:00Z'), ev(1, '$pageview', '2024-06-01T00:00:00Z')] });
  const r = await run(store, trends({ interval: 'month', dateRange: { date_from: 'all' } }), { now: NOW });
  const [s] = items(r);
  assert.equal(s.days, ['2024-03-01', '2024-04-01', '2024-05-01', '2024-06-01']);
  assert.equal(s.labels, ['Mar 2024', 'Apr 2024', 'May 2024', 'Jun 2024']);
  assert.equal(s.data, [0, 1, 0, 1]);
});

t('relative hours: -24h by hour starts at the hour 24 hours ago', async () => {
  await store.loader.load({ events: [ev(1, '$pageview', '2024-06-14T11:30:00Z'), ev(1, '$pageview', '2024-06-14T12:10:00Z'), ev(1, '$pageview', '2024-06-15T11:59:00Z')] });
  const [s] = items(await run(store, trends({ interval: 'hour', dateRange: { date_from: '-24h' } }), { now: '2024-06-15T12:05:00Z' }));
  assert.is(s.days.length, 25);
  assert.is(s.days[0], '2024-06-14 12:00:00');
  assert.is(s.data[0], 1);
  assert.is(s.data[23], 1);
  assert.is(s.count, 2);
});

t('maths over a property: sum, avg, min, max, median, p90; unique sessions', async () => {
  const prices = [10, 20, 30, 40];
  await store.loader.load({ events: [
    ...prices.map((price, i) => ev(i, 'purchase', '2024-06-15T10:00:00Z', { price, $session_id: `s${i % 2}` })),
    ev(5, 'purchase', '2024-06-15T10:00:00Z', { price: 'not a number', $session_id: 's1' }),
  ] });
  const math = async (m: string) => items(await run(store, trends({ dateRange: { date_from: 'dStart' } }, [{ event: 'purchase', math: m, math_property: 'price' }]), { now: NOW }))[0].data[0];
  assert.is(await math('sum'), 100);
  assert.is(await math('avg'), 25);
  assert.is(await math('min'), 10);
  assert.is(await math('max'), 40);
  assert.is(await math('median'), 25);
  assert.is(await math('p90'), 37);
  assert.is(await math('unique_session'), 2);
  assert.is(await math('total'), 5);
});

t('weekly and monthly active users: persons active in the 7 (30) days ending on each day', async () => {
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-06-01T10:00:00Z'),
    ev(2, '$pageview', '2024-06-05T10:00:00Z'),
    ev(2, '$pageview', '2024-06-06T10:00:00Z'),
    ev(3, '$pageview', '2024-05-20T10:00:00Z'),
  ] });
  const q = (math: string) => trends({ dateRange: { date_from: '2024-06-06', date_to: '2024-06-13' } }, [{ event: '$pageview', math }]);
  const wau = items(await run(store, q('weekly_active'), { now: NOW }))[0];
  // June 6: person 1 (June 1) and 2; June 8: only 2 (June 1 left the window); June 13: none.
  assert.equal(wau.data, [2, 2, 1, 1, 1, 1, 1, 0]);
  const mau = items(await run(store, q('monthly_active'), { now: NOW }))[0];
  assert.equal(mau.data, [3, 3, 3, 3, 3, 3, 3, 3]);
});

t('breakdown: top values by count, the rest as other, a missing value as null', async () => {
  await store.loader.load({ events: [
    ...['Chrome', 'Chrome', 'Chrome', 'Safari', 'Safari', 'Firefox', 'Edge'].map((b, i) => ev(i, '$pageview', '2024-06-15T10:00:00Z', { $browser: b })),
    ev(8, '$pageview', '2024-06-15T10:00:00Z'),
    ev(9, '$pageview', '2024-06-15T10:00:00Z'),
  ] });
  const r = await run(store, trends({ dateRange: { date_from: 'dStart' }, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 3 } }), { now: NOW });
  const got = items(r).map((i) => [i.breakdown_value, i.label, i.data[0]]);
  assert.equal(got, [
    ['Chrome', 'Chrome', 3],
    ['Safari', 'Safari', 2],
    ['$$_posthog_breakdown_null_$$', '$$_posthog_breakdown_null_$$', 2],
    ['$$_posthog_breakdown_other_$$', '$$_posthog_breakdown_other_$$', 2],
  ]);
  assert.is(r.hasMore, true);
  const hidden = await run(store, trends({ dateRange: { date_from: 'dStart' }, breakdownFilter: { breakdown: '$browser', breakdown_limit: 3, breakdown_hide_other_aggregation: true } }), { now: NOW });
  assert.equal(items(hidden).map((i) => i.breakdown_value), ['Chrome', 'Safari', '$$_posthog_breakdown_null_$$']);
});

t('breakdowns: several properties, values as lists and labels joined with "::"; the top combinations kept, the rest other', async () => {
  const views = (n: number, props: Record<string, unknown>) => Array.from({ length: n }, (_, i) => ev(i, '$pageview', `2024-06-14T1${i}:00:00Z`, props));
  await store.loader.load({ events: [
    ...views(4, { $browser: 'Chrome', $os: 'Mac' }), ...views(3, { $browser: 'Chrome', $os: 'Windows' }),
    ...views(2, { $browser: 'Safari', $os: 'Mac' }), ...views(1, { $browser: 'Firefox' }),
  ] });
  const breakdowns = [{ property: '$browser' }, { property: '$os', type: 'event' }];
  const all = await run(store, trends({ dateRange: { date_from: '-7d' }, breakdownFilter: { breakdowns } }), { now: NOW });
  assert.equal(items(all).map((i) => [i.breakdown_value, i.label, i.count]), [
    [['Chrome', 'Mac'], 'Chrome::Mac', 4],
    [['Chrome', 'Windows'], 'Chrome::Windows', 3],
    [['Safari', 'Mac'], 'Safari::Mac', 2],
    [['Firefox', '$$_posthog_breakdown_null_$$'], 'Firefox::$$_posthog_breakdown_null_$$', 1],
  ]);
  const top = await run(store, trends({ dateRange: { date_from: '-7d' }, breakdownFilter: { breakdowns, breakdown_limit: 2 } }, [{ event: '$pageview' }, { event: 'signup' }]), { now: NOW });
  const other = '$$_posthog_breakdown_other_$$';
  assert.equal(items(top).filter((i) => i.count > 0).map((i) => [i.breakdown_value, i.label, i.count]), [
    [['Chrome', 'Mac'], '$pageview - Chrome::Mac', 4],
    [['Chrome', 'Windows'], '$pageview - Chrome::Windows', 3],
    [[other, other], `$pageview - ${other}::${other}`, 3],
  ]);
  assert.is(top.hasMore, true);
});

t('breakdown_normalize_url: trailing "/", "?" and "#" trimmed, nothing left shown as "/"', async () => {
  const view = (n: number, url: string) => ev(n, '$pageview', `2024-06-14T1${n}:00:00Z`, { $current_url: url });
  await store.loader.load({ events: [view(1, 'https://a.example/x/'), view(2, 'https://a.example/x?'), view(3, 'https://a.example/x'), view(4, '/'), view(5, '#'), view(6, 'https://a.example/y')] });
  const r = await run(store, trends({ dateRange: { date_from: '-7d' }, breakdownFilter: { breakdown: '$current_url', breakdown_normalize_url: true } }), { now: NOW });
  assert.equal(items(r).map((i) => [i.breakdown_value, i.count]), [['https://a.example/x', 3], ['/', 2], ['https://a.example/y', 1]]);
  const multi = await run(store, trends({ dateRange: { date_from: '-7d' }, breakdownFilter: { breakdowns: [{ property: '$current_url', normalize_url: true }] } }), { now: NOW });
  assert.equal(items(multi)[0].breakdown_value, ['https://a.example/x']);
  const funnel = await run(store, { kind: 'FunnelsQuery', series: [{ event: '$pageview' }, { event: 'x' }], breakdownFilter: { breakdown: '$current_url', breakdown_normalize_url: true } }, { now: NOW }).catch((e: unknown) => e);
  assert.is((funnel as { attr?: string }).attr, 'breakdownFilter.breakdown_normalize_url');
});

t('breakdown by a person property, and a JSON (non-column) event property', async () => {
  await store.loader.load({
    events: [ev(1, '$pageview', '2024-06-15T10:00:00Z', { plan: 'pro' }), ev(2, '$pageview', '2024-06-15T10:00:00Z', { plan: 'free' }), ev(2, '$pageview', '2024-06-15T11:00:00Z', { plan: 'free' })],
    persons: [
      { project_id: PROJECT, id: person(1), created_at: '2024-01-01T00:00:00Z', properties: { country: 'FR' } },
      { project_id: PROJECT, id: person(2), created_at: '2024-01-01T00:00:00Z', properties: { country: 'DE' } },
    ],
  });
  const byCountry = items(await run(store, trends({ dateRange: { date_from: 'dStart' }, breakdownFilter: { breakdown: 'country', breakdown_type: 'person' } }), { now: NOW }));
  assert.equal(byCountry.map((i) => [i.breakdown_value, i.count]), [['DE', 2], ['FR', 1]]);
  const byPlan = items(await run(store, trends({ dateRange: { date_from: 'dStart' }, breakdownFilter: { breakdown: ['plan'] } }, [{ event: '$pageview', math: 'dau' }]), { now: NOW }));
  assert.equal(byPlan.map((i) => [i.breakdown_value, i.count]), [[['free'], 1], [['pro'], 1]]);
});

t('compare to the previous period: current items then previous ones over the same number of days', async () => {
  await store.loader.load({ events: [ev(1, '$pageview', '2024-06-14T10:00:00Z'), ev(1, '$pageview', '2024-06-12T10:00:00Z'), ev(1, '$pageview', '2024-06-11T10:00:00Z')] });
  const r = items(await run(store, trends({ dateRange: { date_from: '-2d' }, compareFilter: { compare: true } }), { now: NOW }));
  assert.equal(r.map((i) => [i.compare_label, i.days, i.data]), [
    ['current', ['2024-06-13', '2024-06-14', '2024-06-15'], [0, 1, 0]],
    ['previous', ['2024-06-10', '2024-06-11', '2024-06-12'], [0, 1, 1]],
  ]);
  assert.ok(r.every((i) => i.compare === true));
});

t('compare_to: the compared period starts that far before date_from and lasts as long (-1y, -4w)', async () => {
  await store.loader.load({ events: [
    ev(1, '$pageview', '2023-06-08T10:00:00Z'), ev(1, '$pageview', '2023-06-15T23:00:00Z'), ev(1, '$pageview', '2023-06-16T01:00:00Z'),
    // In the period just before the range: what plain compare would count, not compare_to.
    ev(1, '$pageview', '2024-06-05T10:00:00Z'),
    ev(1, '$pageview', '2024-05-11T00:30:00Z'), ev(1, '$pageview', '2024-05-18T20:00:00Z'),
    ev(1, '$pageview', '2024-06-10T10:00:00Z'),
  ] });
  const year = items(await run(store, trends({ dateRange: { date_from: '-7d' }, compareFilter: { compare: true, compare_to: '-1y' } }), { now: NOW }));
  assert.equal(year.map((i) => [i.compare_label, i.days[0], i.days[i.days.length - 1], i.data]), [
    ['current', '2024-06-08', '2024-06-15', [0, 0, 1, 0, 0, 0, 0, 0]],
    ['previous', '2023-06-08', '2023-06-15', [1, 0, 0, 0, 0, 0, 0, 1]],
  ]);
  const weeks = items(await run(store, trends({ dateRange: { date_from: '-7d' }, compareFilter: { compare: true, compare_to: '-4w' } }), { now: NOW }));
  assert.equal(weeks[1].days, ['2024-05-11', '2024-05-12', '2024-05-13', '2024-05-14', '2024-05-15', '2024-05-16', '2024-05-17', '2024-05-18']);
  assert.equal(weeks[1].data, [1, 0, 0, 0, 0, 0, 0, 1]);
  // Without compare on, compare_to changes nothing (as PostHog).
  assert.is(items(await run(store, trends({ dateRange: { date_from: '-7d' }, compareFilter: { compare_to: '-1y' } }), { now: NOW })).length, 1);
  const bad = await run(store, trends({ compareFilter: { compare: true, compare_to: 'last year' } }), { now: NOW }).catch((e: unknown) => e);
  assert.is((bad as { attr?: string }).attr, 'compareFilter.compare_to');
});

t('smoothingIntervals: each day the floor of the mean of itself and the days before it in the range, per breakdown value, over running totals when cumulative', async () => {
  const at = (day: string, n: number) => Array.from({ length: n }, (_, i) => ev(i, '$pageview', `2024-06-${day}T1${i % 10}:00:00Z`));
  await store.loader.load({ events: [...at('08', 3), ...at('10', 6), ...at('13', 1), ...at('14', 2)] });
  const [plain] = items(await run(store, trends({ dateRange: { date_from: '-7d' } }), { now: NOW }));
  assert.equal(plain.data, [3, 0, 6, 0, 0, 1, 2, 0]);
  const [smooth] = items(await run(store, trends({ dateRange: { date_from: '-7d' }, trendsFilter: { smoothingIntervals: 3 } }), { now: NOW }));
  // 3/1, 3/2, 9/3, 6/3, 6/3, 1/3, 3/3, 3/3, each floored.
  assert.equal(smooth.data, [3, 1, 3, 2, 2, 0, 1, 1]);
  assert.is(smooth.count, 13);
  // Each breakdown value's line is smoothed on its own (here the one value, none).
  const [byBrowser] = items(await run(store, trends({ dateRange: { date_from: '-7d' }, breakdownFilter: { breakdown: '$browser' }, trendsFilter: { smoothingIntervals: 3 } }), { now: NOW }));
  assert.equal(byBrowser.data, smooth.data);
  // The cumulative display smooths the running totals 3, 3, 9, 9, 9, 10, 12, 12.
  const [cumulative] = items(await run(store, trends({ dateRange: { date_from: '-7d' }, trendsFilter: { smoothingIntervals: 3, display: 'ActionsLineGraphCumulative' } }), { now: NOW }));
  assert.equal(cumulative.data, [3, 3, 5, 7, 9, 9, 10, 11]);
});

t('formula: series combined point by point, division by zero gives 0', async () => {
  await store.loader.load({ events: [
    ev(1, 'signup', '2024-06-14T10:00:00Z'), ev(2, 'signup', '2024-06-14T10:00:00Z'), ev(1, 'purchase', '2024-06-14T11:00:00Z'),
    ev(1, 'purchase', '2024-06-15T11:00:00Z'),
  ] });
  const r = items(await run(store, trends({ dateRange: { date_from: '-1d' }, trendsFilter: { formula: '(B / A) * 100' } }, [{ event: 'signup' }, { event: 'purchase' }]), { now: NOW }));
  assert.is(r.length, 1);
  assert.is(r[0].label, 'Formula ((B / A) * 100)');
  assert.equal(r[0].data, [50, 0]);
  assert.is(r[0].action, null);
});

t('total-value displays give one aggregated value over the whole range (unique users: over the range)', async () => {
  await store.loader.load({ events: [ev(1, '$pageview', '2024-06-14T10:00:00Z'), ev(1, '$pageview', '2024-06-15T10:00:00Z'), ev(2, '$pageview', '2024-06-15T10:00:00Z')] });
  const r = items(await run(store, trends({ dateRange: { date_from: '-1d' }, trendsFilter: { display: 'BoldNumber' } }, [{ event: '$pageview', math: 'dau' }]), { now: NOW }));
  assert.is(r[0].aggregated_value, 2);
  assert.equal(r[0].data, []);
  const total = items(await run(store, trends({ dateRange: { date_from: '-1d' }, trendsFilter: { display: 'ActionsPie' } }), { now: NOW }));
  assert.is(total[0].aggregated_value, 3);
});

t('cumulative display: running totals', async () => {
  await store.loader.load({ events: [ev(1, '$pageview', '2024-06-13T10:00:00Z'), ev(1, '$pageview', '2024-06-15T10:00:00Z')] });
  const [s] = items(await run(store, trends({ dateRange: { date_from: '-2d' }, trendsFilter: { display: 'ActionsLineGraphCumulative' } }), { now: NOW }));
  assert.equal(s.data, [1, 1, 2]);
  assert.is(s.count, 2);
});

t.run();
