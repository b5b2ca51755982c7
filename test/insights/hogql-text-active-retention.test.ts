// The `hogql` field of the insights that lacked one (issue 28, item 5): weekly and monthly
// active users, retention with a breakdown or cumulative, and cohort breakdowns. Each text,
// run through /query/ as a HogQLQuery, gives exactly the insight's numbers, on five persons
// over three weeks whose browsers, plans and cohorts differ.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const h = suite('insights: hogql text of active users, retention and cohort breakdowns');
let t: TestServer;
let api: ApiCall;
let pro = 0;
let picked = 0;

const insight = async (query: Record<string, unknown>) => {
  const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query, refresh: 'force_blocking' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body;
};
const run = async (text: string) => {
  assert.type(text, 'string');
  const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query: text }, refresh: 'force_blocking' });
  assert.is(r.status, 200, `${text}: ${JSON.stringify(r.body)}`);
  return r.body.results as unknown[][];
};

h.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const batch: Record<string, unknown>[] = [];
  const at = (day: string, hour = 10) => `2024-${day}T${String(hour).padStart(2, '0')}:00:00Z`;
  const ev = (event: string, who: string, day: string, properties: Record<string, unknown> = {}, hour = 10) =>
    batch.push({ uuid: randomUUID(), event, distinct_id: who, timestamp: at(day, hour), properties });
  // u1 and u3 are on the pro plan, u2 and u5 on free, u4 on none; u4's browser changes.
  ev('$pageview', 'u1', '06-01', { $browser: 'Chrome', $set: { plan: 'pro' } });
  for (const d of ['06-02', '06-09', '06-10']) ev('$pageview', 'u1', d, { $browser: 'Chrome' });
  for (const d of ['06-03', '06-10']) ev('purchase', 'u1', d, { price: 10 });
  ev('$pageview', 'u2', '06-03', { $browser: 'Safari', $set: { plan: 'free' } });
  for (const d of ['06-04', '06-05', '06-12']) ev('$pageview', 'u2', d, { $browser: 'Safari' });
  ev('$pageview', 'u2', '06-05', { $browser: 'Safari' }, 15);
  ev('purchase', 'u2', '06-05', { price: 25 });
  ev('$pageview', 'u3', '06-06', { $browser: 'Firefox', $set: { plan: 'pro' } });
  ev('$pageview', 'u3', '06-15', { $browser: 'Firefox' });
  for (const d of ['06-07', '06-15']) ev('purchase', 'u3', d, { price: 40 });
  for (const [d, b] of [['06-02', 'Chrome'], ['06-08', 'Safari'], ['06-14', 'Chrome'], ['06-18', 'Safari']]) ev('$pageview', 'u4', d, { $browser: b });
  ev('$pageview', 'u5', '05-28', { $browser: 'Edge', $set: { plan: 'free' } });
  for (const d of ['06-11', '06-20']) ev('$pageview', 'u5', d, { $browser: 'Edge' });
  // u1's and u2's pageviews are the company acme's, u4's of June 8th beta's.
  for (const e of batch as { event: string; distinct_id: string; timestamp: string; properties: Record<string, unknown> }[]) {
    if (e.event === '$pageview' && (e.distinct_id === 'u1' || e.distinct_id === 'u2')) e.properties.$groups = { company: 'acme' };
    if (e.distinct_id === 'u4' && e.timestamp.startsWith('2024-06-08')) e.properties.$groups = { company: 'beta' };
  }
  // Late on June 2nd UTC: already June 3rd in Tokyo.
  ev('purchase', 'u4', '06-02', { price: 5 }, 22);
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
  const cohort = async (body: Record<string, unknown>) => {
    const r = await api('POST', `/api/projects/${t.projectId}/cohorts/`, t.personalKey, body);
    assert.is(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  };
  pro = await cohort({ name: 'Pro', filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', operator: 'exact', value: 'pro' }] } } });
  picked = await cohort({ name: 'Picked', is_static: true, distinct_ids: ['u2', 'u4'] });
});
h.after(async () => { await t?.close(); });

type Item = { data: number[]; days: string[]; breakdown_value?: unknown; aggregated_value?: number; compare_label?: string };

// A trends answer's text gives its numbers per period (and breakdown value): rows of total,
// period and value; no row where the insight has 0, none the insight lacks.
async function trendsAgree(body: { hogql: string; results: Item[] }, hours = false): Promise<void> {
  const rows = await run(body.hogql);
  const period = (x: unknown) => String(x).replace('T', ' ').slice(0, hours ? 19 : 10);
  const fromText = new Map(rows.map((row) => [[period(row[1]), ...row.slice(2).map(String)].join('|'), Number(row[0])]));
  const keys = new Set<string>();
  for (const item of body.results) {
    item.days.forEach((day, i) => {
      const key = [period(day), ...(item.breakdown_value === undefined ? [] : [String(item.breakdown_value)])].join('|');
      keys.add(key);
      assert.is(fromText.get(key) ?? 0, item.data[i], `${key} in ${body.hogql}`);
    });
  }
  for (const [key, n] of fromText) assert.ok(keys.has(key) || n === 0, `${key} only in ${body.hogql}`);
}

// A total value per series (and breakdown value): rows of total and value.
async function totalsAgree(body: { hogql: string; results: Item[] }): Promise<void> {
  const rows = await run(body.hogql);
  const fromText = new Map(rows.map((row) => [row.slice(1).map(String).join('|'), Number(row[0])]));
  for (const item of body.results) {
    const key = item.breakdown_value === undefined ? '' : String(item.breakdown_value);
    assert.is(fromText.get(key) ?? 0, item.aggregated_value, `${key} in ${body.hogql}`);
  }
  assert.is(fromText.size, body.results.length, body.hogql);
}

const june = { dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, interval: 'day' };
const pageviews = (math: string) => [{ kind: 'EventsNode', event: '$pageview', math }];
const trends = (series: unknown[], extra: Record<string, unknown> = {}) => insight({ kind: 'TrendsQuery', ...june, series, ...extra });

h('weekly and monthly active users: the days crossed with each person’s active days, as PostHog writes them', async () => {
  const weekly = await trends(pageviews('weekly_active'));
  // Active on the day or the six before: u5's May 28th pageview counts until June 3rd.
  assert.equal(weekly.results[0].data, [2, 3, 4, 3, 3, 4, 4, 4, 4, 4]);
  assert.match(weekly.hogql, /CROSS JOIN \(SELECT addDays\(toDate\('2024-06-01'\), number\) AS day_start FROM numbers\(10\)\) d/);
  assert.match(weekly.hogql, /e\.day > subtractDays\(toDate\(d\.day_start\), 7\)/);
  await trendsAgree(weekly);
  const monthly = await trends(pageviews('monthly_active'));
  assert.equal(monthly.results[0].data, [2, 3, 4, 4, 4, 5, 5, 5, 5, 5]);
  await trendsAgree(monthly);
  // Weeks and months: each period's count as of its first day; several series and a period compared.
  await trendsAgree(await trends(pageviews('weekly_active'), { dateRange: { date_from: '2024-06-01', date_to: '2024-06-30' }, interval: 'week' }));
  await trendsAgree(await trends(pageviews('monthly_active'), { dateRange: { date_from: '2024-05-01', date_to: '2024-07-31' }, interval: 'month' }));
  const compared = await trends([{ kind: 'EventsNode', event: 'purchase', math: 'monthly_active' }], { dateRange: { date_from: '2024-06-11', date_to: '2024-06-20' }, compareFilter: { compare: true } });
  assert.equal(compared.results.map((i: Item) => i.compare_label), ['current', 'previous']);
  await trendsAgree(compared);
  // Hours: each hour's count as of its day (here in Tokyo, where June 2nd begins at 15:00 UTC on the 1st).
  await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone: 'Asia/Tokyo' });
  try {
    const hourly = await trends(pageviews('weekly_active'), { dateRange: { date_from: '2024-06-01T12:00:00Z', date_to: '2024-06-02T12:00:00Z', explicitDate: true }, interval: 'hour' });
    assert.ok(new Set(hourly.results[0].data).size > 1, JSON.stringify(hourly.results[0].data));
    await trendsAgree(hourly, true);
  } finally {
    await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone: 'UTC' });
  }
  // Groups where the query counts them: the companies active in the week.
  const companies = await trends(pageviews('weekly_active'), { aggregation_group_type_index: 0 });
  assert.equal(companies.results[0].data, [1, 1, 1, 1, 1, 1, 1, 2, 2, 2]);
  await trendsAgree(companies);
  // A total value: those active in the range's last window of days.
  const bold = await trends(pageviews('weekly_active'), { trendsFilter: { display: 'BoldNumber' } });
  assert.is(bold.results[0].aggregated_value, 4);
  await totalsAgree(bold);
});

