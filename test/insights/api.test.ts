// The query API and saved insights against the real server: events captured over HTTP reach
// the aggregation worker through the log; queries answer in PostHog's shapes under every
// refresh mode, in the background with a query status to poll, from a result cache; insights
// are listed, created, read, changed and soft-deleted with their results, as JSON or CSV.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { eventually, postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const a = suite('insights: query and insights API');
let t: TestServer;
let api: ApiCall;
const env = () => `/api/environments/${t.projectId}`;
const day = (offset: number, hour = 12) => {
  const d = new Date();
  d.setUTCHours(hour, 0, 0, 0);
  return new Date(d.getTime() + offset * 86_400_000).toISOString();
};
const pageviews = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-3d' } };
const dau = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '-3d' } };

a.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS });
  api = apiClient(t);
  const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) =>
    ({ uuid: randomUUID(), event, distinct_id, timestamp, properties });
  const batch = [
    ev('$pageview', 'anon-1', day(-2, 9)),
    ev('$pageview', 'anon-1', day(-2, 10)),
    ev('$identify', 'user-1', day(-2, 11), { $anon_distinct_id: 'anon-1', $set: { email: 'one@example.com' } }),
    ev('$pageview', 'user-1', day(-1)),
    ev('$pageview', 'user-2', day(-1), { $browser: 'Safari' }),
    ev('$pageview', 'user-2', day(0, 0)),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  // The aggregation worker has loaded every event (its position at the log's end), then
  // a query counts them.
  await t.applied();
  const loaded = await api('POST', `${env()}/query/`, t.personalKey, { query: pageviews, refresh: 'force_blocking' });
  assert.is(loaded.status, 200, JSON.stringify(loaded.body));
  assert.is(loaded.body.results[0].count, 5);
});
a.after(async () => { await t?.close(); });

a('a trends query: PostHog’s response with the cache fields; unique users counted through the merge', async () => {
  const r = await api('POST', `${env()}/query/`, t.personalKey, { query: dau, refresh: 'force_blocking' });
  assert.is(r.status, 200);
  assert.equal(r.body.results[0].data, [0, 1, 2, 1]);
  assert.is(r.body.is_cached, false);
  assert.match(r.body.cache_key, /^cache_[0-9a-f]{32}$/);
  assert.is(r.body.timezone, 'UTC');
  for (const field of ['last_refresh', 'next_allowed_client_refresh', 'cache_target_age']) assert.ok(!Number.isNaN(Date.parse(r.body[field])), field);
  assert.ok(Date.parse(r.body.cache_target_age) > Date.parse(r.body.last_refresh));
  assert.equal(Object.keys(r.body.resolved_date_range), ['date_from', 'date_to']);
  assert.is(r.body.query_status, null);
});

a('the project’s time zone and week start reach the query', async () => {
  const weekly = { kind: 'TrendsQuery', series: [{ event: '$pageview' }], interval: 'week', dateRange: { date_from: '2024-06-05', date_to: '2024-06-12' } };
  const sunday = await api('POST', `${env()}/query/`, t.personalKey, { query: weekly });
  assert.equal(sunday.body.results[0].days, ['2024-06-02', '2024-06-09']);
  await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { week_start_day: 1, timezone: 'Asia/Tokyo' });
  try {
    const monday = await api('POST', `${env()}/query/`, t.personalKey, { query: weekly });
    assert.equal(monday.body.results[0].days, ['2024-06-03', '2024-06-10']);
    assert.is(monday.body.timezone, 'Asia/Tokyo');
    assert.is(monday.body.resolved_date_range.date_from, '2024-06-05T00:00:00+09:00');
    assert.is.not(monday.body.cache_key, sunday.body.cache_key);
  } finally {
    await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { week_start_day: 0, timezone: 'UTC' });
  }
});

