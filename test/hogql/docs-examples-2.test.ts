// More of PostHog's documented HogQL, run unchanged through the real server against eight
// events whose answers are worked out by hand below: the queries of posthog.com/docs/sql
// (SQL insights and the query API), the HogQL guide, the first/last touch attribution
// tutorial, and the expressions of the SQL expressions page and the date/time and array
// tutorials (as {filters} HogQL filters, EventsQuery columns and a breakdown's select), and the
// usage examples of PostHog's reference for SQL variables and filter placeholders.
//
// The events (UTC; 2024-03-04 is a Monday):
//   e1 alice $pageview      03-04 09:00  /pricing  Chrome  Mac OS X  web 1.2.3  1920×1080  flags [beta, dark-mode]  $feature/cool-flag true
//   e2 alice $pageview      03-04 09:05  /signup   Chrome  Mac OS X  web 1.2.3             flags [beta]
//   e3 alice user signed up 03-04 09:06                               web  first user, cloud, 3 members
//   e4 bob   $pageview      03-05 14:00  /         Safari  iOS  posthog-ios 3.0.0  390×844  flags []
//   e5 bob   $pageview      03-09 20:00  /signup   Safari  iOS
//   e6 bob   user signed up 03-09 20:01  hosted, 1 member
//   e7 carol $pageview      03-10 08:00  /pricing  Firefox Android
//   e8 carol $pageview      03-10 08:30  /blog/other?ref=newsletter  Firefox Android
// alice's person has trial_started 2024-03-01; the others have none.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const d = suite('hogql: PostHog’s documented examples (2)');
let t: TestServer;
let api: ApiCall;

const URL = 'https://ex.com';
const query = async (q: Record<string, unknown>) => {
  const r = await api('POST', `/api/projects/${t.projectId}/query/`, t.personalKey, { query: q, refresh: 'force_blocking' });
  assert.is(r.status, 200, `${JSON.stringify(q)}: ${JSON.stringify(r.body)}`);
  return r.body;
};
const hogql = async (text: string, extra: Record<string, unknown> = {}) => query({ kind: 'HogQLQuery', query: text, ...extra });
const rows = async (text: string, extra: Record<string, unknown> = {}) => (await hogql(text, extra)).results as unknown[][];
// A documented expression as a HogQL filter: the events it keeps.
const kept = async (expression: string) =>
  (await rows('select count() from events where {filters}', { filters: { properties: [{ type: 'hogql', key: expression }] } }))[0][0];
const byFirst = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));

d.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) =>
    ({ uuid: randomUUID(), event, distinct_id, timestamp, properties });
  const alice = { $browser: 'Chrome', $os: 'Mac OS X', $lib: 'web', $lib_version: '1.2.3' };
  const bob = { $browser: 'Safari', $os: 'iOS' };
  const carol = { $browser: 'Firefox', $os: 'Android' };
  const batch = [
    ev('$pageview', 'alice', '2024-03-04T09:00:00Z', { ...alice, $current_url: `${URL}/pricing`, $screen_width: 1920, $screen_height: 1080, $active_feature_flags: ['beta', 'dark-mode'], '$feature/cool-flag': true, $set: { trial_started: '2024-03-01' } }),
    ev('$pageview', 'alice', '2024-03-04T09:05:00Z', { ...alice, $current_url: `${URL}/signup`, $active_feature_flags: ['beta'] }),
    ev('user signed up', 'alice', '2024-03-04T09:06:00Z', { $lib: 'web', is_organization_first_user: true, realm: 'cloud', team_member_count_all: 3 }),
    ev('$pageview', 'bob', '2024-03-05T14:00:00Z', { ...bob, $current_url: `${URL}/`, $lib: 'posthog-ios', $lib_version: '3.0.0', $screen_width: 390, $screen_height: 844, $active_feature_flags: [] }),
    ev('$pageview', 'bob', '2024-03-09T20:00:00Z', { ...bob, $current_url: `${URL}/signup` }),
    ev('user signed up', 'bob', '2024-03-09T20:01:00Z', { realm: 'hosted', team_member_count_all: 1 }),
    ev('$pageview', 'carol', '2024-03-10T08:00:00Z', { ...carol, $current_url: `${URL}/pricing` }),
    ev('$pageview', 'carol', '2024-03-10T08:30:00Z', { ...carol, $current_url: `${URL}/blog/other?ref=newsletter` }),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
  assert.equal(await rows('select count() from events'), [[8]]);
});
d.after(async () => { await t?.close(); });

