// The `hogql` texts issue 28 (item 5) still lacked: stickiness with an intervalCount (spans
// of that many days back from the range's end) and cohort breakdowns past their limit. Each
// text, run as a HogQLQuery on the same server, gives exactly the insight's numbers, over a
// seeded crowd of persons active on many days at instants that test the spans' edges
// (midnight, the last millisecond of a day, the range's own end), in several cohorts each.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { insightWithText, runHogQL } from '../helpers/hogql-texts.js';

const s = suite('insights: hogql text of stickiness spans and cohort breakdowns past their limit');
let t: TestServer;
let api: ApiCall;
const cohorts: number[] = [];

// Times of day (UTC) including a span's edges: midnight, the last millisecond, the explicit
// ranges' ends below (12:00 and 06:30) and a millisecond either side of them.
const TIMES = ['00:00:00.000', '00:00:00.001', '06:29:59.999', '06:30:00.000', '09:15:42.250', '11:59:59.999', '12:00:00.000', '12:00:00.001', '18:45:00.500', '23:59:59.999'];
const EVENTS = ['$pageview', '$pageview', 'signup', 'purchase'];

function crowd(): Record<string, unknown>[] {
  const rnd = mulberry32(2854);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const out: Record<string, unknown>[] = [];
  for (let p = 0; p < 24; p++) {
    // Active on a share of the days from May 12th to June 16th, more or less loyal.
    const loyalty = 0.1 + rnd() * 0.6;
    for (let day = 0; day < 36; day++) {
      if (rnd() > loyalty) continue;
      const date = new Date(Date.parse('2024-05-12T00:00:00Z') + day * 86_400_000).toISOString().slice(0, 10);
      const count = 1 + Math.floor(rnd() * 3);
      for (let i = 0; i < count; i++) {
        out.push({ uuid: randomUUID(), event: pick(EVENTS), distinct_id: `p${p}`, timestamp: `${date}T${pick(TIMES)}Z`, properties: { price: Math.floor(rnd() * 50) } });
      }
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
  // Four static cohorts that overlap: every third person, every other, the first ten, the last five.
  const members = [(p: number) => p % 3 === 0, (p: number) => p % 2 === 0, (p: number) => p < 10, (p: number) => p >= 19];
  for (const [i, member] of members.entries()) {
    const distinct_ids = Array.from({ length: 24 }, (_, p) => p).filter(member).map((p) => `p${p}`);
    const r = await api('POST', `/api/projects/${t.projectId}/cohorts/`, t.personalKey, { name: `C${i}`, is_static: true, distinct_ids });
    assert.is(r.status, 201, JSON.stringify(r.body));
    cohorts.push(r.body.id as number);
  }
});
s.after(async () => { await t?.close(); });

const insight = (query: Record<string, unknown>) => insightWithText(api, t, query);
const run = async (text: string) => (await runHogQL(api, t, text)).results;
async function inTimezone(zone: string, body: () => Promise<void>): Promise<void> {
  await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone: zone });
  try {
    await body();
  } finally {
    await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone: 'UTC' });
  }
}

type Sticky = { data: number[]; days: number[]; count: number };

// Each run's SELECT (series, then the previous period's) gives its bars: rows of persons and
// the number of spans they were active in.
async function stickinessAgrees(body: { hogql: string; results: Sticky[] }): Promise<void> {
  const selects = body.hogql.split(' UNION ALL ');
  assert.is(selects.length, body.results.length, body.hogql);
  for (const [i, item] of body.results.entries()) {
    const rows = await run(selects[i]);
    const byN = new Map(rows.map(([total, n]) => [Number(n), Number(total)]));
    assert.equal(item.days.map((d) => byN.get(d) ?? 0), item.data, selects[i]);
    assert.is([...byN.values()].reduce((a, b) => a + b, 0), item.count, `no row past the bars: ${selects[i]}`);
  }
}

const june = { date_from: '2024-06-01', date_to: '2024-06-14' };
const stickiness = (intervalCount: number, extra: Record<string, unknown> = {}) =>
  insight({ kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: june, intervalCount, ...extra });

