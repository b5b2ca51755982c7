// Cohort property filters in insights: a dynamic cohort's members are the persons whose
// properties meet its conditions now (nested cohorts too), a static cohort's are the persons
// behind its distinct ids; `not_in` keeps everyone else. Behavioural cohorts are the persons
// whose events meet them (performed, a number of times, for the first time, in a window, with
// event filters; stopped, restarted, regularly, in sequence); filters on actions, incomplete
// filters and cohorts that name themselves are refused naming the field.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ResolvedCohort } from '../../src/insights/planner/properties.js';
import type { ResolvedAction } from '../../src/insights/planner/actions.js';
import { ev, person, PROJECT, run, storePerSuite, type TestStore } from './helpers.js';

const s = suite('insights: cohort filters');
let store: TestStore;
const NOW = '2024-06-10T12:00:00Z';

const group = (type: 'AND' | 'OR', ...values: unknown[]) => ({ type, values });
const personFilter = (key: string, operator: string, value: unknown) => ({ key, operator, value, type: 'person' });
const cohortFilter = (id: number, operator = 'in') => ({ key: 'id', type: 'cohort', value: id, operator });
const behavioural = (value: string, key: string, more: Record<string, unknown> = {}) => ({ type: 'behavioral', value, key, event_type: 'events', ...more });
const dynamic = (id: number, properties: unknown): ResolvedCohort => ({ id, is_static: false, properties, distinctIds: [] });

const COHORTS: Record<string, ResolvedCohort> = Object.fromEntries([
  { ...dynamic(10, group('OR', group('AND', personFilter('plan', 'exact', 'pro')))), name: 'Pro' },
  { id: 11, is_static: true, properties: null, distinctIds: ['user-2', 'nobody-here'] },
  dynamic(12, group('OR', group('AND', cohortFilter(11)), group('AND', personFilter('email', 'icontains', 'corp')))),
  dynamic(13, group('AND', group('AND', { key: '$pageview', type: 'behavioral', value: 'performed_event', event_type: 'events' }))),
  dynamic(14, group('AND', cohortFilter(14))),
  // A person property with a date operator: the runner resolves its values first.
  dynamic(15, group('AND', personFilter('signed_up', 'is_date_before', '2024-02-01'))),
  dynamic(16, group('AND', behavioural('performed_event_multiple', '$pageview', { operator: 'gte', operator_value: 2, time_value: 30, time_interval: 'day' }))),
  dynamic(17, group('AND', behavioural('performed_event_multiple', '$pageview', { operator: 'lte', operator_value: 1, time_value: 30, time_interval: 'day' }))),
  dynamic(18, group('AND', behavioural('performed_event', 'purchase', { explicit_datetime: '-7d', event_filters: [{ key: 'amount', operator: 'gt', value: 10, type: 'event' }] }))),
  dynamic(19, group('AND', behavioural('performed_event', 'purchase', { explicit_datetime: '-7d', event_filters: [{ key: 'amount', operator: 'gt', value: 100, type: 'event' }] }))),
  dynamic(20, group('AND', behavioural('performed_event_first_time', '$pageview', { time_value: 3, time_interval: 'day' }))),
  dynamic(21, group('AND', behavioural('performed_event_first_time', '$pageview', { time_value: 1, time_interval: 'month' }))),
  dynamic(22, group('AND', personFilter('plan', 'exact', 'pro'), behavioural('performed_event', 'purchase', { negation: true }))),
  dynamic(23, group('AND', behavioural('performed_event_regularly', '$pageview', { time_value: 3, time_interval: 'day' }))),
  dynamic(24, group('AND', behavioural('performed_event', '1', { event_type: 'actions' }))),
  // Logins in the last 30 days but none in the last 7; before 14 days ago, none then until 3 days ago, and again since.
  dynamic(30, group('AND', behavioural('stopped_performing_event', 'login', { time_value: 30, time_interval: 'day', seq_time_value: 7, seq_time_interval: 'day' }))),
  dynamic(31, group('AND', behavioural('restarted_performing_event', 'login', { time_value: 14, time_interval: 'day', seq_time_value: 3, seq_time_interval: 'day' }))),
  // Of the last three weeks, logged in in at least two; at least twice in at least one.
  dynamic(32, group('AND', behavioural('performed_event_regularly', 'login', { operator: 'gte', operator_value: 1, time_value: 7, time_interval: 'day', total_periods: 3, min_periods: 2 }))),
  dynamic(33, group('AND', behavioural('performed_event_regularly', 'login', { operator: 'gte', operator_value: 2, time_value: 7, time_interval: 'day', total_periods: 3, min_periods: 1 }))),
  // In the last 30 days, a login then a payment within an hour; within three hours.
  dynamic(34, group('AND', behavioural('performed_event_sequence', 'login', { time_value: 30, time_interval: 'day', seq_event: 'pay', seq_event_type: 'events', seq_time_value: 1, seq_time_interval: 'hour' }))),
  dynamic(35, group('AND', behavioural('performed_event_sequence', 'login', { time_value: 30, time_interval: 'day', seq_event: 'pay', seq_event_type: 'events', seq_time_value: 3, seq_time_interval: 'hour' }))),
  dynamic(36, group('AND', behavioural('stopped_performing_event', 'login', { time_value: 7, time_interval: 'day', seq_time_value: 7, seq_time_interval: 'day' }))),
  // The same on action 7 (its one step: the login event); a sequence from the action to payments.
  dynamic(37, group('AND', behavioural('performed_event', '7', { event_type: 'actions', time_value: 7, time_interval: 'day' }))),
  dynamic(38, group('AND', behavioural('stopped_performing_event', '7', { event_type: 'actions', time_value: 30, time_interval: 'day', seq_time_value: 7, seq_time_interval: 'day' }))),
  dynamic(39, group('AND', behavioural('performed_event_sequence', '7', { event_type: 'actions', time_value: 30, time_interval: 'day', seq_event: 'pay', seq_event_type: 'events', seq_time_value: 1, seq_time_interval: 'hour' }))),
].map((c) => [String(c.id), c]));