d('docs/sql: the first pageview’s URL, with {filters}', async () => {
  const text = `SELECT 
    properties.$current_url AS current_url,
    count() AS url_count
FROM events
WHERE event = '$pageview'
    AND (distinct_id, timestamp) IN (
        SELECT distinct_id, min(timestamp)
        FROM events
        WHERE event = '$pageview'
        GROUP BY distinct_id
    )
    AND {filters}
GROUP BY current_url
ORDER BY url_count DESC`;
  // First page views: alice's and carol's on /pricing, bob's on /.
  assert.equal(await rows(text), [[`${URL}/pricing`, 2], [`${URL}/`, 1]]);
  assert.equal(await rows(text, { filters: { properties: [{ key: '$os', value: 'Android', operator: 'exact', type: 'event' }] } }), [[`${URL}/pricing`, 1]]);
});

d('docs/sql: the query API’s example, COUNT() in capitals', async () => {
  const body = await hogql('SELECT event, COUNT() FROM events GROUP BY event ORDER BY COUNT() DESC');
  assert.equal(body.results, [['$pageview', 6], ['user signed up', 2]]);
  assert.equal(body.columns, ['event', 'COUNT()']);
});

d('the HogQL guide: backticked property names, numeric properties, select *, DISTINCT, concat', async () => {
  const chrome = await hogql("SELECT * FROM events WHERE properties.`$browser` = 'Chrome'");
  assert.is(chrome.results.length, 2);
  const event = (chrome.columns as string[]).indexOf('event');
  assert.ok(event >= 0, JSON.stringify(chrome.columns));
  assert.equal(chrome.results.map((r: unknown[]) => r[event]), ['$pageview', '$pageview']);

  const mega = await hogql('SELECT round(properties.$screen_width * properties.$screen_height / 1000000, 2) as `Screen MegaPixels` FROM events LIMIT 100');
  assert.equal(mega.columns, ['Screen MegaPixels']);
  const values = (mega.results as unknown[][]).map((r) => r[0]);
  assert.equal(values.filter((v) => v !== null).sort(), [0.33, 2.07]);
  assert.is(values.length, 8);

  assert.equal(await rows('SELECT DISTINCT person_id FROM events').then((r) => r.length), 3);

  const listed = await hogql("SELECT\nevent,\ntimestamp,\nproperties.$current_url,\nconcat(properties.$lib, ' - ', properties.$lib_version)\nFROM events");
  assert.equal(listed.columns, ['event', 'timestamp', '$current_url', "concat(properties.$lib, ' - ', properties.$lib_version)"]);
  const sorted = [...(listed.results as unknown[][])].sort((a, b) => String(a[1]).localeCompare(String(b[1])));
  // A missing property is '' inside concat, as PostHog's concat reads it.
  assert.equal(sorted.map((r) => r[3]), ['web - 1.2.3', 'web - 1.2.3', 'web - ', 'posthog-ios - 3.0.0', ' - ', ' - ', ' - ', ' - ']);
  assert.equal(sorted[2].slice(0, 3), ['user signed up', '2024-03-04T09:06:00Z', null]);
});