h('active users by a breakdown: values past the limit folded into other, or hidden', async () => {
  const byBrowser = await trends(pageviews('weekly_active'), { breakdownFilter: { breakdown: '$browser' } });
  const data = Object.fromEntries(byBrowser.results.map((i: Item) => [i.breakdown_value, i.data]));
  // u4 is active in Chrome from June 2nd and in Safari from June 8th.
  assert.equal(data.Chrome, [1, 2, 2, 2, 2, 2, 2, 2, 1, 1]);
  assert.equal(data.Safari, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2]);
  await trendsAgree(byBrowser);
  const folded = await trends(pageviews('monthly_active'), { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } });
  assert.ok(folded.results.some((i: Item) => i.breakdown_value === '$$_posthog_breakdown_other_$$'));
  await trendsAgree(folded);
  await trendsAgree(await trends(pageviews('weekly_active'), { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2, breakdown_hide_other_aggregation: true } }));
  await trendsAgree(await trends(pageviews('weekly_active'), { breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } }));
  await totalsAgree(await trends(pageviews('monthly_active'), { trendsFilter: { display: 'ActionsTable' }, breakdownFilter: { breakdown: '$browser' } }));
});

h('active users in the project’s time zone: its days, not UTC’s', async () => {
  await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone: 'Asia/Tokyo' });
  try {
    const purchases = await trends([{ kind: 'EventsNode', event: 'purchase', math: 'weekly_active' }], { dateRange: { date_from: '2024-06-01', date_to: '2024-06-04' } });
    // u4's purchase at 22:00 UTC on June 2nd is June 3rd in Tokyo; u1's at 10:00 UTC on June 3rd.
    assert.equal(purchases.results[0].data, [0, 0, 2, 2]);
    await trendsAgree(purchases);
  } finally {
    await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone: 'UTC' });
  }
});