s('stickiness with intervalCount: spans of k days back from the range’s end, as the text counts them', async () => {
  for (const k of [2, 3, 5]) {
    const body = await stickiness(k);
    assert.is(body.results[0].data.length, Math.ceil(14 / k));
    // Non-trivial: persons at several bars, the crowd's 24 not all in one.
    assert.ok(body.results[0].data.filter((n: number) => n > 0).length >= 2, JSON.stringify(body.results[0].data));
    assert.match(body.hogql, new RegExp(`intDiv\\(dateDiff\\('day', timestamp, toDate\\('2024-06-14'\\)\\), ${k}\\)`));
    await stickinessAgrees(body);
  }
  // Several series, a criterion, and the period before (ending at the range's first midnight).
  await stickinessAgrees(await stickiness(3, {
    series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: null, properties: [{ key: 'price', operator: 'gt', value: 20 }] }],
    compareFilter: { compare: true },
  }));
  await stickinessAgrees(await stickiness(2, { stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } }));
});

s('stickiness with intervalCount over explicit instants: the end’s time of day splits the days', async () => {
  // Ends at noon: an event at 12:00:00.001 on a day is in the span of the day after's.
  for (const dateRange of [{ date_from: '2024-06-01T06:30:00Z', date_to: '2024-06-13T12:00:00Z', explicitDate: true }, { date_from: '2024-05-20T00:00:00Z', date_to: '2024-06-09T06:30:00Z', explicitDate: true }]) {
    for (const k of [2, 4]) {
      const body = await stickiness(k, { dateRange, compareFilter: { compare: true } });
      assert.match(body.hogql, /toHour\(timestamp\)/);
      await stickinessAgrees(body);
    }
  }
});

s('stickiness with intervalCount in the project’s time zone: its days, not UTC’s', async () => {
  await inTimezone('Asia/Tokyo', async () => {
    for (const k of [2, 3]) await stickinessAgrees(await stickiness(k));
    await stickinessAgrees(await stickiness(2, { dateRange: { date_from: '2024-06-01T06:30:00Z', date_to: '2024-06-13T12:00:00Z', explicitDate: true } }));
  });
});

type Item = { data: number[]; days: string[]; breakdown_value?: unknown; aggregated_value?: number };
const OTHER = '$$_posthog_breakdown_other_$$';

// A trends answer's text gives its numbers per period and breakdown value (rows of total,
// period, value; a total value: rows of total and value); none the insight lacks.
async function trendsAgree(body: { hogql: string; results: Item[] }, total = false): Promise<void> {
  const rows = await run(body.hogql);
  const key = (period: unknown, value: unknown) => `${total ? '' : String(period).replace('T', ' ').slice(0, 10)}|${String(value)}`;
  const fromText = new Map(rows.map((row) => [total ? key(null, row[1]) : key(row[1], row[2]), Number(row[0])]));
  const keys = new Set<string>();
  for (const item of body.results) {
    if (total) {
      keys.add(key(null, item.breakdown_value));
      assert.is(fromText.get(key(null, item.breakdown_value)) ?? 0, item.aggregated_value, `${String(item.breakdown_value)} in ${body.hogql}`);
      continue;
    }
    item.days.forEach((day, i) => {
      keys.add(key(day, item.breakdown_value));
      assert.is(fromText.get(key(day, item.breakdown_value)) ?? 0, item.data[i], `${key(day, item.breakdown_value)} in ${body.hogql}`);
    });
  }
  for (const [k, n] of fromText) assert.ok(keys.has(k) || n === 0, `${k} only in ${body.hogql}`);
}

const byCohorts = (limit: number, extra: Record<string, unknown> = {}) => ({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [...cohorts, 'all'], breakdown_limit: limit, ...extra } });
const trends = (math: string, extra: Record<string, unknown> = {}) =>
  insight({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math, ...(math === 'sum' ? { math_property: 'price' } : {}) }], interval: 'day', dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, ...byCohorts(2), ...extra });

