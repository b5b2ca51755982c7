// The `hogql` text of funnels with exclusions and conversion times (the steps view's average
// and median, time_to_convert's histogram) and of PathsQuery (issue 28, item 5): each text,
// run as a HogQLQuery through the real server, gives exactly the insight's numbers, over a
// seeded crowd of persons whose events make many tries, exclusions, sessions and repeats.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { insightWithText, runHogQL } from '../helpers/hogql-texts.js';

const s = suite('insights: hogql text of funnels (exclusions, conversion times) and paths');
let t: TestServer;
let api: ApiCall;

const EVENTS = ['$pageview', '$pageview', '$pageview', 'signup', 'signup', 'purchase', 'cancel', 'click', '$screen', '$autocapture'];
const URLS = ['https://h.example/', 'https://h.example/pricing/', 'https://h.example/pricing', 'https://h.example/docs/a', 'https://h.example/docs/b/', 'https://h.example/docs/a?x=1'];
// Gaps between a person's events (ms): seconds, minutes, past a session's 30 minutes, hours.
const GAPS = [4_321, 17_250, 95_500, 600_125, 1_500_000, 2_100_777, 5_400_000, 20_000_000];

function crowd(): Record<string, unknown>[] {
  const rnd = mulberry32(28);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const out: Record<string, unknown>[] = [];
  const seen = new Set<number>();
  for (let p = 0; p < 36; p++) {
    let at = Date.parse('2024-06-01T00:00:00Z') + Math.floor(rnd() * 40 * 3_600_000);
    const browser = pick(['Chrome', 'Safari', 'Firefox', null]);
    const count = 6 + Math.floor(rnd() * 18);
    for (let i = 0; i < count; i++) {
      // Every instant distinct: ties would leave the order of a person's events to chance.
      while (seen.has(at)) at += 1;
      seen.add(at);
      const event = pick(EVENTS);
      const properties: Record<string, unknown> = {};
      if (browser !== null && rnd() < 0.85) properties.$browser = browser;
      if (event === '$pageview') properties.$current_url = pick(URLS);
      if (event === '$screen') properties.$screen_name = pick(['Home', 'Settings', 'Home']);
      out.push({ uuid: randomUUID(), event, distinct_id: `u${p}`, timestamp: new Date(at).toISOString(), properties });
      at += pick(GAPS) + Math.floor(rnd() * 1000);
    }
  }
  return out;
}

s.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const batch = crowd();
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
  assert.equal((await run('select count() from events')).results, [[batch.length]]);
});
s.after(async () => { await t?.close(); });

const insight = (query: Record<string, unknown>) => insightWithText(api, t, query);
const run = (text: string) => runHogQL(api, t, text);

const dateRange = { date_from: '2024-06-01', date_to: '2024-06-04' };
const series = ['$pageview', 'signup', 'purchase'].map((event) => ({ kind: 'EventsNode', event }));
const EXCLUSIONS = {
  ordered: [{ kind: 'EventsNode', event: 'cancel', funnelFromStep: 0, funnelToStep: 2 }, { kind: 'EventsNode', event: 'click', funnelFromStep: 1, funnelToStep: 2 }],
  strict: [{ kind: 'EventsNode', event: 'cancel', funnelFromStep: 1, funnelToStep: 2 }],
  unordered: [{ kind: 'EventsNode', event: 'cancel', funnelFromStep: 0, funnelToStep: 2 }],
};
type Order = keyof typeof EXCLUSIONS;
const WINDOW = { funnelWindowInterval: 45, funnelWindowIntervalUnit: 'minute' };
const BY_BROWSER = { breakdownFilter: { breakdown: '$browser' } };
const ALL_EVENTS = { breakdownAttributionType: 'all_events' };