d('first/last touch attribution tutorial: the first pageview (a trailing semicolon), the last one before signing up (a named window)', async () => {
  assert.equal(await rows(`SELECT 
    properties.$current_url AS current_url,
    count() AS url_count
FROM events
WHERE event = '$pageview'
    AND (distinct_id, timestamp) IN (
        SELECT distinct_id, min(timestamp)
        FROM events
        WHERE event = '$pageview'
        GROUP BY distinct_id
    )
    AND timestamp > toDateTime('2023-01-01 00:00:00')
GROUP BY current_url
ORDER BY url_count DESC;`), [[`${URL}/pricing`, 2], [`${URL}/`, 1]]);
  // alice and bob each viewed /signup right before signing up; carol never signed up.
  assert.equal(await rows(`SELECT
    current_url,
    count() as url_count
FROM (
    SELECT 
        distinct_id,
        event AS first_event,
        timestamp AS first_timestamp,
        first_value(event) OVER w AS next_event,
        properties.$current_url AS current_url
    FROM events
    WHERE 
        timestamp > toDateTime('2023-01-01 00:00:00') 
        AND (event = '$pageview' OR event = 'user signed up')
    WINDOW w AS (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING)
    ORDER BY distinct_id, timestamp
) AS subquery
WHERE first_event = '$pageview'
    AND next_event = 'user signed up'
GROUP BY current_url
ORDER BY url_count DESC`), [[`${URL}/signup`, 2]]);
});

d('the time on page tutorial: the next page view by a named window, averaged, capped, by page', async () => {
  const inner = (extra: string) => `SELECT 
      distinct_id,
      event AS first_event,
      timestamp AS first_timestamp,
      first_value(event) OVER w AS next_event,
      first_value(timestamp) OVER w AS next_timestamp${extra}
    FROM events
    WHERE 
      timestamp > toDateTime('2023-01-01 00:00:00') 
      AND (event = '$pageview' OR event = '$pageleave')
    WINDOW w AS (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING)
    ORDER BY distinct_id, timestamp`;
  // Minutes to the next page view: alice 5 (/pricing), bob 6120 (/, four days and six hours), carol 30 (/pricing).
  assert.equal(await rows(`SELECT avg(time_on_page) AS avg_time_on_page
FROM (
  SELECT
    dateDiff('minute', first_timestamp, next_timestamp) AS time_on_page
  FROM (
    ${inner('')}
  ) AS subquery
  WHERE first_event = '$pageview'
    AND (next_event = '$pageleave' OR next_event = '$pageview')
)`), [[(5 + 6120 + 30) / 3]]);
  assert.equal(await rows(`SELECT avg(time_on_page) AS avg_time_on_page
FROM (
  SELECT
  dateDiff('minute', first_timestamp, next_timestamp) AS time_on_page
  FROM (
    ${inner('')}
  ) AS subquery
  WHERE first_event = '$pageview'
    AND (next_event = '$pageleave' OR next_event = '$pageview')
    AND time_on_page <= 30 /* new */
)`), [[17.5]]);
  assert.equal(await rows(`SELECT 
  avg(time_on_page) AS avg_time_on_page,
  current_url /* new */
FROM (
  SELECT
    dateDiff('minute', first_timestamp, next_timestamp) AS time_on_page,
    current_url /* new */
  FROM (
    ${inner(',\n      properties.$current_url as current_url /* new */')}
  ) AS subquery
  WHERE first_event = '$pageview'
    AND (next_event = '$pageleave' OR next_event = '$pageview')
    AND time_on_page <= 30
)
GROUP BY current_url /* new */
ORDER BY avg_time_on_page DESC /* new */`), [[17.5, `${URL}/pricing`]]);
});

d('the sum() tutorial’s expressions: a conditional count, a score, a share', async () => {
  assert.equal(await rows("select sumIf(\n\t1, \n\ttoStartOfMonth(timestamp) = toStartOfMonth(now())\n) from events"), [[0]]);
  // alice: 10 (first user) + 5 (cloud) - 1 (3 members); bob: none of them.
  assert.equal(await rows(`select distinct_id, sumIf(
	10, 
	properties.is_organization_first_user
) + sumIf(
	5,
	properties.realm = 'cloud'
) + sumIf(
	-1,
	properties.team_member_count_all > 1
) as score from events where event = 'user signed up' group by distinct_id order by distinct_id`), [['alice', 14], ['bob', 0]]);
  assert.equal(await rows(`select sumIf(
	1,
	properties.$browser = 'Safari'
) / sumIf(
	1,
	properties.$browser = 'Safari' or properties.$browser = 'Chrome'
) from events`), [[0.5]]);
});