a('filterTestAccounts applies the project’s test_account_filters, edited on the project API', async () => {
  const filtered = { ...pageviews, filterTestAccounts: true };
  const none = await api('POST', `${env()}/query/`, t.personalKey, { query: filtered, refresh: 'force_blocking' });
  assert.is(none.body.results[0].count, 5, 'no test account filters yet: nothing left out');
  assert.equal((await api('GET', `/api/projects/${t.projectId}/`, t.personalKey)).body.test_account_filters, []);
  const bad = await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { test_account_filters: [{ value: 'x' }] });
  assert.is(bad.status, 400);
  assert.is(bad.body.attr, 'test_account_filters');
  // The one page view with a browser is user-2's Safari one.
  const filters = [{ key: '$browser', operator: 'is_not_set', type: 'event' }];
  const patched = await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { test_account_filters: filters });
  assert.equal(patched.body.test_account_filters, filters);
  try {
    const applied = await api('POST', `${env()}/query/`, t.personalKey, { query: filtered, refresh: 'blocking' });
    assert.is(applied.body.results[0].count, 4);
    assert.is.not(applied.body.cache_key, none.body.cache_key);
    const off = await api('POST', `${env()}/query/`, t.personalKey, { query: pageviews, refresh: 'force_blocking' });
    assert.is(off.body.results[0].count, 5);
  } finally {
    await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { test_account_filters: [] });
  }
});

a('path_cleaning_filters: edited on the project API (regexes checked), read by paths queries with pathReplacements', async () => {
  assert.equal((await api('GET', `/api/projects/${t.projectId}/`, t.personalKey)).body.path_cleaning_filters, []);
  const bad = await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { path_cleaning_filters: [{ regex: '(', alias: 'x' }] });
  assert.is(bad.status, 400);
  assert.is(bad.body.attr, 'path_cleaning_filters');
  assert.is((await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { path_cleaning_filters: [{ regex: 'x' }] })).status, 400);
  const paths = { kind: 'PathsQuery', pathsFilter: { pathReplacements: true }, dateRange: { date_from: '-3d' } };
  const before = await api('POST', `${env()}/query/`, t.personalKey, { query: paths, refresh: 'force_blocking' });
  assert.is(before.status, 200, JSON.stringify(before.body));
  const rules = [{ alias: 'page', regex: '^\\$pageview$', order: 0 }];
  const patched = await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { path_cleaning_filters: rules });
  assert.equal(patched.body.path_cleaning_filters, rules);
  try {
    assert.equal((await api('GET', `/api/projects/${t.projectId}/`, t.personalKey)).body.path_cleaning_filters, rules);
    // The answer depends on the rules now: not the cached one from before them.
    const after = await api('POST', `${env()}/query/`, t.personalKey, { query: paths, refresh: 'blocking' });
    assert.is(after.status, 200);
    assert.is.not(after.body.cache_key, before.body.cache_key);
  } finally {
    await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { path_cleaning_filters: null });
  }
  assert.equal((await api('GET', `/api/projects/${t.projectId}/`, t.personalKey)).body.path_cleaning_filters, []);
});

a('refresh modes: blocking and force_cache reuse a fresh result, force_blocking recalculates, force_cache misses', async () => {
  const first = await api('POST', `${env()}/query/`, t.personalKey, { query: pageviews, refresh: 'force_blocking' });
  const cached = await api('POST', `${env()}/query/`, t.personalKey, { query: pageviews, refresh: 'blocking' });
  assert.is(cached.body.is_cached, true);
  assert.is(cached.body.last_refresh, first.body.last_refresh);
  assert.is(cached.body.cache_key, first.body.cache_key);
  assert.equal(cached.body.results, first.body.results);
  // The same query with its keys in another order is the same cache entry.
  const reordered = { dateRange: { date_from: '-3d' }, series: [{ event: '$pageview', kind: 'EventsNode' }], kind: 'TrendsQuery' };
  assert.is((await api('POST', `${env()}/query/`, t.personalKey, { query: reordered, refresh: 'force_cache' })).body.is_cached, true);
  const again = await api('POST', `${env()}/query/`, t.personalKey, { query: pageviews, refresh: 'force_blocking' });
  assert.is(again.body.is_cached, false);
  assert.ok(Date.parse(again.body.last_refresh) >= Date.parse(first.body.last_refresh));
  const miss = await api('POST', `${env()}/query/`, t.personalKey, { query: { ...pageviews, interval: 'week' }, refresh: 'force_cache' });
  assert.is(miss.status, 200);
  assert.is(miss.body.results, null);
  assert.is(miss.body.is_cached, false);
  assert.match(miss.body.cache_key, /^cache_/);
});