type Step = { count: number; average_conversion_time: number | null; median_conversion_time: number | null; breakdown_value?: unknown };
// A steps view as the text's row: the counts, then per later step its average and median.
const stepRow = (steps: Step[]) => [...steps.map((x) => x.count), ...steps.slice(1).flatMap((x) => [x.average_conversion_time, x.median_conversion_time])];
const funnel = (order: Order, excluded: boolean, filter: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  ({ kind: 'FunnelsQuery', dateRange, series, funnelsFilter: { funnelOrderType: order, exclusions: excluded ? EXCLUSIONS[order] : [], ...filter }, ...extra });

// Each order with and without exclusions, a short window, breakdowns attributed first touch
// and per event (each text is parsed afresh: the suite keeps to a dozen of them).
const STEPS: Record<string, unknown>[] = [
  funnel('ordered', false),
  funnel('ordered', true),
  funnel('ordered', true, WINDOW, BY_BROWSER),
  funnel('ordered', false, ALL_EVENTS, BY_BROWSER),
  funnel('strict', false, WINDOW),
  funnel('strict', true),
  funnel('strict', true, ALL_EVENTS, BY_BROWSER),
  funnel('unordered', false, {}, BY_BROWSER),
  funnel('unordered', true),
  funnel('unordered', true, WINDOW),
];

s('funnel steps: counts, average and median conversion times, with and without exclusions, as the text gives them', async () => {
  const names = ['step_1', 'step_2', 'step_3', 'step_1_average_conversion_time', 'step_1_median_conversion_time', 'step_2_average_conversion_time', 'step_2_median_conversion_time'];
  let timed = 0;
  let excludedSome = 0;
  for (const query of STEPS) {
    const body = await insight(query);
    const text = await run(body.hogql);
    const label = `${JSON.stringify(query)}\n${body.hogql}`;
    const rows = (results: unknown) => (query.breakdownFilter ? (results as Step[][]) : [results as Step[]]);
    if (query.breakdownFilter) {
      assert.equal(text.columns, ['breakdown_value', ...names]);
      const fromText = Object.fromEntries(text.results.map(([value, ...rest]) => [String(value), rest]));
      const fromFunnel = Object.fromEntries(rows(body.results).map((steps) => [String(steps[0].breakdown_value), stepRow(steps)]));
      assert.equal(fromText, fromFunnel, label);
      assert.ok(Object.keys(fromFunnel).length >= 3, label);
    } else {
      assert.equal(text.columns, names);
      assert.equal(text.results, [stepRow(body.results)], label);
    }
    if (rows(body.results).some((steps) => steps.every((x, k) => k === 0 || x.average_conversion_time !== null))) timed++;
    const filter = query.funnelsFilter as { exclusions: unknown[] };
    if (filter.exclusions.length > 0) {
      const without = await insight({ ...query, funnelsFilter: { ...filter, exclusions: [] } });
      if (JSON.stringify(rows(without.results).map((steps) => steps.map((x) => x.count))) !== JSON.stringify(rows(body.results).map((steps) => steps.map((x) => x.count)))) excludedSome++;
    }
  }
  // The crowd is not trivial: tries convert with times, and exclusions drop some.
  assert.ok(timed >= 6, `timed: ${timed}`);
  assert.ok(excludedSome >= 3, `exclusions changed ${excludedSome} funnels`);
});

s('funnel steps with a breakdown past its limit: the values past it fold into "other" in the text as in the funnel', async () => {
  const LIMITED = { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } };
  for (const query of [funnel('ordered', false, {}, LIMITED), funnel('strict', false, ALL_EVENTS, LIMITED), funnel('unordered', true, { breakdownAttributionType: 'last_touch' }, LIMITED)]) {
    const body = await insight(query);
    const text = await run(body.hogql);
    const label = `${JSON.stringify(query)}\n${body.hogql}`;
    const fromText = Object.fromEntries(text.results.map(([value, ...rest]) => [String(value), rest]));
    const fromFunnel = Object.fromEntries((body.results as Step[][]).map((steps) => [String(steps[0].breakdown_value), stepRow(steps)]));
    assert.equal(fromText, fromFunnel, label);
    // Four values (three browsers and none): two kept, the rest folded.
    assert.is(Object.keys(fromFunnel).length, 3, label);
    assert.ok('$$_posthog_breakdown_other_$$' in fromFunnel, label);
  }
});