h('cohort breakdowns in trends: a SELECT per cohort over its persons’ events, the value the cohort', async () => {
  const cohorts = { breakdown_type: 'cohort', breakdown: [pro, picked, 'all'] };
  const counts = await trends([{ kind: 'EventsNode', event: '$pageview' }], { breakdownFilter: cohorts });
  // Pro: u1's four pageviews and u3's one; picked: u2's four and u4's two; all: theirs.
  assert.equal(Object.fromEntries(counts.results.map((i: Item & { count: number }) => [i.breakdown_value, i.count])), { [pro]: 5, [picked]: 6, all: 11 });
  assert.match(counts.hogql, new RegExp(`person_id IN COHORT ${pro}`));
  await trendsAgree(counts);
  await trendsAgree(await trends([{ kind: 'EventsNode', event: 'purchase', math: 'dau' }], { breakdownFilter: cohorts, interval: 'week' }));
  const active = await trends(pageviews('weekly_active'), { breakdownFilter: cohorts });
  assert.equal(active.results.find((i: Item) => i.breakdown_value === pro).data, [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
  await trendsAgree(active);
  await totalsAgree(await trends([{ kind: 'EventsNode', event: null, math: 'dau' }], { trendsFilter: { display: 'ActionsPie' }, breakdownFilter: cohorts }));
  // More cohorts than the limit fold some into "other": one SELECT over the events once per cohort (hogql-text-remaining tests it further).
  const past = await trends(pageviews('dau'), { breakdownFilter: { ...cohorts, breakdown_limit: 2 } });
  assert.ok(past.results.some((i: Item) => i.breakdown_value === '$$_posthog_breakdown_other_$$'));
  await trendsAgree(past);
});

type RetentionRow = { date: string; breakdown_value: unknown; values: { count: number }[] };

// A retention answer's text gives each cohort's persons per period (and breakdown value).
async function retentionAgrees(body: { hogql: string; results: RetentionRow[] }, byValue: boolean): Promise<void> {
  const rows = await run(body.hogql);
  const fromText = new Map(rows.map((row) => {
    const [value, cohort, k, n] = byValue ? row : [null, ...row];
    return [`${byValue ? String(value) : ''}|${String(cohort).slice(0, 10)}|${String(k)}`, Number(n)];
  }));
  let seen = 0;
  for (const row of body.results) {
    row.values.forEach((v, k) => {
      const key = `${byValue ? String(row.breakdown_value) : ''}|${row.date.slice(0, 10)}|${k}`;
      assert.is(fromText.get(key) ?? 0, v.count, `${key}: ${body.hogql}`);
      if (v.count !== 0) seen++;
    });
  }
  assert.is(seen, [...fromText.values()].filter((n) => n !== 0).length, body.hogql);
  assert.ok(seen > 3, body.hogql);
}

const retention = (retentionFilter: Record<string, unknown>, extra: Record<string, unknown> = {}) => insight({
  kind: 'RetentionQuery', dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' },
  retentionFilter: { period: 'Day', totalIntervals: 8, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' }, ...retentionFilter },
  ...extra,
});

h('retention by a breakdown: each (person, value) followed on its own, values past the limit as other', async () => {
  const byBrowser = await retention({ retentionType: 'retention_recurring' }, { breakdownFilter: { breakdown: '$browser' } });
  const chrome = byBrowser.results.filter((r: RetentionRow) => r.breakdown_value === 'Chrome');
  // June 2nd's Chrome cohort: u1 and u4; u1 is back in Chrome on the 9th (7 days on), u4 not in Chrome before the 14th.
  assert.equal(chrome[1].values.map((v: { count: number }) => v.count), [2, 0, 0, 0, 0, 0, 0, 1]);
  await retentionAgrees(byBrowser, true);
  for (const retentionType of ['retention_first_time', 'retention_recurring']) {
    await retentionAgrees(await retention({ retentionType }, { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } }), true);
    await retentionAgrees(await retention({ retentionType, returningEntity: { id: 'purchase', type: 'events' } }, { breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } }), true);
  }
  const folded = await retention({ retentionType: 'retention_first_time' }, { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } });
  assert.ok(folded.results.some((r: RetentionRow) => r.breakdown_value === '$$_posthog_breakdown_other_$$'));
  // Groups where the query counts them, by the browser of their events.
  await retentionAgrees(await retention({ retentionType: 'retention_recurring' }, { aggregation_group_type_index: 0, breakdownFilter: { breakdown: '$browser' } }), true);
  const companies = await retention({ retentionType: 'retention_first_time' }, { aggregation_group_type_index: 0 });
  // acme first on June 1st (u1), back on the 2nd to the 5th; beta first on the 8th, never back.
  assert.equal(companies.results[0].values.map((v: { count: number }) => v.count), [1, 1, 1, 1, 1, 0, 0, 0]);
  assert.equal(companies.results[7].values[0].count, 1);
  await retentionAgrees(companies, false);
  await retentionAgrees(await retention({ retentionType: 'retention_recurring', minimumOccurrences: 2, returningEntity: { id: null, type: 'events' } }, { breakdownFilter: { breakdown_type: 'hogql', breakdown: "if(person.properties.plan = 'pro', 'paying', 'not')" } }), true);
});

