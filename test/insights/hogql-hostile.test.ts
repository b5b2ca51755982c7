// Hostile HogQL through the real server (issue 28): every query answers a 400 or only the
// project's own rows, never a 5xx. Another project's events and persons share the store and
// the distinct ids; quotes, backslashes and comments in identifiers and strings stay data;
// DuckDB's table functions, files, settings and statements other than SELECT are out of
// reach; row limits hold. The store is intact afterwards.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const s = suite('insights: hostile HogQL');
let t: TestServer;
let api: ApiCall;
let other: { id: number; api_token: string };
const statuses: number[] = [];

const hogql = async (query: string, extra: Record<string, unknown> = {}) => {
  const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query, ...extra }, refresh: 'force_blocking' });
  statuses.push(r.status);
  return r;
};
const rows = async (query: string, extra: Record<string, unknown> = {}) => {
  const r = await hogql(query, extra);
  assert.is(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  return r.body.results as unknown[][];
};
const refused = async (query: string, detail?: RegExp) => {
  const r = await hogql(query);
  assert.is(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
  assert.is(r.body.type, 'validation_error');
  if (detail) assert.match(r.body.detail, detail, query);
};

const ev = (event: string, distinct_id: string, properties: Record<string, unknown> = {}, timestamp = '2024-06-01T10:00:00Z') =>
  ({ uuid: randomUUID(), event, distinct_id, timestamp, properties });

s.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS });
  api = apiClient(t);
  const admin = t.server.tenancy.users()[0];
  other = await t.server.tenancy.createProject(admin.organization_id, 'Other') as { id: number; api_token: string };
  const mine = [ev('$pageview', 'shared', { $session_id: 'sess' }), ev('$pageview', 'mine-1', { plan: 'free' }), ev('purchase', 'mine-1')];
  const theirs = [
    ev('secret-b', 'shared', { card: '4242', $session_id: 'sess', $current_url: 'https://secret.example/' }, '2024-06-01T11:00:00Z'),
    ev('$identify', 'shared', { $set: { email: 'victim@example.com' } }),
    ev('secret-b', 'theirs-1'),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: mine })).status, 200);
  assert.is((await postJson(`${t.url}/batch/`, { api_key: other.api_token, batch: theirs })).status, 200);
  await t.applied();
  assert.equal(await rows('select count() from events'), [[3]]);
  // The other project's rows are there, and its own queries see them.
  const theirCount = await api('POST', `/api/environments/${other.id}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query: "select count() from events where event = 'secret-b'" } });
  assert.equal(theirCount.body.results, [[2]], JSON.stringify(theirCount.body));
});
s.after(async () => { await t?.close(); });

s('another project’s rows are unreachable: filters, subqueries, joins, CTEs, unions, persons', async () => {
  const none = [
    "select count() from events where event = 'secret-b'",
    `select count() from events where team_id = ${other.id}`,
    'select count() from events where team_id != {me}',
    "select count() from (select * from (select * from events where event = 'secret-b'))",
    "select count() from events a join events b on a.distinct_id = b.distinct_id where b.event = 'secret-b'",
    "with x as (select * from events) select count() from x where event = 'secret-b'",
    "select count() from (select event from events union all select event from events) where event = 'secret-b'",
    "select count() from persons where properties.email = 'victim@example.com'",
    "select count() from events where person.properties.email = 'victim@example.com'",
    "select count() from person_distinct_ids where person.properties.email = 'victim@example.com'",
    "select count() from events where distinct_id in (select distinct_id from person_distinct_ids where person.properties.email = 'victim@example.com')",
    "select count() from events where event in (select event from events where properties.card = '4242')",
    "select count() from events array join [1, 2] as x where event = 'secret-b'",
    "select count() from (select event from events order by timestamp limit 5 by event) where event = 'secret-b'",
    "select count() from events -- where event = 'secret-b'\n where event = 'secret-b'",
    "select count() from events /* union all select 1 from events */ where event = 'secret-b'",
  ];
  for (const q of none) assert.equal(await rows(q, { values: { me: t.projectId } }), [[0]], q);
  assert.equal(await rows('select distinct team_id from events'), [[t.projectId]]);
  // A session id both projects use: each project's session holds its own events only.
  assert.equal(await rows('select session_id, $session_duration, $entry_current_url, $pageview_count from sessions'), [['sess', 0, null, 1]]);
  assert.equal(await rows("select session.$session_duration, session.$end_current_url from events where distinct_id = 'shared'"), [[0, null]]);
  assert.equal(await rows("select person.properties.email from events where distinct_id = 'shared'"), [[null]]);
  assert.equal(await rows('select count() from persons p join events e on e.person_id = p.id'), [[3]]);
});

s('HogQL in insights (math, breakdowns, property filters) reads the project’s rows and is data', async () => {
  const insight = async (query: Record<string, unknown>) => {
    const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query, refresh: 'force_blocking' });
    statuses.push(r.status);
    return r;
  };
  const total = (extra: Record<string, unknown>, series: Record<string, unknown> = {}) => insight({
    kind: 'TrendsQuery', dateRange: { date_from: '2024-06-01', date_to: '2024-06-01' }, trendsFilter: { display: 'BoldNumber' },
    series: [{ kind: 'EventsNode', event: null, ...series }], ...extra,
  });
  const values = (r: { status: number; body: { results: { aggregated_value: number; breakdown_value?: string }[] } }) => {
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body.results.map((i) => (i.breakdown_value === undefined ? i.aggregated_value : [i.breakdown_value, i.aggregated_value]));
  };
  for (const key of [
    "event in (select event from events where properties.card = '4242')",
    "distinct_id in (select distinct_id from person_distinct_ids where person.properties.email = 'victim@example.com')",
    "(select count() from events where event = 'secret-b') > 0",
    "person.properties.email = 'victim@example.com'",
  ]) assert.equal(values(await total({ properties: [{ type: 'hogql', key }] })), [0], key);
  assert.equal(values(await total({}, { math: 'hogql', math_hogql: "sum((select count() from events where event = 'secret-b')) + count()" })), [3]);
  assert.equal(values(await total({ breakdownFilter: { breakdown_type: 'hogql', breakdown: '(select count() from events)' } })), [['3', 3]]);
  assert.equal(values(await total({ breakdownFilter: { breakdown_type: 'hogql', breakdown: "'x''); drop table events; --'" } })), [["x'); drop table events; --", 3]]);
  for (const [query, detail] of [
    [{ properties: [{ type: 'hogql', key: '1 = 1; drop table events' }] }, /Invalid HogQL/],
    [{ properties: [{ type: 'hogql', key: "read_csv('/etc/passwd') is not null" }] }, /Unsupported function call 'read_csv/],
    [{ breakdownFilter: { breakdown_type: 'hogql', breakdown: 'project' } }, /Unable to resolve field: project/],
    [{ breakdownFilter: { breakdown_type: 'hogql', breakdown: '(select 1 from positions)' } }, /Unknown table "positions"/],
  ] as const) {
    const r = await total(query);
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.detail, detail);
  }
});

s('quotes, backslashes and comments in strings and identifiers are data', async () => {
  assert.equal(await rows("select count() from events where event = 'x'' or 1=1 --'"), [[0]]);
  assert.equal(await rows("select count() from events where event = 'x\\' or 1=1 --'"), [[0]]);
  assert.equal(await rows("select 'a\\'; drop table events; --'"), [["a'; drop table events; --"]]);
  await refused("select 'a\\\\'; drop table events; --'", /mismatched input 'drop'/);
  assert.equal(await rows('select {v}', { values: { v: "'); DROP TABLE events; --" } }), [["'); DROP TABLE events; --"]]);
  const aliased = await hogql('select 1 as `x"; drop table events; --`');
  assert.is(aliased.status, 200);
  assert.equal(aliased.body.columns, ['x"; drop table events; --']);
  await refused('select `event"; drop table events; --` from events', /Unable to resolve field/);
  await refused('select count() from `events"; drop table events; --`', /Unknown table/);
  await refused('select properties.x from events e join events `a"b` on 1 = 1 where `a"b`.nope = 1', /Unable to resolve field/);
  assert.equal(await rows('select properties.`a"\\b` from events limit 1'), [[null]]);
  assert.equal(await rows("select formatDateTime(timestamp, '%Y\\'); drop') from events limit 1"), [["2024'); drop"]]);
});