d('the date and time filters tutorial’s expressions, as HogQL filters', async () => {
  assert.is(await kept("toDateTime('2022-09-16 09:26:00') < timestamp \nand timestamp < toDateTime('2022-10-01 14:34:00')"), 0);
  // The same with this data's dates: e4 to e7.
  assert.is(await kept("toDateTime('2024-03-04 09:26:00') < timestamp \nand timestamp < toDateTime('2024-03-10 08:15:00')"), 4);
  assert.is(await kept('fromUnixTimestamp(1674259200) < timestamp'), 8);
  assert.is(await kept("dateDiff('day', timestamp, now()) > 5"), 8);
  assert.is(await kept('toStartOfQuarter(timestamp) == toStartOfQuarter(now())'), 0);
  // Saturday the 9th (e5, e6) and Sunday the 10th (e7, e8) left out.
  assert.is(await kept('toDayOfWeek(timestamp) != 6 and toDayOfWeek(timestamp) != 7'), 4);
  // Only alice has a trial; it ended long ago.
  assert.is(await kept("dateDiff(\n\t'day', \n\tnow(), \n\tperson.properties.trial_started + interval 30 day\n) <= 3"), 3);
  assert.is(await kept("dateDiff('week', person.properties.signed_up_at, now()) <= 2"), 0);
});

d('the SQL expressions page’s expressions, as EventsQuery columns', async () => {
  const columns = async (select: string[], orderBy?: string[]) =>
    (await query({ kind: 'EventsQuery', select, after: 'all', ...(orderBy ? { orderBy } : {}) })).results as unknown[][];
  // Android (carol) and iOS (bob's page views) are mobile; the rest (and bob's sign-up, without $os) desktop.
  assert.equal((await columns(["multiIf(properties.$os == 'Android', 'mobile', properties.$os == 'iOS', 'mobile', 'desktop')", 'count()'])).sort(byFirst), [['desktop', 4], ['mobile', 4]]);
  assert.equal((await columns(["multiIf(properties.$device_type == 'Desktop', 'Desktop', properties.$os == 'iOS', 'iOS', 'Non-iOS')", 'count()'])).sort(byFirst), [['iOS', 2], ['Non-iOS', 6]]);
  // extract: '' where the pattern does not match (ClickHouse's), NULL without a URL.
  assert.equal((await columns(["extract(properties.$current_url, 'ref=([^&]*)')", 'count()'])).sort(byFirst), [['', 5], ['newsletter', 1], [null, 2]].sort(byFirst));
  assert.equal((await columns(["replaceOne(properties.$current_url, 'https://ex.com', '/')"], ['timestamp'])).map((r) => r[0]), ['//pricing', '//signup', null, '//', '//signup', null, '//pricing', '//blog/other?ref=newsletter']);
  assert.equal((await columns(["concat('OS Version: ', properties.$os_version)"], ['timestamp'])).map((r) => r[0])[0], 'OS Version: ');
  // A property named in brackets: EventsQuery reads property values as their JSON, HogQL as text.
  assert.equal((await columns(["properties['$feature/cool-flag']", "properties['$browser']"], ['timestamp']))[0], [true, 'Chrome']);
  assert.equal((await rows("select properties['$feature/cool-flag'] from events order by timestamp")).map((r) => r[0]), ['true', null, null, null, null, null, null, null]);
  assert.equal(await columns(["sumIf(1, properties.$browser = 'Chrome') / sumIf(1, properties.$browser = 'Safari' or properties.$browser = 'Chrome')"]), [[0.5]]);
  // As documented (5 >= hour, 12 >= hour): hours up to 12 read as afternoon, the rest as night.
  assert.equal((await columns(["multiIf(5 >= toHour(timestamp) and toHour(timestamp) < 12, 'morning', 12 >= toHour(timestamp) and toHour(timestamp) < 17, 'afternoon', 'night')", 'count()'])).sort(byFirst), [['afternoon', 5], ['night', 3]]);
  assert.equal(await columns(["countIf(properties.$current_url LIKE '%/blog%')"]), [[1]]);
  assert.equal(await columns(["concat(properties.$os_name, ' - ', properties.$os_version)", 'count()']), [[' - ', 8]]);
  assert.equal(await columns(["countIf(dateDiff('minute', timestamp, now()) < 30)"]), [[0]]);
});