a('async: 202 with a query status, polled until complete; a client query id names it', async () => {
  const query = { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-3d' } };
  const started = await api('POST', `${env()}/query/`, t.personalKey, { query, refresh: 'force_async', client_query_id: 'my-query-1' });
  assert.is(started.status, 202);
  const status = started.body.query_status;
  assert.is(status.id, 'my-query-1');
  assert.is(status.query_async, true);
  assert.is(status.team_id, t.projectId);
  for (const field of ['complete', 'error', 'error_message', 'results', 'start_time', 'end_time', 'pickup_time', 'expiration_time']) assert.ok(field in status, field);
  const done = await eventually(async () => {
    const r = await api('GET', `${env()}/query/my-query-1/`, t.personalKey);
    return r.status === 200 ? r : null;
  }, 20_000);
  assert.is(done.body.query_status.complete, true);
  assert.is(done.body.query_status.error, false);
  assert.equal(done.body.query_status.results.results.map((i: { status: string }) => i.status), ['new', 'returning', 'resurrecting', 'dormant']);
  // Now cached: async answers at once with the result.
  const cached = await api('POST', `${env()}/query/`, t.personalKey, { query, refresh: 'async' });
  assert.is(cached.status, 200);
  assert.is(cached.body.is_cached, true);
  assert.is((await api('GET', `${env()}/query/no-such-query/`, t.personalKey)).status, 404);
});

a('cancel: DELETE ends a background calculation; unknown ids are 404', async () => {
  const funnel = { kind: 'FunnelsQuery', series: [{ event: '$pageview' }, { event: '$identify' }], dateRange: { date_from: '-3d' } };
  const started = await api('POST', `${env()}/query/`, t.personalKey, { query: funnel, refresh: 'force_async' });
  const id = started.body.query_status.id;
  assert.is((await api('DELETE', `${env()}/query/${id}/`, t.personalKey)).status, 204);
  const after = await api('GET', `${env()}/query/${id}/`, t.personalKey);
  assert.is(after.status, 200);
  assert.is(after.body.query_status.complete, true);
  assert.is((await api('DELETE', `${env()}/query/nothing-here/`, t.personalKey)).status, 404);
});

a('the persons behind a number: an ActorsQuery around an InsightActorsQuery, under /environments/ and /projects/, with an action series; a bad cell is a 400 naming it', async () => {
  const made = await api('POST', `/api/projects/${t.projectId}/actions/`, t.personalKey, { name: 'All pageviews (actors)', steps: [{ event: '$pageview' }] });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const trends = { ...dau, series: [{ kind: 'ActionsNode', id: made.body.id, math: 'dau' }] };
  const point = await api('POST', `${env()}/query/`, t.personalKey, { query: trends, refresh: 'force_blocking' });
  const yesterday = point.body.results[0].days[2];
  assert.is(point.body.results[0].data[2], 2);
  const query = { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: trends, day: yesterday } };
  for (const base of [env(), `/api/projects/${t.projectId}`]) {
    const r = await api('POST', `${base}/query/`, t.personalKey, { query });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.equal([r.body.columns, r.body.hasMore, r.body.limit, r.body.offset], [['actor', 'event_count'], false, 100, 0]);
    const people = (r.body.results as [Record<string, unknown>, number][]).map(([actor, count]) => [(actor.distinct_ids as string[]).sort(), count]);
    assert.equal(people.sort(), [[['anon-1', 'user-1'], 1], [['user-2'], 1]]);
    const one = (r.body.results as [Record<string, unknown>][]).find(([actor]) => (actor.distinct_ids as string[]).includes('user-1'))![0];
    assert.equal((one.properties as Record<string, unknown>).email, 'one@example.com');
  }
  const searched = await api('POST', `${env()}/query/`, t.personalKey, { query: { ...query, search: 'one@example' } });
  assert.is(searched.body.results.length, 1);
  const bad = await api('POST', `${env()}/query/`, t.personalKey, { query: { ...query, source: { ...query.source, day: '1999-01-01' } } });
  assert.equal([bad.status, bad.body.attr], [400, 'source.day']);
});