s('funnel trends view: each entrance period\'s conversion rate, as the text gives it', async () => {
  type Point = { data: number[]; days: string[]; breakdown_value?: unknown };
  let converted = 0;
  for (const query of [
    funnel('ordered', false, { funnelVizType: 'trends' }, { interval: 'day' }),
    funnel('strict', true, { funnelVizType: 'trends', funnelFromStep: 1, funnelToStep: 2 }, { interval: 'day' }),
    funnel('unordered', false, { funnelVizType: 'trends' }, { interval: 'day', ...BY_BROWSER }),
    funnel('ordered', true, { funnelVizType: 'trends', ...ALL_EVENTS }, { interval: 'day', ...BY_BROWSER }),
  ]) {
    const body = await insight(query);
    const text = await run(body.hogql);
    const label = `${JSON.stringify(query)}\n${body.hogql}`;
    const broken = (query as Record<string, unknown>).breakdownFilter !== undefined;
    const rate = new Map(text.results.map((row) => {
      const [value, period, , , r] = broken ? row : [undefined, ...row];
      return [`${broken ? String(value) : ''}|${String(period).slice(0, 10)}`, Number(r)];
    }));
    for (const item of body.results as Point[]) {
      item.days.forEach((day, i) => {
        assert.is(rate.get(`${broken ? String(item.breakdown_value) : ''}|${day}`) ?? 0, item.data[i], `${day} ${String(item.breakdown_value)}: ${label}`);
        if (item.data[i] > 0) converted++;
      });
    }
  }
  assert.ok(converted >= 4, `periods with conversions: ${converted}`);
});

s('time to convert: the histogram and its average, as the text gives them', async () => {
  const ttc = (order: Order, excluded: boolean, filter: Record<string, unknown> = {}) => funnel(order, excluded, { funnelVizType: 'time_to_convert', ...filter });
  let spread = 0;
  for (const query of [
    ttc('ordered', false),
    ttc('ordered', true, { binCount: 7 }),
    ttc('strict', false, { funnelFromStep: 1, funnelToStep: 2 }),
    ttc('strict', true),
    ttc('unordered', false, { binCount: 7 }),
    ttc('unordered', true, { funnelToStep: 1, binCount: 3, funnelWindowInterval: 2, funnelWindowIntervalUnit: 'hour' }),
  ]) {
    const body = await insight(query);
    const text = await run(body.hogql);
    const { bins, average_conversion_time: average } = body.results as { bins: [number, number][]; average_conversion_time: number | null };
    assert.equal(text.columns, ['bin_from_seconds', 'person_count', 'average_conversion_time']);
    assert.equal(text.results, bins.map(([from, persons]) => [from, persons, average]), `${JSON.stringify(query)}\n${body.hogql}`);
    if (bins.filter(([, persons]) => persons > 0).length >= 2) spread++;
  }
  assert.ok(spread >= 4, `histograms with two bins or more: ${spread}`);
});