storePerSuite(s, async (opened) => {
  store = opened;
  await store.loader.load({
    events: [
      ...[1, 2, 3].map((n) => ev(n, '$pageview', '2024-06-03T10:00:00Z')),
      ev(1, '$pageview', '2024-06-08T10:00:00Z'), ev(1, '$pageview', '2024-05-01T10:00:00Z'),
      ev(3, 'purchase', '2024-06-09T10:00:00Z', { amount: 50 }),
      ev(1, 'login', '2024-05-20T10:00:00Z'), ev(1, 'login', '2024-06-09T10:00:00Z'), ev(1, 'pay', '2024-06-09T10:30:00Z'),
      ev(2, 'login', '2024-05-21T10:00:00Z'), ev(2, 'pay', '2024-05-30T09:00:00Z'), ev(2, 'login', '2024-05-30T10:00:00Z'),
      ev(3, 'login', '2024-06-05T10:00:00Z'), ev(3, 'pay', '2024-06-05T12:00:00Z'), ev(3, 'login', '2024-06-09T10:00:00Z'),
    ],
    persons: [
      { project_id: PROJECT, id: person(1), created_at: '2024-01-01T00:00:00Z', properties: { plan: 'pro', email: 'a@corp.com', signed_up: '2024-01-15' } },
      { project_id: PROJECT, id: person(2), created_at: '2024-01-01T00:00:00Z', properties: { plan: 'free', email: 'b@gmail.com', signed_up: '2024-03-01' } },
      { project_id: PROJECT, id: person(3), created_at: '2024-01-01T00:00:00Z', properties: { plan: 'pro' } },
    ],
    distinctIds: [1, 2, 3].map((n) => ({ project_id: PROJECT, distinct_id: `user-${n}`, person_id: person(n) })),
  });
});

const step = { event: null, properties: null, selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null, url: null, url_matching: null };
const ACTIONS: Record<string, ResolvedAction> = { 7: { id: 7, name: 'Logged in', steps: [{ ...step, event: 'login' }] } };

async function users(properties: unknown): Promise<number> {
  const r = await run(store, {
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], trendsFilter: { display: 'BoldNumber' },
    dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, properties,
  }, { now: NOW, cohorts: COHORTS, actions: ACTIONS });
  return (r.results as { aggregated_value: number }[])[0].aggregated_value;
}

s('a dynamic cohort: the persons whose properties meet its conditions; not_in: everyone else', async () => {
  assert.is(await users([cohortFilter(10)]), 2);
  assert.is(await users([cohortFilter(10, 'not_in')]), 1);
});

s('a static cohort: the persons behind its distinct ids', async () => {
  assert.is(await users([cohortFilter(11)]), 1);
  assert.is(await users([{ ...cohortFilter(11), type: 'precalculated-cohort' }]), 1);
});

s('a cohort that names another, and one decided by a date operator', async () => {
  assert.is(await users([cohortFilter(12)]), 2);
  assert.is(await users([cohortFilter(15)]), 1);
});

s('behavioural cohorts: performed an event, in a window, a number of times, for the first time, with event filters', async () => {
  assert.is(await users([cohortFilter(13)]), 3);
  assert.is(await users([cohortFilter(13, 'not_in')]), 0);
  // user-1 viewed twice in the last 30 days (a third view is older); the others once.
  assert.is(await users([cohortFilter(16)]), 1);
  assert.is(await users([cohortFilter(17)]), 2);
  // user-3 bought for 50 two days ago: more than 10, not more than 100.
  assert.is(await users([cohortFilter(18)]), 1);
  assert.is(await users([cohortFilter(19)]), 0);
  // Nobody's first view falls in the last 3 days; everyone's in the last month but user-1's (May 1st is older).
  assert.is(await users([cohortFilter(20)]), 0);
  assert.is(await users([cohortFilter(21)]), 2);
  // Pro and did not buy: user-1 (user-3 bought).
  assert.is(await users([cohortFilter(22)]), 1);
});