a('a query the engine cannot run is a 400 naming the field; a missing query too', async () => {
  const bad = await api('POST', `${env()}/query/`, t.personalKey, { query: { ...pageviews, interval: 'fortnight' } });
  assert.is(bad.status, 400);
  assert.equal(bad.body, { type: 'validation_error', code: 'invalid_input', detail: bad.body.detail, attr: 'interval' });
  const kind = await api('POST', `${env()}/query/`, t.personalKey, { query: { kind: 'SessionsTimelineQuery', query: 'select 1' } });
  assert.is(kind.status, 400);
  assert.match(kind.body.detail, 'Unsupported query kind');
  const none = await api('POST', `${env()}/query/`, t.personalKey, {});
  assert.equal(none.body, { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'query' });
  const mode = await api('POST', `${env()}/query/`, t.personalKey, { query: pageviews, refresh: 'sometimes' });
  assert.is(mode.status, 400);
  assert.is(mode.body.attr, 'refresh');
});

a('scopes: query:read runs queries (POST included); insight:read lists but cannot create', async () => {
  const owner = t.server.tenancy.userByEmail('admin@hedgerow.local')!;
  const key = async (scopes: string[]) => (await t.server.tenancy.createPersonalKey(owner.id, scopes, null, 'scoped')).key;
  assert.is((await api('POST', `${env()}/query/`, await key(['query:read']), { query: pageviews })).status, 200);
  const refused = await api('POST', `${env()}/query/`, await key(['insight:write']), { query: pageviews });
  assert.is(refused.status, 403);
  assert.is(refused.body.detail, "API key missing required scope 'query:read'");
  const reader = await key(['insight:read']);
  assert.is((await api('GET', `${env()}/insights/`, reader)).status, 200);
  assert.is((await api('POST', `${env()}/insights/`, reader, { name: 'x' })).body.detail, "API key missing required scope 'insight:write'");
});