d('the array tutorial: JSONExtractArrayRaw with ??, arrayJoin, notEmpty, has', async () => {
  // Raw JSON elements, quotes kept (ClickHouse's JSONExtractArrayRaw).
  assert.equal(await rows("select arrayJoin(\n  JSONExtractArrayRaw(\n    properties.$active_feature_flags ?? '[]'\n  )\n) as flag, count() from events group by flag order by flag"), [['"beta"', 2], ['"dark-mode"', 1]]);
  assert.is(await kept("notEmpty(\n  JSONExtractArrayRaw(\n    properties.$active_feature_flags ?? '[]'\n  )\n)"), 2);
  assert.is(await kept("has(JSONExtractArrayRaw(properties.$active_feature_flags ?? '[]'), '\"dark-mode\"')"), 1);
  assert.is(await kept("hasAny(JSONExtractArrayRaw(properties.$active_feature_flags ?? '[]'), ['\"beta\"', '\"x\"'])"), 2);
  assert.is(await kept("hasAll(JSONExtractArrayRaw(properties.$active_feature_flags ?? '[]'), ['\"beta\"', '\"dark-mode\"'])"), 1);
  assert.equal(await rows("select arrayElement(JSONExtractArrayRaw(properties.$active_feature_flags ?? '[]'), -1) as last from events where notEmpty(JSONExtractArrayRaw(properties.$active_feature_flags ?? '[]')) order by timestamp"), [['"dark-mode"'], ['"beta"']]);
  assert.equal(await rows("select splitByChar('/', properties.$current_url)[4] as first_segment, count() from events where event = '$pageview' group by first_segment order by first_segment"), [['', 1], ['blog', 1], ['pricing', 2], ['signup', 2]]);
});

d('PostHog’s SQL variables and filter placeholders reference: its usage examples', async () => {
  const variable = (code_name: string, value: unknown) => ({ [`v-${code_name}`]: { variableId: `v-${code_name}`, code_name, value, ...(value === null ? { isNull: true } : {}) } });
  const events = { ...variable('event_names', 'user signed up') };
  assert.is((await rows('SELECT * FROM events WHERE event = {variables.event_names}', { variables: events })).length, 2);
  const orgs = async (org: unknown) => (await rows("select count() from events\nWHERE (coalesce({variables.org}, '') = '' OR properties.org = {variables.org})", { variables: variable('org', org) }))[0][0];
  assert.is(await orgs(null), 8);
  assert.is(await orgs(''), 8);
  assert.is(await orgs('acme'), 0);
  const browsers = async (browser: unknown) => (await rows('select count() from events\nWHERE ({variables.browser} IS NULL OR properties.$browser = {variables.browser})', { variables: variable('browser', browser) }))[0][0];
  assert.is(await browsers(null), 8);
  assert.is(await browsers('Firefox'), 2);
  assert.equal(await rows('select event, count() from events\nWHERE event IN {variables.event_names} group by event order by event', { variables: variable('event_names', ['$pageview', 'user signed up']) }), [['$pageview', 6], ['user signed up', 2]]);
  // Combined with the date range: bob's sign-up only.
  const combined = 'SELECT * FROM events\nWHERE event = {variables.event_names}\n  AND timestamp >= {filters.dateRange.from}';
  assert.is((await rows(combined, { variables: events, filters: { dateRange: { date_from: '2024-03-05' } } })).length, 1);
  assert.is((await rows(combined, { variables: events })).length, 2, 'no date range: the comparison holds');
  assert.is((await rows('SELECT * FROM events\nWHERE timestamp >= {filters.dateRange.from}\n  AND timestamp < {filters.dateRange.to}', { filters: { dateRange: { date_from: '2024-03-09', date_to: '2024-03-10' } } })).length, 2);
});

d.run();
