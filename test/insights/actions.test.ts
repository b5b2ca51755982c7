// Series of actions (ActionsNode): an event counts for an action when it matches any of the
// action's steps, and a step when it matches every condition the step sets — the event name,
// the page URL (contains as a case-sensitive LIKE, exact, regex), for $autocapture the
// element chain's tag, link and texts, and property filters — in every query kind with series.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ActionStepRecord } from '../../src/actions/index.js';
import type { ResolvedAction } from '../../src/insights/planner/actions.js';
import { ev, run, storePerSuite, type TestStore } from './helpers.js';

const s = suite('insights: actions in series');
let store: TestStore;
const NOW = '2024-06-10T12:00:00Z';
const RANGE = { date_from: '2024-06-01', date_to: '2024-06-10' };

const step = (fields: Partial<ActionStepRecord>): ActionStepRecord => ({
  event: null, properties: null, selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null,
  url: null, url_matching: 'contains', ...fields,
});
const action = (id: number, name: string, steps: ActionStepRecord[]): ResolvedAction => ({ id, name, steps });
const CHAIN = 'a.btn:attr__href="/signup"href="/signup"nth-child="1"text="Sign up";div.nav:nth-child="2"';

const ACTIONS: Record<string, ResolvedAction> = Object.fromEntries([
  action(1, 'Viewed pricing', [step({ event: '$pageview', url: '/pricing' })]),
  action(2, 'Signed up', [
    step({ event: '$autocapture', text: 'Sign up', text_matching: 'exact' }),
    step({ event: 'signup', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] }),
  ]),
  action(3, 'Docs or pricing', [step({ event: '$pageview', url: '^https://shop\\.example/(docs|pricing)$', url_matching: 'regex' })]),
  action(4, 'Signup link', [step({ event: '$autocapture', href: 'signup', href_matching: 'contains' })]),
  action(5, 'Clicked a link', [step({ event: '$autocapture', tag_name: 'a' })]),
  action(6, 'Exactly docs', [step({ event: '$pageview', url: 'https://shop.example/docs', url_matching: 'exact' })]),
  action(7, 'Anything', []),
  action(8, 'By selector', [step({ event: '$autocapture', selector: 'a.btn' })]),
].map((a) => [String(a.id), a]));

storePerSuite(s, async (opened) => {
  store = opened;
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-06-03T10:00:00Z', { $current_url: 'https://shop.example/pricing' }),
    ev(1, '$pageview', '2024-06-05T10:00:00Z', { $current_url: 'https://shop.example/docs' }),
    ev(2, '$pageview', '2024-06-03T10:00:00Z', { $current_url: 'https://shop.example/docs' }),
    ev(3, '$autocapture', '2024-06-04T10:00:00Z', { $elements_chain: CHAIN }),
    ev(4, '$pageview', '2024-06-04T09:00:00Z', { $current_url: 'https://shop.example/pricing?ref=ad' }),
    ev(4, 'signup', '2024-06-04T10:00:00Z', { plan: 'pro' }),
    ev(5, 'signup', '2024-06-05T10:00:00Z', { plan: 'free' }),
    // LIKE is case-sensitive, as PostHog's action URL match; a regex anchored at $ misses p4's query string.
    ev(6, '$pageview', '2024-06-05T10:00:00Z', { $current_url: 'https://shop.example/PRICING' }),
  ] });
});

const trends = (...ids: number[]) => ({
  kind: 'TrendsQuery', dateRange: RANGE, trendsFilter: { display: 'BoldNumber' },
  series: ids.map((id) => ({ kind: 'ActionsNode', id, math: 'dau' })),
});

s('a trends series counts the events that match its action, named and identified by it', async () => {
  const r = await run(store, trends(1, 2, 3, 4, 5, 6, 7), { now: NOW, actions: ACTIONS });
  const results = r.results as { aggregated_value: number; label: string; action: { id: number; type: string; name: string } }[];
  assert.equal(results.map((x) => [x.action.id, x.aggregated_value]), [[1, 2], [2, 2], [3, 2], [4, 1], [5, 1], [6, 2], [7, 6]]);
  assert.equal([results[0].label, results[0].action.type, results[0].action.name], ['Viewed pricing', 'actions', 'Viewed pricing']);
});

s('a funnel of actions: steps name their action', async () => {
  const r = await run(store, {
    kind: 'FunnelsQuery', dateRange: RANGE, series: [{ kind: 'ActionsNode', id: 1 }, { kind: 'ActionsNode', id: '2' }],
  }, { now: NOW, actions: ACTIONS });
  const steps = r.results as { action_id: number; name: string; type: string; count: number }[];
  assert.equal(steps.map((x) => [x.action_id, x.name, x.type, x.count]), [[1, 'Viewed pricing', 'actions', 2], [2, 'Signed up', 'actions', 1]]);
});

s('stickiness and lifecycle take an action as their series', async () => {
  const sticky = await run(store, { kind: 'StickinessQuery', dateRange: RANGE, series: [{ kind: 'ActionsNode', id: 3 }] }, { now: NOW, actions: ACTIONS });
  const item = (sticky.results as { count: number; action: { id: number; type: string } }[])[0];
  assert.equal([item.count, item.action.id, item.action.type], [2, 3, 'actions']);
  const life = await run(store, { kind: 'LifecycleQuery', dateRange: RANGE, series: [{ kind: 'ActionsNode', id: 2 }] }, { now: NOW, actions: ACTIONS });
  const fresh = (life.results as { status: string; count: number; label: string }[]).find((x) => x.status === 'new')!;
  assert.is(fresh.label, 'Signed up - new');
});

s('retention entities may be actions', async () => {
  const r = await run(store, {
    kind: 'RetentionQuery', dateRange: { date_from: '2024-06-03', date_to: '2024-06-05' },
    retentionFilter: { period: 'Day', totalIntervals: 3, targetEntity: { id: 1, type: 'actions' }, returningEntity: { id: '3', kind: 'ActionsNode' } },
  }, { now: NOW, actions: ACTIONS });
  const cohorts = r.results as { date: string; values: { count: number }[] }[];
  // Pricing viewers: person 1 on the 3rd, back on the 5th for the docs (action 3, not 1);
  // person 4 on the 4th, not back.
  assert.equal(cohorts.map((c) => c.values.map((v) => v.count)), [[1, 0, 1], [1, 0, 0], [0, 0, 0]]);
});

s('an EventsQuery with actionId lists the events the action matches', async () => {
  const r = await run(store, {
    kind: 'EventsQuery', select: ['distinct_id', 'event'], actionId: 2, after: '2024-06-01', orderBy: ['distinct_id'],
  }, { now: NOW, actions: ACTIONS });
  assert.equal(r.results, [['user-3', '$autocapture'], ['user-4', 'signup']]);
});

s('a CSS selector step is refused, and an action the query was not given is an error naming the series', async () => {
  try {
    await run(store, trends(8), { now: NOW, actions: ACTIONS });
    assert.unreachable('a selector step was accepted');
  } catch (err) {
    assert.match((err as Error).message, /CSS selector/);
  }
  try {
    await run(store, trends(99), { now: NOW, actions: ACTIONS });
    assert.unreachable('an unknown action was accepted');
  } catch (err) {
    assert.match((err as Error).message, /Action 99 does not exist/);
  }
});

s.run();