a('insights: create, read with a refresh mode, list with filters, PATCH, soft delete, DELETE 405, both prefixes', async () => {
  const created = await api('POST', `/api/projects/${t.projectId}/insights/`, t.personalKey, {
    name: 'Page views', description: 'daily', query: { kind: 'InsightVizNode', source: pageviews }, saved: true, tags: ['web'],
  });
  assert.is(created.status, 201);
  const insight = created.body;
  assert.match(insight.short_id, /^[A-Za-z0-9]{8}$/);
  for (const field of ['id', 'short_id', 'name', 'derived_name', 'filters', 'query', 'order', 'deleted', 'dashboards', 'dashboard_tiles',
    'last_refresh', 'cache_target_age', 'next_allowed_client_refresh', 'result', 'hasMore', 'columns', 'created_at', 'created_by',
    'description', 'updated_at', 'tags', 'favorited', 'saved', 'last_modified_at', 'last_modified_by', 'is_sample',
    'effective_restriction_level', 'effective_privilege_level', 'user_access_level', 'timezone', 'is_cached', 'query_status', 'hogql', 'types']) {
    assert.ok(field in insight, field);
  }
  assert.is(insight.created_by.email, 'admin@hedgerow.local');
  // Default force_cache: the result the query API cached for the same query.
  assert.is(insight.result[0].count, 5);
  assert.is(insight.is_cached, true);

  const fresh = await api('GET', `${env()}/insights/${insight.id}/?refresh=force_blocking`, t.personalKey);
  assert.is(fresh.status, 200);
  assert.is(fresh.body.is_cached, false);
  assert.equal(fresh.body.result[0].data, [0, 2, 2, 1]);
  const started = await api('GET', `${env()}/insights/${insight.id}/?refresh=force_async`, t.personalKey);
  assert.is(started.body.query_status.insight_id, insight.id);
  assert.is(started.body.result[0].count, 5);

  const other = await api('POST', `${env()}/insights/`, t.personalKey, { name: 'Never calculated', query: { ...pageviews, interval: 'hour' } });
  assert.is(other.body.result, null);
  assert.is(other.body.last_refresh, null);

  const byShort = await api('GET', `${env()}/insights/?short_id=${insight.short_id}`, t.personalKey);
  assert.equal(byShort.body.results.map((i: { id: number }) => i.id), [insight.id]);
  assert.is(byShort.body.count, 1);
  const mine = await api('GET', `${env()}/insights/?created_by=${insight.created_by.id}&limit=1`, t.personalKey);
  assert.is(mine.body.count >= 2, true);
  assert.is(mine.body.results.length, 1);
  assert.match(mine.body.next, /offset=1/);

  const patched = await api('PATCH', `${env()}/insights/${insight.id}/`, t.personalKey, { name: 'Renamed', favorited: true });
  assert.is(patched.body.name, 'Renamed');
  assert.is(patched.body.favorited, true);
  const bad = await api('PATCH', `${env()}/insights/${insight.id}/`, t.personalKey, { query: { kind: 'TrendsQuery', series: [] } });
  assert.is(bad.status, 400);
  assert.is(bad.body.attr, 'query.series');

  assert.is((await api('DELETE', `${env()}/insights/${insight.id}/`, t.personalKey)).status, 405);
  assert.is((await api('PATCH', `${env()}/insights/${insight.id}/`, t.personalKey, { deleted: true })).body.deleted, true);
  const listed = await api('GET', `${env()}/insights/`, t.personalKey);
  assert.not.ok(listed.body.results.some((i: { id: number }) => i.id === insight.id));
  assert.is((await api('GET', `${env()}/insights/999999/`, t.personalKey)).status, 404);
});

a('format=csv: the listed insights’ results, a row per series with a column per day', async () => {
  const created = await api('POST', `${env()}/insights/`, t.personalKey, { name: 'For CSV', query: pageviews });
  await api('GET', `${env()}/insights/${created.body.id}/?refresh=blocking`, t.personalKey);
  const r = await api('GET', `${env()}/insights/?format=csv&short_id=${created.body.short_id}`, t.personalKey);
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', 'text/csv');
  const lines = String(r.body).trim().split('\r\n');
  const header = lines[0].split(',');
  assert.equal(header.slice(0, 3), ['insight', 'name', 'series']);
  assert.is(header.length, 3 + 4);
  assert.equal(lines[1].split(','), [created.body.short_id, 'For CSV', '$pageview', '0', '2', '2', '1']);
  assert.is((await api('GET', `${env()}/insights/?format=xml`, t.personalKey)).status, 400);
});