s('DuckDB’s table functions, files, settings and other statements are out of reach', async () => {
  for (const q of [
    "select * from read_csv('/etc/passwd')", "select * from read_text('/etc/passwd')", "select * from read_parquet('x.parquet')",
    "select * from glob('/*')", 'select * from duckdb_settings()', 'select * from duckdb_tables()', 'select * from information_schema.tables',
    'select * from generate_series(1, 10)', 'select * from range(10)', 'select * from system.tables', 'select * from positions', 'select * from meta', 'select * from main.events',
  ]) await refused(q, /Unknown table/);
  // HogQL's own numbers() is the one table function: the compiler's, its arguments reading nothing.
  await refused("select * from numbers(getenv('HOME'))", /Unsupported function call/);
  for (const q of ["select getenv('HOME')", "select current_setting('threads')", "select read_text('/etc/passwd')", 'select sleep(10)', "select read_csv_auto('x')", 'select version()', "select pg_sleep(1)"]) {
    await refused(q, /Unsupported function call/);
  }
  for (const q of [
    "COPY events TO '/tmp/out.csv'", "ATTACH '/tmp/x.duckdb' AS x", 'INSTALL httpfs', 'LOAD httpfs', 'PRAGMA database_list', 'SET threads = 1',
    'DROP TABLE events', 'DELETE FROM events', "INSERT INTO events VALUES (1)", 'CREATE TABLE x (a int)', "UPDATE events SET event = 'x'",
    'select 1; drop table events', 'select 1; select 2', 'select * from events final',
  ]) await refused(q);
  await refused('select project from events', /Unable to resolve field: project/);
  for (const q of ['select constructor from sessions', 'select session.__proto__ from events', 'select toString from sessions', 'select __proto__ from events']) {
    await refused(q, /Unable to resolve field/);
  }
  await refused('select {__proto__}', /Placeholder/);
  await refused('select {variables.constructor}', /Variable constructor is missing/);
  await refused('select ' + '('.repeat(40) + '1' + ')'.repeat(40), /levels deep/);
  await refused("select toHour(toTimeZone(timestamp, 'Nowhere/Zone')) from events");
  await refused("select match(event, '(') from events");
});