h('cumulative retention: a person counted in every period up to their furthest return', async () => {
  const plain = await retention({ retentionType: 'retention_recurring', totalIntervals: 10 });
  const cumulative = await retention({ retentionType: 'retention_recurring', totalIntervals: 10, cumulative: true });
  // June 1st's cohort (u1) is back on the 2nd, the 9th and the 10th: every period to 9 counts it.
  assert.equal(plain.results[0].values.map((v: { count: number }) => v.count), [1, 1, 0, 0, 0, 0, 0, 0, 1, 1]);
  assert.equal(cumulative.results[0].values.map((v: { count: number }) => v.count), [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  await retentionAgrees(cumulative, false);
  await retentionAgrees(await retention({ retentionType: 'retention_first_time', cumulative: true, returningEntity: { id: null, type: 'events' } }), false);
  await retentionAgrees(await retention({ retentionType: 'retention_recurring', cumulative: true }, { breakdownFilter: { breakdown: '$browser' } }), true);
  await retentionAgrees(await retention({ retentionType: 'retention_first_time', cumulative: true, period: 'Week', totalIntervals: 3 }, { dateRange: { date_from: '2024-05-26', date_to: '2024-06-20' } }), false);
});

h('retention by cohort: each cohort’s persons followed over their own events, the value the cohort', async () => {
  const byCohort = await retention({ retentionType: 'retention_first_time' }, { breakdownFilter: { breakdown_type: 'cohort', breakdown: [pro, picked, 'all'] } });
  assert.equal(new Set(byCohort.results.map((r: RetentionRow) => String(r.breakdown_value))), new Set([String(pro), String(picked), '0']));
  assert.match(byCohort.hogql, new RegExp(`person_id IN COHORT ${picked}`));
  await retentionAgrees(byCohort, true);
  await retentionAgrees(await retention({ retentionType: 'retention_recurring', cumulative: true }, { breakdownFilter: { breakdown_type: 'cohort', breakdown: [picked] } }), true);
});

h('funnels by cohort: each cohort’s persons through the funnel over their own events', async () => {
  for (const funnelOrderType of ['ordered', 'strict', 'unordered']) {
    const funnel = await insight({
      kind: 'FunnelsQuery', dateRange: june.dateRange, funnelsFilter: { funnelOrderType },
      series: [{ kind: 'EventsNode', event: 'purchase' }, { kind: 'EventsNode', event: '$pageview' }],
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [pro, picked, 'all'] },
    });
    type Step = { breakdown_value: unknown; count: number; average_conversion_time: number | null; median_conversion_time: number | null };
    const counts = Object.fromEntries(funnel.results.map((steps: Step[]) => [String(steps[0].breakdown_value), steps.map((x) => x.count)]));
    // u3 (pro) has no pageview after its purchase of June 7th within the range.
    if (funnelOrderType === 'ordered') assert.equal(counts, { [pro]: [2, 1], [picked]: [2, 2], all: [4, 3] });
    // The text's row per cohort: the persons at each step, then each later step's average and median conversion time.
    const fromFunnel = Object.fromEntries(funnel.results.map((steps: Step[]) => [
      String(steps[0].breakdown_value), [...steps.map((x) => x.count), ...steps.slice(1).flatMap((x) => [x.average_conversion_time, x.median_conversion_time])],
    ]));
    const rows = await run(funnel.hogql);
    assert.equal(Object.fromEntries(rows.map(([value, ...columns]) => [String(value), columns])), fromFunnel, funnel.hogql);
  }
});

h.run();
