// The insights' own `hogql` texts (funnels, paths around a funnel's step, retention,
// lifecycle, trends, weekly actives, stickiness) take the fast HogQL parser, and what it
// reads is the WASM parser's JSON, deep-equal, positions included: window functions over
// (…) and over a named window with its WINDOW clause, `not (…)`, range(), an alias named
// cohort, a table function (numbers(n)). On the WASM parser alone such a text took seconds
// of a core to parse, each time it was run as a HogQLQuery.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import createHogQLParser from '@posthog/hogql-parser';
import { fastParse } from '../../src/hogql/parser/index.js';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { insightWithText } from '../helpers/hogql-texts.js';

const s = suite('hogql: the insights\' texts on the fast parser');
const wasm = await createHogQLParser();
let t: TestServer;
let api: ApiCall;

s.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS });
  api = apiClient(t);
});
s.after(async () => { await t?.close(); });

const dateRange = { date_from: '2024-06-01', date_to: '2024-06-04' };
const steps = [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }];
const funnel = (extra: Record<string, unknown> = {}) => ({ kind: 'FunnelsQuery', series: steps, dateRange, ...extra });
const pageviews = { id: '$pageview', type: 'events' };
const INSIGHTS: [string, Record<string, unknown>][] = [
  ['funnel with an exclusion', funnel({ funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'cancel', funnelFromStep: 0, funnelToStep: 1 }] } })],
  ['funnel, time to convert', funnel({ funnelsFilter: { funnelVizType: 'time_to_convert' } })],
  ['funnel, steps', funnel()],
  ['funnel, unordered', funnel({ funnelsFilter: { funnelOrderType: 'unordered' } })],
  ['funnel, strict', funnel({ funnelsFilter: { funnelOrderType: 'strict' } })],
  ['funnel, trends', funnel({ funnelsFilter: { funnelVizType: 'trends' } })],
  ['funnel by a property', funnel({ breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } })],
  ['paths', { kind: 'PathsQuery', dateRange, pathsFilter: { includeEventTypes: ['$pageview'] } }],
  ['paths from a start point', { kind: 'PathsQuery', dateRange, pathsFilter: { includeEventTypes: ['$pageview', 'custom_event'], startPoint: 'https://h.example/' } }],
  ...['funnel_path_after_step', 'funnel_path_before_step', 'funnel_path_between_steps'].map((funnelPathType): [string, Record<string, unknown>] => [
    `paths, ${funnelPathType}`, { kind: 'PathsQuery', dateRange, pathsFilter: { includeEventTypes: ['$pageview'] }, funnelPathsFilter: { funnelPathType, funnelStep: 2, funnelSource: funnel() } },
  ]),
  ['retention', { kind: 'RetentionQuery', dateRange, retentionFilter: { targetEntity: pageviews, returningEntity: pageviews, period: 'Day', totalIntervals: 3 } }],
  ['retention, cumulative, by a property', {
    kind: 'RetentionQuery', dateRange, retentionFilter: { targetEntity: pageviews, returningEntity: pageviews, period: 'Week', totalIntervals: 3, cumulative: true },
    breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
  }],
  ['trends by a property', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }],
  ['weekly active users, compared with the period before', {
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'weekly_active' }], dateRange, compareFilter: { compare: true },
  }],
  ['stickiness', { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange }],
  ['lifecycle', { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange }],
];

s('each insight\'s text takes the fast path and reads as the WASM parser reads it', async () => {
  for (const [name, query] of INSIGHTS) {
    const { hogql } = await insightWithText(api, t, query);
    const fast = fastParse('select', hogql);
    assert.ok(fast !== null, `${name}: left to the WASM parser`);
    assert.equal(JSON.parse(fast), JSON.parse(wasm.parseSelect(hogql, false)), name);
  }
});

s.run();
