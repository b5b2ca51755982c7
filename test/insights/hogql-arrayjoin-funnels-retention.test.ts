// Funnels and retention broken down by a hogql expression that arrayJoins (issue 28). PostHog
// does not refuse them: its funnel puts the breakdown in its events' SELECT (funnels/base.py,
// _get_breakdown_expr: `[expr] AS prop_basic` for type hogql) and its retention likewise
// (retention apply_breakdown: `breakdown_value` selected and grouped by), so ClickHouse's
// arrayJoin repeats each event once per element, and an event whose array is empty or absent
// leaves the insight altogether, as a step, a start or a return. Then:
//   funnels, all_events   each element value its own funnel (funnel-udf runs once per value);
//   funnels, first_touch  one value a person, argMinIf over those rows (ties at one instant,
//                         an event's own elements, taken least first: ClickHouse leaves them
//                         to its row order); last_touch argMaxIf, greatest first;
//   retention             each (person, element) followed on its own over the events holding it.
// The events (2024-05, UTC; tags as given, "—" none):
//   u1  signup 01 10:00 [a,b]   purchase 01 11:00 [b]   signup 02 10:00 [a]
//   u2  signup 01 10:00 [a]     purchase 02 10:00 []    signup 02 12:00 [b]
//   u3  signup 02 10:00 []      signup 03 10:00 [c]     purchase 03 12:00 [c,a]
//   u4  signup 02 10:00 —       purchase 02 11:00 [b]
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { insightWithText, runHogQL } from '../helpers/hogql-texts.js';

const s = suite('insights: funnels and retention broken down by arrayJoin');
let t: TestServer;
let api: ApiCall;

const TAGS = "replaceAll(arrayJoin(JSONExtractArrayRaw(properties, 'tags')), '\"', '')";
const EVENTS: [string, string, string, string[] | null][] = [
  ['u1', 'signup', '01T10:00', ['a', 'b']], ['u1', 'purchase', '01T11:00', ['b']], ['u1', 'signup', '02T10:00', ['a']],
  ['u2', 'signup', '01T10:00', ['a']], ['u2', 'purchase', '02T10:00', []], ['u2', 'signup', '02T12:00', ['b']],
  ['u3', 'signup', '02T10:00', []], ['u3', 'signup', '03T10:00', ['c']], ['u3', 'purchase', '03T12:00', ['c', 'a']],
  ['u4', 'signup', '02T10:00', null], ['u4', 'purchase', '02T11:00', ['b']],
];

s.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const batch = EVENTS.map(([distinct_id, event, at, tags]) => ({
    uuid: randomUUID(), event, distinct_id, timestamp: `2024-05-${at}:00Z`, properties: tags === null ? {} : { tags },
  }));
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
});
s.after(async () => { await t?.close(); });

const dateRange = { date_from: '2024-05-01', date_to: '2024-05-03' };
type Step = { count: number; breakdown_value: unknown };

async function funnel(breakdownAttributionType: string): Promise<Record<string, number[]>> {
  const query = {
    kind: 'FunnelsQuery', dateRange, series: ['signup', 'purchase'].map((event) => ({ kind: 'EventsNode', event })),
    funnelsFilter: { breakdownAttributionType }, breakdownFilter: { breakdown_type: 'hogql', breakdown: [TAGS] },
  };
  const body = await insightWithText(api, t, query);
  const chart = Object.fromEntries((body.results as Step[][]).map((steps) => [String(steps[0].breakdown_value), steps.map((x) => x.count)]));
  // The insight's text, run as a HogQLQuery, gives the same persons at each step per value.
  const text = await runHogQL(api, t, body.hogql);
  assert.equal(Object.fromEntries(text.results.map(([value, one, two]) => [String(value), [one, two]])), chart, body.hogql);
  return chart;
}

s('funnel, all_events: each element value its own funnel; u2’s purchase with no tags is no step', async () => {
  // a: u1 and u2 sign up with a, neither buys with a (u3 buys with a, never signed up with it).
  // b: u1 signs up and buys with b; u2 signs up with b on the 2nd and never buys; u4 only buys.
  assert.equal(await funnel('all_events'), { a: [2, 0], b: [2, 1], c: [1, 1] });
});

s('funnel, first touch: a person’s first event’s least element; last touch: the last event’s greatest', async () => {
  // u1 → a (its first event holds a and b) and converts; u2 → a, stops (its purchase had no
  // tags); u3 → c (its empty signup is gone) and converts; u4 never signs up with a tag.
  assert.equal(await funnel('first_touch'), { a: [2, 1], c: [1, 1] });
  // u1's last event: signup [a]; u2's: signup [b]; u3's: purchase [c, a] → c.
  assert.equal(await funnel('last_touch'), { a: [1, 1], b: [1, 0], c: [1, 1] });
});

type RetentionRow = { date: string; breakdown_value: unknown; values: { count: number }[] };

s('retention: each (person, element) followed on its own over the events holding it', async () => {
  const query = {
    kind: 'RetentionQuery', dateRange,
    retentionFilter: { period: 'Day', totalIntervals: 3, retentionType: 'retention_recurring', targetEntity: { id: 'signup', type: 'events' }, returningEntity: { id: 'signup', type: 'events' } },
    breakdownFilter: { breakdown_type: 'hogql', breakdown: TAGS },
  };
  const body = await insightWithText(api, t, query);
  const rows = body.results as RetentionRow[];
  // (u1,a) on the 1st and 2nd, (u2,a) on the 1st; (u1,b) on the 1st, (u2,b) on the 2nd;
  // (u3,c) on the 3rd. u3's signup on the 2nd had no tags, u4's none: neither is anywhere.
  assert.equal(rows.map((row) => [row.breakdown_value, row.date.slice(0, 10), row.values.map((v) => v.count)]), [
    ['a', '2024-05-01', [2, 1, 0]], ['a', '2024-05-02', [1, 0, 0]], ['a', '2024-05-03', [0, 0, 0]],
    ['b', '2024-05-01', [1, 0, 0]], ['b', '2024-05-02', [1, 0, 0]], ['b', '2024-05-03', [0, 0, 0]],
    ['c', '2024-05-01', [0, 0, 0]], ['c', '2024-05-02', [0, 0, 0]], ['c', '2024-05-03', [1, 0, 0]],
  ]);
  // The text gives each cohort's units per period and value, as the chart.
  const text = await runHogQL(api, t, body.hogql);
  const fromText = new Map(text.results.map(([value, cohort, k, n]) => [`${String(value)}|${String(cohort).slice(0, 10)}|${String(k)}`, Number(n)]));
  const fromChart = new Map(rows.flatMap((row) => row.values.map((v, k) => [`${String(row.breakdown_value)}|${row.date.slice(0, 10)}|${k}`, v.count] as [string, number])).filter(([, n]) => n > 0));
  assert.equal(new Map([...fromText].filter(([, n]) => n > 0)), fromChart, body.hogql);
});

s.run();
