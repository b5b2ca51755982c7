// Paths around step 1 of an ordered funnel without exclusions (funnelPathsFilter): the chart
// times step 1 as PostHog does, and the insight's `hogql` text, run as a HogQLQuery, gives
// the chart's numbers. PostHog takes the target step's time from the path its funnel UDF
// returns (funnel_udf.py, _get_timestamp_outer_select: matched_events_array[step][1]); that
// path is max_step, which funnel-udf/src/steps.rs moves only when a try reaches a further
// step (`step > vars.max_step.0`). So a person who got no further than step 1 is timed from
// their FIRST step-1 event, however many later tries started; one who converted from the
// latest step-1 event before the step-2 event that converted them.
//
// Funnel: A then B within an hour. The events (2024-07-01, UTC; sessions end after 30 minutes):
//   p1  v 09:50, A 10:00, x 10:10, A 11:00, y 11:05, B 13:00 (too late), z 13:10   → step 1 at 10:00
//   p2  A 10:00, w 10:05, A 10:20, B 10:40                                         → converts, step 1 at 10:20
//   p3  A 09:00, A 09:00 (a tie), x 09:10, y 10:30, z 10:40                         → step 1 at 09:00
//   p4  B 08:05, A 08:30, q 08:35 (B before A counts for nothing)                   → step 1 at 08:30
//   p5  A 12:00, B 12:25, A 14:00                                                   → converts, step 1 at 12:00
// Timing p1 from the latest A before a B (11:00) instead would change every answer below.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { insightWithText, runHogQL } from '../helpers/hogql-texts.js';

const s = suite('insights: paths around step 1 of an ordered funnel, chart and hogql text');
let t: TestServer;
let api: ApiCall;

const EVENTS: [string, string, string][] = [
  ['p1', 'v', '09:50'], ['p1', 'A', '10:00'], ['p1', 'x', '10:10'], ['p1', 'A', '11:00'], ['p1', 'y', '11:05'], ['p1', 'B', '13:00'], ['p1', 'z', '13:10'],
  ['p2', 'A', '10:00'], ['p2', 'w', '10:05'], ['p2', 'A', '10:20'], ['p2', 'B', '10:40'],
  ['p3', 'A', '09:00'], ['p3', 'A', '09:00'], ['p3', 'x', '09:10'], ['p3', 'y', '10:30'], ['p3', 'z', '10:40'],
  ['p4', 'B', '08:05'], ['p4', 'A', '08:30'], ['p4', 'q', '08:35'],
  ['p5', 'A', '12:00'], ['p5', 'B', '12:25'], ['p5', 'A', '14:00'],
];

s.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const batch = EVENTS.map(([distinct_id, event, at]) => ({ uuid: randomUUID(), event, distinct_id, timestamp: `2024-07-01T${at}:00Z`, properties: {} }));
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
});
s.after(async () => { await t?.close(); });

const dateRange = { date_from: '2024-07-01', date_to: '2024-07-01' };
const funnelSource = {
  kind: 'FunnelsQuery', dateRange, series: ['A', 'B'].map((event) => ({ kind: 'EventsNode', event })),
  funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' },
};

async function edges(funnelPathType: string, funnelStep: number): Promise<[string, string, number][]> {
  const query = { kind: 'PathsQuery', dateRange, pathsFilter: {}, funnelPathsFilter: { funnelPathType, funnelStep, funnelSource } };
  const body = await insightWithText(api, t, query);
  const links = body.results as { source: string; target: string; value: number; average_conversion_time: number }[];
  const text = await runHogQL(api, t, body.hogql);
  assert.equal(text.results, links.map((l) => [l.source, l.target, l.value, l.average_conversion_time]), body.hogql);
  return links.map((l) => [l.source, l.target, l.value]);
}

s('the funnel itself: five persons at step 1, two at step 2', async () => {
  const body = await insightWithText(api, t, funnelSource);
  assert.equal((body.results as { count: number }[]).map((x) => x.count), [5, 2]);
});

s('after step 1: each person’s events from their step-1 time', async () => {
  // p1 [A x] [A y] [B z], p2 [A B], p3 [A x] [y z], p4 [A q], p5 [A B] [A].
  assert.equal(await edges('funnel_path_after_step', 1), [
    ['1_A', '2_B', 2], ['1_A', '2_x', 2], ['1_A', '2_q', 1], ['1_A', '2_y', 1], ['1_B', '2_z', 1], ['1_y', '2_z', 1],
  ]);
});

s('after dropping off at step 2: the events once the window has passed since step 1', async () => {
  // p1 from 11:00: [A y] [B z]; p3 from 10:00: [y z]; p4 from 09:30: none.
  assert.equal(await edges('funnel_path_after_step', -2), [['1_A', '2_y', 1], ['1_B', '2_z', 1], ['1_y', '2_z', 1]]);
});

s('before step 1: each person’s events up to their step-1 time', async () => {
  // p1 [v A], p2 [A w A], p3 [A] (the tie folds), p4 [B A], p5 [A].
  assert.equal(await edges('funnel_path_before_step', 1), [['1_A', '2_w', 1], ['1_B', '2_A', 1], ['1_v', '2_A', 1], ['2_w', '3_A', 1]]);
});

s.run();