s('row limits: 100 by default with hasMore, at most 50,000 whatever the LIMIT', async () => {
  const page = await hogql('select arrayJoin(range(500)) as n');
  assert.is(page.body.results.length, 100);
  assert.is(page.body.hasMore, true);
  // What a function is asked to build is bounded before any LIMIT could help.
  await refused("select repeat('x', 1000000000)", /limited to 1000000 elements/);
  await refused("select leftPad('x', 2000000000)", /limited to 1000000 elements/);
  await refused('select length(range(1000000000))', /limited to 1000000 elements/);
  await refused('select range(0, 10, 0)', /step cannot be 0/);
  const capped = await hogql('select arrayJoin(range(60000)) as n limit 100000');
  assert.is(capped.status, 200);
  assert.is(capped.body.results.length, 50_000);
});

s('self-referencing CTEs and expressions deeper than the parser\'s or DuckDB\'s stack are 400s; the parser answers the next query', async () => {
  await refused('with a as (select * from a) select * from a', /CTE "a" refers to itself/);
  await refused('with a as (select * from b), b as (select * from a) select * from a', /refers to itself/);
  // 20,000 terms are past both parsers' stacks; 3,000 parse, past DuckDB's depth. (The
  // queries' texts are left out of the messages: they are long.)
  const chain = (n: number) => `select ${Array(n).fill('1').join('+')}`;
  for (const [n, detail] of [[20_000, /nests too deeply to parse/], [3_000, /nest more than 1,000 levels deep/]] as const) {
    const r = await hogql(chain(n));
    assert.is(r.status, 400, `${n} terms: ${JSON.stringify(r.body).slice(0, 300)}`);
    assert.match(r.body.detail, detail, `${n} terms`);
  }
  // The WASM parser answers after them (window functions are its: the fast parser leaves them to it).
  assert.equal(await rows("select count() over () from events where event = 'purchase'"), [[1]]);
});

s('no 5xx, and the store is intact', async () => {
  assert.equal(await rows('select count() from events'), [[3]]);
  assert.ok(statuses.length > 40);
  assert.ok(statuses.every((code) => code === 200 || code === 400), statuses.join(','));
});

s('cohorts keep to their project: another project\'s cohort is not found, cohort_people holds this project\'s members only', async () => {
  const theirs = await api('POST', `/api/projects/${other.id}/cohorts/`, t.personalKey, { name: 'Victims', filters: { properties: { type: 'AND', values: [
    { type: 'behavioral', key: 'secret-b', value: 'performed_event', event_type: 'events' },
  ] } } });
  assert.is(theirs.status, 201, JSON.stringify(theirs.body));
  const mine = await api('POST', `/api/projects/${t.projectId}/cohorts/`, t.personalKey, { name: 'Everyone here', filters: { properties: { type: 'AND', values: [
    { type: 'behavioral', key: '$pageview', value: 'performed_event', event_type: 'events' },
  ] } } });
  assert.is(mine.status, 201, JSON.stringify(mine.body));
  await refused(`select count() from persons where id in cohort ${theirs.body.id}`, /Could not find a cohort/);
  await refused("select count() from events where inCohort('Victims')", /Could not find a cohort/);
  // 'shared' is a distinct id in both projects: here, the person of this project only.
  assert.equal(await rows('select cohort_id, count() from cohort_people group by cohort_id'), [[mine.body.id, 2]]);
  assert.equal(await rows(`select count() from cohort_people where cohort_id = ${theirs.body.id}`), [[0]]);
  const members = await api('GET', `/api/projects/${t.projectId}/cohorts/${theirs.body.id}/persons/`, t.personalKey);
  assert.is(members.status, 404);
});

s.run();