s('trends by cohorts past the limit: each event once per cohort of its person, the rest folded into other', async () => {
  const counts = await trends('total');
  const values = counts.results.map((i: Item) => String(i.breakdown_value));
  // The top two (by events: "all" and the half of the crowd), then other: C0, C2 and C3 folded.
  assert.equal(values.sort(), [String(cohorts[1]), OTHER, 'all'].sort());
  assert.match(counts.hogql, /ARRAY JOIN arrayFilter/);
  await trendsAgree(counts);
  for (const math of ['dau', 'sum', 'weekly_active']) await trendsAgree(await trends(math));
  await trendsAgree(await trends('dau', byCohorts(3)));
  await trendsAgree(await trends('total', byCohorts(2, { breakdown_hide_other_aggregation: true })));
  await trendsAgree(await trends('dau', { trendsFilter: { display: 'ActionsTable' } }), true);
  await trendsAgree(await trends('total', { compareFilter: { compare: true } }));
});

type RetentionRow = { date: string; breakdown_value: unknown; values: { count: number }[] };

s('texts of explicit ranges end a microsecond past the range’s last instant, as the insight', async () => {
  // Events at 12:00:00.000 on June 13th count in a range ending then: the text's bound is 12:00:00.000001.
  const dateRange = { date_from: '2024-06-08T12:00:00Z', date_to: '2024-06-13T12:00:00Z', explicitDate: true };
  const counts = await trends('total', { dateRange, breakdownFilter: undefined, properties: [{ key: 'price', operator: 'lt', value: 40 }] });
  assert.match(counts.hogql, /timestamp < toDateTime\('2024-06-13T12:00:00\.000001Z'\)/);
  await trendsAgree(counts);
  await trendsAgree(await trends('dau', { dateRange }));
});

s('retention by cohorts past the limit: the cohorts past it summed into other', async () => {
  for (const retentionType of ['retention_first_time', 'retention_recurring']) {
    const body = await insight({
      kind: 'RetentionQuery', dateRange: { date_from: '2024-05-12', date_to: '2024-05-19' }, ...byCohorts(2),
      retentionFilter: { period: 'Day', totalIntervals: 6, retentionType, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: null, type: 'events' } },
    });
    assert.ok(body.results.some((r: RetentionRow) => r.breakdown_value === OTHER), JSON.stringify(body).slice(0, 3000));
    const rows = await run(body.hogql);
    const fromText = new Map(rows.map(([value, cohort, k, n]) => [`${String(value)}|${String(cohort).slice(0, 10)}|${String(k)}`, Number(n)]));
    let seen = 0;
    for (const row of body.results as RetentionRow[]) {
      row.values.forEach((v, k) => {
        const key = `${String(row.breakdown_value)}|${row.date.slice(0, 10)}|${k}`;
        assert.is(fromText.get(key) ?? 0, v.count, `${key}: ${body.hogql}`);
        if (v.count !== 0) seen++;
      });
    }
    assert.is(seen, [...fromText.values()].filter((n) => n !== 0).length, body.hogql);
    assert.ok(seen > 10, body.hogql);
  }
});

s('funnels by cohorts past the limit: a person of several folded cohorts goes through other once', async () => {
  type Step = { breakdown_value: unknown; count: number; average_conversion_time: number | null; median_conversion_time: number | null };
  for (const funnelOrderType of ['ordered', 'strict', 'unordered']) {
    const body = await insight({
      kind: 'FunnelsQuery', dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, funnelsFilter: { funnelOrderType }, ...byCohorts(2),
      series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }],
    });
    const fromFunnel = Object.fromEntries(body.results.map((steps: Step[]) => [
      String(steps[0].breakdown_value), [...steps.map((x) => x.count), ...steps.slice(1).flatMap((x) => [x.average_conversion_time, x.median_conversion_time])],
    ]));
    assert.ok(OTHER in fromFunnel, JSON.stringify(Object.keys(fromFunnel)));
    const rows = await run(body.hogql);
    assert.equal(Object.fromEntries(rows.map(([value, ...columns]) => [String(value), columns])), fromFunnel, body.hogql);
  }
});

s.run();