s('paths: edges, weights and average conversion times, as the text gives them', async () => {
  const notFirefox = [{ key: '$browser', operator: 'is_not', value: 'Firefox' }];
  let dropped = 0;
  for (const [pathsFilter, properties] of [
    [{}, []],
    [{ includeEventTypes: ['$pageview'] }, notFirefox],
    [{ includeEventTypes: ['$pageview', '$screen', 'custom_event'], stepLimit: 7 }, []],
    [{ includeEventTypes: ['custom_event', '$screen'], excludeEvents: ['click'] }, notFirefox],
    [{ excludeEvents: ['$pageview'] }, []],
    [{ includeEventTypes: ['$pageview'], startPoint: 'https://h.example/pricing/' }, []],
    [{ includeEventTypes: ['$pageview'], endPoint: 'https://h.example/docs/a' }, []],
    [{ startPoint: 'signup', endPoint: 'purchase', stepLimit: 3 }, []],
    [{ includeEventTypes: ['$pageview'], localPathCleaningFilters: [{ regex: '\\?.*$', alias: '' }, { regex: 'docs/[a-z]', alias: 'docs/<page>' }] }, []],
    [{ includeEventTypes: ['$pageview', 'custom_event'], pathGroupings: ['https://h.example/docs*', '*pricing'] }, []],
    [{ minEdgeWeight: 2, maxEdgeWeight: 6, stepLimit: 6 }, []],
    [{ edgeLimit: 6 }, []],
    [{ includeEventTypes: ['hogql'], pathsHogQLExpression: "concat(event, '@', coalesce(properties.$browser, 'none'))" }, []],
  ] as [Record<string, unknown>, unknown[]][]) {
    const query = { kind: 'PathsQuery', dateRange, pathsFilter, properties };
    const body = await insight(query);
    const text = await run(body.hogql);
    const label = `${JSON.stringify(query)}\n${body.hogql}`;
    assert.equal(text.columns, ['source', 'target', 'value', 'average_conversion_time']);
    const links = body.results as { source: string; target: string; value: number; average_conversion_time: number }[];
    assert.ok(links.length >= 2, label);
    assert.equal(text.results, links.map((l) => [l.source, l.target, l.value, l.average_conversion_time]), label);
    if (pathsFilter.edgeLimit || pathsFilter.minEdgeWeight) {
      // Edges the limit or the weights cut off leave others unreachable: both leave those out.
      const edges = await run(body.hogql.replace(/\n[^\n]*$/, '\nSELECT count() FROM edges'));
      if (Number(edges.results[0][0]) > links.length) dropped++;
    }
  }
  assert.ok(dropped >= 1, `charts with unreachable edges: ${dropped}`);
});

s('paths around a funnel step (funnelPathsFilter): the funnel’s persons and their events, as the text gives them', async () => {
  let answered = 0;
  for (const [funnelPathType, funnelStep, funnelsFilter, pathsFilter] of [
    ['funnel_path_after_step', 2, {}, {}],
    ['funnel_path_after_step', 1, {}, {}],
    ['funnel_path_after_step', -2, WINDOW, {}],
    ['funnel_path_before_step', 1, {}, {}],
    ['funnel_path_after_step', 3, { funnelOrderType: 'unordered' }, { includeEventTypes: ['$pageview', 'custom_event'] }],
    ['funnel_path_after_step', -2, { ...WINDOW, funnelOrderType: 'strict' }, {}],
    ['funnel_path_after_step', -2, { ...WINDOW, exclusions: EXCLUSIONS.ordered }, {}],
    ['funnel_path_after_step', -3, { funnelOrderType: 'strict' }, {}],
    ['funnel_path_before_step', 2, {}, { includeEventTypes: ['$pageview', 'custom_event'] }],
    ['funnel_path_before_step', 3, { funnelOrderType: 'strict' }, {}],
    ['funnel_path_between_steps', 2, {}, {}],
    ['funnel_path_between_steps', 3, { funnelOrderType: 'unordered', exclusions: EXCLUSIONS.unordered }, {}],
  ] as [string, number, Record<string, unknown>, Record<string, unknown>][]) {
    const funnelSource = { kind: 'FunnelsQuery', dateRange, series, funnelsFilter };
    const query = { kind: 'PathsQuery', dateRange, pathsFilter, funnelPathsFilter: { funnelPathType, funnelStep, funnelSource } };
    const body = await insight(query);
    const text = await run(body.hogql);
    const label = `${JSON.stringify(query)}\n${body.hogql}`;
    const links = body.results as { source: string; target: string; value: number; average_conversion_time: number }[];
    assert.equal(text.results, links.map((l) => [l.source, l.target, l.value, l.average_conversion_time]), label);
    if (links.length >= 2) answered++;
  }
  assert.ok(answered >= 8, `charts with two edges or more: ${answered}`);
});

s.run();