a('a series of an action counts what the action matches as it is now; an unknown action is a 400 naming the series', async () => {
  const made = await api('POST', `/api/projects/${t.projectId}/actions/`, t.personalKey, {
    name: 'Safari pageviews', steps: [{ event: '$pageview', properties: [{ key: '$browser', value: 'Safari', operator: 'exact', type: 'event' }] }],
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const query = { kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: made.body.id }], dateRange: { date_from: '-3d' }, trendsFilter: { display: 'BoldNumber' } };
  const first = await api('POST', `${env()}/query/`, t.personalKey, { query });
  assert.is(first.status, 200, JSON.stringify(first.body));
  assert.equal([first.body.results[0].aggregated_value, first.body.results[0].label, first.body.results[0].action.type], [1, 'Safari pageviews', 'actions']);
  // Changed steps ask another question: not the cached answer.
  await api('PATCH', `/api/projects/${t.projectId}/actions/${made.body.id}/`, t.personalKey, { steps: [{ event: '$pageview' }] });
  const second = await api('POST', `${env()}/query/`, t.personalKey, { query });
  assert.is(second.body.results[0].aggregated_value, 5);
  assert.is.not(second.body.cache_key, first.body.cache_key);
  const unknown = await api('POST', `${env()}/query/`, t.personalKey, { query: { ...query, series: [{ kind: 'ActionsNode', id: 987654 }] } });
  assert.equal([unknown.status, unknown.body.attr, unknown.body.detail], [400, 'series.0.id', 'Action 987654 does not exist']);
  // A paths query's funnel names its actions as a query of its own does.
  const around = (id: number) => ({ kind: 'PathsQuery', pathsFilter: {}, funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelStep: 1, funnelSource: { kind: 'FunnelsQuery', series: [{ kind: 'ActionsNode', id }, { kind: 'EventsNode', event: '$pageview' }] } } });
  const paths = await api('POST', `${env()}/query/`, t.personalKey, { query: around(made.body.id) });
  assert.is(paths.status, 200, JSON.stringify(paths.body));
  const unknownInFunnel = await api('POST', `${env()}/query/`, t.personalKey, { query: around(987654) });
  assert.equal([unknownInFunnel.status, unknownInFunnel.body.attr], [400, 'funnelPathsFilter.funnelSource.series.0.id']);
});

a('a cohort filter counts the events of the cohort\'s persons, as the cohort is now', async () => {
  const made = await api('POST', `/api/projects/${t.projectId}/cohorts/`, t.personalKey, {
    name: 'Example people', filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'email', type: 'person', operator: 'icontains', value: '@example.com' }] }] } },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const query = { ...pageviews, properties: [{ key: 'id', type: 'cohort', value: made.body.id }], trendsFilter: { display: 'BoldNumber' } };
  // user-1 (who was anon-1 before $identify set the email): 3 pageviews; user-2 has no email.
  const r = await api('POST', `${env()}/query/`, t.personalKey, { query });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.results[0].aggregated_value, 3);
  await api('PATCH', `/api/projects/${t.projectId}/cohorts/${made.body.id}/`, t.personalKey, { deleted: true });
  const gone = await api('POST', `${env()}/query/`, t.personalKey, { query });
  assert.equal([gone.status, gone.body.detail, gone.body.attr], [400, `Cohort ${made.body.id} does not exist`, 'properties.0']);
});

a('a behavioural cohort on an action: the API resolves the action the cohort names; its steps decide the members', async () => {
  const action = async (event: string) => (await api('POST', `/api/projects/${t.projectId}/actions/`, t.personalKey, { name: `Did ${event}`, steps: [{ event }] })).body.id as number;
  const cohortOn = async (id: number) => (await api('POST', `/api/projects/${t.projectId}/cohorts/`, t.personalKey, {
    name: `On action ${id}`, filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: id, type: 'behavioral', value: 'performed_event', event_type: 'actions', time_value: 30, time_interval: 'day' }] }] } },
  })).body.id as number;
  const viewers = await cohortOn(await action('$pageview'));
  const nobody = await cohortOn(await action('never-sent'));
  const count = async (properties: unknown[]) => {
    const r = await api('POST', `${env()}/query/`, t.personalKey, { query: { ...pageviews, properties, trendsFilter: { display: 'BoldNumber' } } });
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body.results[0].aggregated_value as number;
  };
  const all = await count([]);
  assert.ok(all > 0);
  // Everyone who viewed a page is in the first cohort; nobody did the second's event.
  assert.is(await count([{ key: 'id', type: 'cohort', value: viewers }]), all);
  assert.is(await count([{ key: 'id', type: 'cohort', value: nobody }]), 0);
});

a.run();