s('behavioural cohorts: stopped, restarted, regularly and in sequence, as PostHog defines them', async () => {
  // Every person viewed on June 3rd, so users() is the cohort's size. Now is June 10th 12:00.
  // Stopped: logins in (May 11th, June 3rd 12:00] and none since: user-2 (user-1 logged in on June 9th; user-3 only since).
  assert.is(await users([cohortFilter(30)]), 1);
  assert.is(await users([cohortFilter(30, 'not_in')]), 2);
  // Restarted: a login up to May 27th 12:00 (users 1 and 2), none then to June 7th 12:00 (user-2 on May 30th), one since: user-1.
  assert.is(await users([cohortFilter(31)]), 1);
  // Weeks ending June 10th, 3rd, May 27th (12:00): user-1 logs in the first (May 20th 10:00 is before the third's start),
  // user-2 in the third and second, user-3 twice in the first.
  assert.is(await users([cohortFilter(32)]), 1);
  assert.is(await users([cohortFilter(33)]), 1);
  assert.is(await users([cohortFilter(32), cohortFilter(33)]), 0);
  // user-1 pays 30 minutes after a login; user-3 two hours after; user-2 pays before logging in.
  assert.is(await users([cohortFilter(34)]), 1);
  assert.is(await users([cohortFilter(35)]), 2);
});

s('behavioural cohorts on an action: its steps match the events (performed, stopped, in sequence)', async () => {
  // Logins in the last 7 days: users 1 and 3.
  assert.is(await users([cohortFilter(37)]), 2);
  assert.is(await users([cohortFilter(38)]), 1);
  assert.is(await users([cohortFilter(39)]), 1);
});

s('behavioural kinds hedgerow does not compute, cohorts naming themselves and unknown cohorts are refused naming the field', async () => {
  const refusals = [
    // A regularly filter without its operator, periods and counts cannot be computed.
    [23, /operator must be one of/, /values\.0\.operator$/], [24, /Action 1 does not exist/, /values\.0\.key$/],
    [36, /must be shorter than time_value/, /values\.0\.seq_time_value$/],
    [14, /names itself/, null], [99, /Cohort 99 does not exist/, null],
  ] as const;
  for (const [id, message, attr] of refusals) {
    try {
      await users([cohortFilter(id)]);
      assert.unreachable(`cohort ${id} was accepted`);
    } catch (err) {
      assert.match((err as Error).message, message);
      if (attr) assert.match(String((err as { attr?: unknown }).attr), attr);
    }
  }
});

s('cohort breakdowns in trends: an event counts once for each listed cohort its person is in, "all" for everyone', async () => {
  const r = await run(store, {
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], trendsFilter: { display: 'BoldNumber' },
    dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [10, 11, 'all'] },
  }, { now: NOW, cohorts: COHORTS });
  const items = r.results as { breakdown_value: unknown; label: string; aggregated_value: number }[];
  assert.equal(items.map((i) => [i.breakdown_value, i.label, i.aggregated_value]), [['all', 'all users', 4], [10, 'Pro', 3], [11, 'Cohort 11', 1]]);
  // Per day, the same split.
  const daily = await run(store, {
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }],
    dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [10] },
  }, { now: NOW, cohorts: COHORTS });
  const [pro] = daily.results as { breakdown_value: unknown; data: number[] }[];
  assert.is(pro.breakdown_value, 10);
  assert.equal(pro.data, [0, 0, 2, 0, 0, 0, 0, 1, 0, 0]);
});

s('cohort breakdowns in funnels and retention: each cohort its own funnel or row set; unknown cohorts refused naming the field', async () => {
  const r = await run(store, {
    kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'purchase' }],
    dateRange: { date_from: '2024-06-01', date_to: '2024-06-10' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [10, 'all'] },
  }, { now: NOW, cohorts: COHORTS });
  const lists = r.results as { breakdown_value: unknown; count: number }[][];
  assert.equal(lists.map((steps) => [steps[0].breakdown_value, ...steps.map((x) => x.count)]), [['all', 3, 1], [10, 2, 1]]);
  const refusal = async (query: unknown, attr: string) => {
    try {
      await run(store, query, { now: NOW, cohorts: COHORTS });
      assert.unreachable('accepted');
    } catch (err) {
      assert.is((err as { attr?: unknown }).attr, attr);
    }
  };
  // Retention: a row set per cohort, its value the cohort's id as text (PostHog's).
  const retention = { kind: 'RetentionQuery', retentionFilter: { targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } } };
  const rows = (await run(store, { ...retention, breakdownFilter: { breakdown_type: 'cohort', breakdown: [10] } }, { now: NOW, cohorts: COHORTS })).results as { breakdown_value: unknown }[];
  assert.ok(rows.length > 0 && rows.every((row) => row.breakdown_value === '10'));
  await refusal({ ...retention, breakdownFilter: { breakdown_type: 'cohort', breakdown: [98] } }, 'breakdownFilter.breakdown.0');
  await refusal({
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown_type: 'cohort', breakdown: [10, 98] },
  }, 'breakdownFilter.breakdown.1');
  await refusal({
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser', '$os'] },
  }, 'breakdownFilter.breakdown');
});

s.run();
