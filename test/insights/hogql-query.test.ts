// HogQLQuery through the real server (issue 28): PostHog's SQL over the columnar store.
// Events captured over HTTP, then queries as a PostHog user writes them: the response's
// fields, the language (clauses, joins, subqueries, CTEs, unions, windows, lambdas,
// placeholders), the function catalogue, and errors worded as PostHog words them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { eventually, postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const h = suite('insights: HogQLQuery');
let t: TestServer;
let api: ApiCall;

const hogql = async (query: string, extra: Record<string, unknown> = {}, path = 'environments') =>
  api('POST', `/api/${path}/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query, ...extra }, refresh: 'force_blocking' });
const rows = async (query: string, extra: Record<string, unknown> = {}) => {
  const r = await hogql(query, extra);
  assert.is(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  return r.body.results as unknown[][];
};
const refused = async (query: string, detail: RegExp, extra: Record<string, unknown> = {}) => {
  const r = await hogql(query, extra);
  assert.is(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
  assert.is(r.body.type, 'validation_error');
  assert.match(r.body.detail, detail);
  return r.body;
};

h.before(async () => {
  // This server parses HogQL throughout: its parser starts warm, as in production.
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) =>
    ({ uuid: randomUUID(), event, distinct_id, timestamp, properties });
  const batch = [
    ev('$pageview', 'anon-1', '2024-06-01T09:00:00Z', { $browser: 'Chrome', $current_url: 'https://a.example/x', price: 5, $session_id: 's1' }),
    ev('$identify', 'user-1', '2024-06-01T09:30:00Z', { $anon_distinct_id: 'anon-1', $set: { email: 'one@example.com', plan: 'pro' }, $session_id: 's1' }),
    ev('$pageview', 'user-1', '2024-06-02T10:00:00Z', { $browser: 'Chrome', price: 20, tags: ['a', 'b'] }),
    ev('$pageview', 'user-2', '2024-06-02T23:30:00Z', { $browser: 'Safari', nested: { level: { deep: 'yes' } }, $session_id: 's2' }),
    ev('purchase', 'user-2', '2024-06-03T12:00:00Z', { price: 30, $browser: 'Safari', $session_id: 's2' }),
    ev('purchase', 'user-1', '2024-06-03T13:00:00Z', { price: '7.5' }),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
  const r = await hogql('select count() from events');
  assert.equal(r.body.results, [[6]], JSON.stringify(r.body));
});
h.after(async () => { await t?.close(); });

h('the first query of PostHog’s docs: PostHog’s response fields, on both paths', async () => {
  const r = await hogql('select event, count() from events group by event order by event');
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.results, [['$identify', 1], ['$pageview', 3], ['purchase', 2]]);
  assert.equal(r.body.columns, ['event', 'count()']);
  assert.equal(r.body.types, [['event', 'String'], ['count()', 'UInt64']]);
  assert.is(r.body.hogql, 'select event, count() from events group by event order by event');
  assert.is(r.body.hasMore, false);
  assert.is(r.body.limit, 100);
  assert.is(r.body.offset, 0);
  assert.ok(Array.isArray(r.body.timings) && r.body.timings.some((x: { k: string }) => x.k === './execute'));
  assert.is(r.body.is_cached, false);
  const projects = await hogql('select event, count() from events group by event order by event', {}, 'projects');
  assert.equal(projects.body.results, r.body.results);
  // With a LIMIT of its own, PostHog's paginator does not run.
  const limited = await hogql('select event from events order by timestamp limit 2');
  assert.equal(limited.body.results, [['$pageview'], ['$identify']]);
  assert.is(limited.body.hasMore, undefined);
});

h('fields, properties and persons; values as PostHog renders them', async () => {
  // price's definition is Numeric (its first value, 5, was a number): read as toFloat, as PostHog reads it.
  assert.equal(await rows("select properties.$browser, properties.price, person.properties.email from events where event = 'purchase' order by timestamp"), [
    ['Safari', 30, null], [null, 7.5, 'one@example.com'],
  ]);
  const typed = await hogql("select timestamp, toDate(timestamp), uuid, distinct_id, properties.nested.level.deep as deep from events where properties.nested.level.deep = 'yes'");
  const [row] = typed.body.results;
  assert.is(row[0], '2024-06-02T23:30:00Z');
  assert.is(row[1], '2024-06-02');
  assert.match(row[2], /^[0-9a-f-]{36}$/);
  assert.is(row[4], 'yes');
  assert.equal(typed.body.columns, ['timestamp', 'toDate(timestamp)', 'uuid', 'distinct_id', 'deep']);
  assert.equal(typed.body.types.map((x: string[]) => x[1]), ["DateTime64(6, 'UTC')", 'Date', 'UUID', 'String', 'Nullable(String)']);
  // properties['key'] is properties.key; text compared with a number reads as a number.
  assert.equal(await rows("select properties['$browser'] from events where properties.price > 10 order by timestamp"), [['Chrome'], ['Safari']]);
  assert.equal(await rows('select sum(properties.price) from events'), [[62.5]]);
  assert.equal(await rows("select count() from events e join persons p on e.person_id = p.id where p.properties.plan = 'pro'"), [[4]]);
  assert.equal(await rows('select count() from person_distinct_ids'), [[3]]);
});

h('the project’s time zone: calendar functions and rendered times; events.pdi', async () => {
  await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone: 'Asia/Tokyo' });
  try {
    const r = await hogql("select timestamp, toHour(timestamp), toStartOfDay(timestamp), toDate(timestamp) from events where event = '$identify'");
    assert.equal(r.body.results, [['2024-06-01T18:30:00+09:00', 18, '2024-06-01T00:00:00+09:00', '2024-06-01']]);
    assert.is(r.body.types[0][1], "DateTime64(6, 'Asia/Tokyo')");
    assert.equal(await rows("select count() from events where toDate(timestamp) = '2024-06-03'"), [[3]]);
  } finally {
    await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone: 'UTC' });
  }
  assert.equal(await rows("select pdi.distinct_id, pdi.person.properties.email from events where event = '$identify'"), [['user-1', 'one@example.com']]);
});

h('clauses: where, group by, having, order by, limit/offset, distinct; aggregates in WHERE move to HAVING', async () => {
  assert.equal(await rows("select distinct event from events where event != 'purchase' order by event"), [['$identify'], ['$pageview']]);
  assert.equal(await rows('select event, count() as c from events group by event having c > 1 order by c desc'), [['$pageview', 3], ['purchase', 2]]);
  assert.equal(await rows('select event, count() from events where count() > 1 group by event order by 2 desc'), [['$pageview', 3], ['purchase', 2]]);
  assert.equal(await rows('select event from events order by timestamp limit 2 offset 3'), [['$pageview'], ['purchase']]);
  // PostHog's parser reads `LIMIT 3, 1` as LIMIT 3 OFFSET 1.
  assert.equal(await rows('select event from events order by timestamp limit 3, 1'), [['$identify'], ['$pageview'], ['$pageview']]);
  const page = await hogql('select 1 from events');
  assert.is(page.body.results.length, 6);
  const offset = await hogql('select event from events order by timestamp offset 4');
  assert.equal(offset.body.results, [['purchase'], ['purchase']]);
  assert.is(offset.body.offset, 4);
  assert.equal(await rows('select count() from events e join persons p on e.person_id = p.id where toString(p.id) = toString(e.person_id)'), [[6]]);
});

h('subqueries, CTEs, joins, unions', async () => {
  assert.equal(await rows('select c from (select event, count() as c from events group by event) where event = \'purchase\''), [[2]]);
  assert.equal(await rows("with buyers as (select distinct distinct_id from events where event = 'purchase') select count() from events where distinct_id in (select distinct_id from buyers)"), [[5]]);
  assert.equal(await rows("select a.event, b.c from events a left join (select distinct_id, count() as c from events where event = 'purchase' group by distinct_id) b on a.distinct_id = b.distinct_id where a.event = '$pageview' order by a.timestamp"), [
    ['$pageview', null], ['$pageview', 1], ['$pageview', 1],
  ]);
  assert.equal(await rows("select count() from (select 1 from events where event = 'purchase') cross join (select 1 union all select 2)"), [[4]]);
  const unioned = await rows("select event from events where event = 'purchase' union all select 'x'");
  assert.equal(unioned.map((r) => r[0]).sort(), ['purchase', 'purchase', 'x']);
  const union = await rows("select 'a' as k union all select 'b'");
  assert.equal(union.map((r) => r[0]).sort(), ['a', 'b']);
  assert.equal(await rows('select e.event from events e inner join person_distinct_ids pdi using (distinct_id) order by e.timestamp limit 1'), [['$pageview']]);
});

h('conditionals, IN, LIKE, regex, placeholders and variables', async () => {
  assert.equal(await rows("select case when event = 'purchase' then 'buy' else 'other' end as k, count() from events group by k order by k"), [['buy', 2], ['other', 4]]);
  assert.equal(await rows("select if(event like '$%', 'dollar', 'plain'), multiIf(properties.price > 25, 'high', properties.price > 6, 'mid', 'low') from events where event = 'purchase' order by timestamp"), [
    ['plain', 'high'], ['plain', 'mid'],
  ]);
  assert.equal(await rows("select count() from events where event in ('purchase', '$identify') and distinct_id ilike 'USER%' and distinct_id =~ '^user-[12]$'"), [[3]]);
  assert.equal(await rows('select count() from events where event = {name} and properties.price > {min}', { values: { name: 'purchase', min: 10 } }), [[1]]);
  assert.equal(await rows('select {variables.who}', { variables: { v1: { variableId: 'v1', code_name: 'who', value: 'me' } } }), [['me']]);
  await refused('select {nope}', /Placeholder \{nope\}/);
  await refused('select {variables.nope}', /Variable nope is missing from query/);
});

h('JSON functions read values as ClickHouse’s do (FunctionsJSON.cpp, JSONExtractTree.cpp)', async () => {
  const doc = `'{"arr": [1, null, "a", [2, null], {"k": null}, true], "f": 1.7, "n": -2.9, "s": "42", "sf": "3.9", "t": true, "z": 0, "two": 2, "st": "true", "nul": null, "o": {"x": 1, "y": [1]}}'`;
  // JSONExtractArrayRaw: each element's JSON text, a null element the text null, nested ones as text; not an array: [].
  assert.equal(await rows(`select JSONExtractArrayRaw(${doc}, 'arr'), JSONExtractArrayRaw(${doc}, 'o'), JSONExtractArrayRaw(${doc}, 'nope'), JSONExtractArrayRaw('[null]')`), [
    [['1', 'null', '"a"', '[2,null]', '{"k":null}', 'true'], [], [], ['null']],
  ]);
  // Integers: a fraction cut toward zero (1.7 → 1, -2.9 → -2, "3.9" → 3), a numeric string read, true and null → 0.
  assert.equal(await rows(`select JSONExtractInt(${doc}, 'f'), JSONExtractInt(${doc}, 'n'), JSONExtractInt(${doc}, 'sf'), JSONExtractInt(${doc}, 's'), JSONExtractInt(${doc}, 't'), JSONExtractInt(${doc}, 'nul'), JSONExtractUInt(${doc}, 'n'), JSONExtractUInt(${doc}, 'f')`), [[1, -2, 3, 42, 0, 0, 0, 1]]);
  assert.equal(await rows(`select JSONExtractFloat(${doc}, 'sf'), JSONExtractFloat(${doc}, 't'), JSONExtractFloat(${doc}, 'arr')`), [[3.9, 0, 0]]);
  // Bool: true/false, or an integer other than 0; a string "true" or 1.7 is false.
  assert.equal(await rows(`select JSONExtractBool(${doc}, 't'), JSONExtractBool(${doc}, 'two'), JSONExtractBool(${doc}, 'z'), JSONExtractBool(${doc}, 'st'), JSONExtractBool(${doc}, 'f')`), [[true, true, false, false, false]]);
  // String: null → '', another kind its JSON text. Raw: null → 'null'. Has: a null value is there.
  assert.equal(await rows(`select JSONExtractString(${doc}, 'nul'), JSONExtractString(${doc}, 'two'), JSONExtractString(${doc}, 'o'), JSONExtractRaw(${doc}, 'nul'), JSONHas(${doc}, 'nul'), JSONHas(${doc}, 'arr', 2)`), [['', '2', '{"x":1,"y":[1]}', 'null', true, true]]);
  // Length: an array's elements or an object's keys, else 0.
  assert.equal(await rows(`select JSONLength(${doc}, 'arr'), JSONLength(${doc}, 'o'), JSONLength(${doc}, 's'), JSONLength(${doc})`), [[6, 2, 0, 11]]);
  // Text that is not JSON reads as each type's default instead of failing the query.
  assert.equal(await rows("select JSONExtractString('nope', 'a'), JSONExtractInt('{\"a\": ', 'a'), JSONExtractArrayRaw('x'), JSONHas('x', 'a'), JSONLength('x'), JSONExtractRaw('x'), JSONExtractBool('x'), JSONExtractFloat('x')"), [['', 0, [], false, 0, '', false, 0]]);
});

h('URL parts, integer maths, float checks, enumerations, month ends and two of PostHog’s aggregates, as ClickHouse reads them', async () => {
  const url = "'https://a.example/docs/x?q=1&ref=news&q=2#top'";
  assert.equal(await rows(`select protocol(${url}), path(${url}), queryString(${url}), fragment(${url}), extractURLParameter(${url}, 'q'), extractURLParameter(${url}, 'ref'), extractURLParameter(${url}, 'nope')`), [
    ['https', '/docs/x', 'q=1&ref=news&q=2', 'top', '1', 'news', ''],
  ]);
  assert.equal(await rows(`select cutQueryString(${url}), cutFragment(${url}), cutQueryStringAndFragment(${url}), path('https://a.example'), protocol('a.example/x'), queryString('https://a.example/x'), extractURLParameter('https://a.example/?a.b=1&ab=2', 'a.b')`), [
    ['https://a.example/docs/x#top', 'https://a.example/docs/x?q=1&ref=news&q=2', 'https://a.example/docs/x', '', '', '', '1'],
  ]);
  assert.equal(await rows('select trunc(1.7), truncate(-1.7), gcd(12, 8), lcm(4, 6), positiveModulo(-3, 2), -3 % 2, isNaN(0 / 0), isFinite(1 / 0), isInfinite(1 / 0), isFinite(2)'), [[1, -1, 4, 12, 1, -1, true, false, true, true]]);
  assert.equal(await rows("select arrayEnumerate(['a', 'b', 'c']), arrayEnumerate([]), arrayUniq([1, 1, 2, 3, 3]), toLastDayOfMonth(toDate('2024-02-10')), toLastDayOfMonth(toDateTime('2023-12-31 23:00:00'))"), [[[1, 2, 3], [], 3, '2024-02-29', '2023-12-31']]);
  // string_agg(x, sep) is arrayStringConcat(groupArray(x), sep) ('' over no rows); every(x) is toBool(min(x)).
  assert.equal(await rows("select string_agg(event, ','), every(event != 'x'), every(event = 'nope') from (select event from events where event = 'purchase')"), [['purchase,purchase', true, false]]);
  assert.equal(await rows("select string_agg(event, ',') from events where event = 'nope'"), [['']]);
});

h('more of the catalogue: weekday modes, ISO years, compact stamps, tuple elements, runs and running sums, all matches, array extremes, transform, JSON keys and kinds, topK and exact quantiles', async () => {
  // 2024-06-02 is a Sunday. ClickHouse's modes: 0 Mon 1…Sun 7, 1 Mon 0…Sun 6, 2 Sun 0…Sat 6, 3 Sun 1…Sat 7.
  assert.equal(await rows("select toDayOfWeek(toDate('2024-06-02')), toDayOfWeek(toDate('2024-06-02'), 1), toDayOfWeek(toDate('2024-06-02'), 2), toDayOfWeek(toDate('2024-06-02'), 3), toDayOfWeek(toDate('2024-06-03'), 2), toStartOfISOYear(toDate('2024-12-31')), toStartOfISOYear(toDate('2021-01-02'))"), [
    [7, 6, 0, 1, 1, '2024-12-30', '2019-12-30'],
  ]);
  assert.equal(await rows(`select extractAll('a1b22', '[0-9]+'), extractAll('k=1&j=2', '([a-z])=[0-9]'), ascii('a'), arrayLast(x -> x > 1, [1, 2, 3, 1]), arrayMin([3, 1]), arrayMax([3, 1]), arrayAvg([1, 4]), arrayIntersect([3, 1, 2, 2], [2, 3, 5])`), [
    [['1', '22'], ['k', 'j'], 97, 3, 1, 3, 2.5, [2, 3]],
  ]);
  assert.equal(await rows("select toYYYYMMDDhhmmss(toDateTime('2024-06-02 13:04:05')), tupleElement((1, 'a'), 2), arrayCompact([1, 1, 2, 2, 1]), arrayCompact([]), arrayCumSum([1, 2, 3])"), [[20240602130405, 'a', [1, 2, 1], [], [1, 3, 6]]]);
  assert.equal(await rows("select transform('b', ['a', 'b'], ['x', 'y'], 'z'), transform('c', ['a', 'b'], ['x', 'y'], 'z'), transform('c', ['a', 'b'], ['x', 'y'])"), [['y', 'z', 'c']]);
  const doc = `'{"a": 1, "b": {"c": 2}, "s": "x", "f": 1.5, "n": null, "r": [], "big": 18446744073709551615}'`;
  assert.equal(await rows(`select JSONExtractKeys(${doc}), JSONExtractKeys(${doc}, 'b'), JSONExtractKeys(${doc}, 'r'), JSONType(${doc}, 'a'), JSONType(${doc}, 's'), JSONType(${doc}, 'f'), JSONType(${doc}, 'n'), JSONType(${doc}, 'nope'), JSONType(${doc}, 'b'), JSONType(${doc}, 'r'), JSONType(${doc}, 'big')`), [
    [['a', 'b', 's', 'f', 'n', 'r', 'big'], ['c'], [], 'Int64', 'String', 'Double', 'Null', 'Null', 'Object', 'Array', 'UInt64'],
  ]);
  // Without the $identify: pageviews 3, purchases 2; prices 5, 20, 30, 7.5 (one pageview has
  // none), sorted 5, 7.5, 20, 30: quantileExact(0.5) is the element at floor(0.5 × 4) = 2
  // (0-based), 20, and level 1 the last, 30; avgArray reads every element (NULL skipped).
  const [[top, half, median, last, heavy, json, avg, mid]] = await rows("select topK(1)(event), quantileExact(0.5)(properties.price), medianExact(properties.price), quantileExact(1)(properties.price), anyHeavy(event), json_agg(distinct_id), avgArray([toFloat(properties.price)]), medianArray([1, 2, 3, 4]) from events where event != '$identify'");
  assert.equal([top, half, median, last, heavy, avg, mid], [['$pageview'], 20, 20, 30, '$pageview', 15.625, 2.5]);
  assert.equal((JSON.parse(String(json)) as string[]).sort(), ['anon-1', 'user-1', 'user-1', 'user-2', 'user-2']);
});

h('toStartOfInterval: ClickHouse\'s grid for each unit, worked out by hand for 2024-06-13 17:47:31 UTC (a Thursday, day 19887 of the epoch)', async () => {
  const t0 = "toDateTime('2024-06-13 17:47:31')";
  const at = (interval: string) => `toStartOfInterval(${t0}, INTERVAL ${interval})`;
  assert.equal(await rows(`select ${['1 YEAR', '5 YEAR', '1 QUARTER', '2 QUARTER', '5 MONTH', '1 WEEK', '3 WEEK'].map(at).join(', ')}`), [[
    // years floored to a multiple (2024 → 2020); months counted from January 1900 (month 1493 → 1490, March 2024; 2 quarters: 1488, January)
    '2024-01-01', '2020-01-01', '2024-04-01', '2024-01-01', '2024-03-01',
    // one week: its Monday; three: from Monday 1970-01-05 in steps of 21 days (4 + floor(19883 / 21) × 21 = day 19870, Monday 27 May)
    '2024-06-10', '2024-05-27',
  ]]);
  assert.equal(await rows(`select ${['1 DAY', '4 DAY', '5 HOUR', '15 MINUTE', '7 MINUTE', '10 SECOND'].map(at).join(', ')}`), [[
    // days counted from 1970-01-01 (19887 → 19884, 10 June); hours from midnight (17 → 15); minutes and seconds on the epoch
    // (1,718,300,851 s → 1,718,300,640 for 7 minutes: 17:44)
    '2024-06-13T00:00:00Z', '2024-06-10T00:00:00Z', '2024-06-13T15:00:00Z', '2024-06-13T17:45:00Z', '2024-06-13T17:44:00Z', '2024-06-13T17:47:30Z',
  ]]);
  // As ClickHouse groups events: per 12 hours from midnight.
  assert.equal(await rows("select toStartOfInterval(timestamp, interval 12 hour) as half, count() from events where event = '$pageview' group by half order by half limit 2"), await rows("select toStartOfDay(timestamp) + interval (intDiv(toHour(timestamp), 12) * 12) hour as half, count() from events where event = '$pageview' group by half order by half limit 2"));
  // A time zone given: its wall clock is the grid. In Tokyo (UTC+9) t0 is 02:47 on 14 June: its day starts at
  // 15:00 UTC on the 13th (epoch 1,718,290,800), its 2-hour slot at 02:00 local (1,718,298,000); 30 June 20:00 UTC is
  // already July there.
  assert.equal(await rows(`select toUnixTimestamp(toStartOfInterval(${t0}, INTERVAL 1 DAY, 'Asia/Tokyo')), toUnixTimestamp(toStartOfInterval(${t0}, INTERVAL 2 HOUR, 'Asia/Tokyo')), ` +
    "toStartOfInterval(toDateTime('2024-06-30 20:00:00'), INTERVAL 1 MONTH, 'Asia/Tokyo'), toStartOfInterval(toDateTime('2024-06-30 20:00:00'), INTERVAL 1 MONTH), " +
    `toUnixTimestamp(toStartOfDay(${t0}, 'Asia/Tokyo')), formatDateTime(${t0}, '%Y-%m-%d %H:%i', 'Asia/Tokyo'), formatDateTime(${t0}, '%Y-%m-%d %H:%i')`),
  [[1718290800, 1718298000, '2024-07-01', '2024-06-01', 1718290800, '2024-06-14 02:47', '2024-06-13 17:47']]);
  await refused(`select toStartOfInterval(${t0}, 15)`, /toStartOfInterval\(\) needs a constant interval/);
  await refused(`select toStartOfInterval(${t0}, INTERVAL 0 MINUTE)`, /toStartOfInterval\(\) needs a constant interval/);
});

h('functions: digests and hex as ClickHouse answers them; PostHog\'s own tags and language names', async () => {
  // MD5 and SHA* are the digest's bytes, read through hex() in upper case; md5() is PostHog's hex(MD5(x)); integers
  // in whole bytes; unhex gives the bytes back (text when they are text).
  assert.equal(await rows("select hex(MD5('a')), md5('a'), lower(hex(SHA256('a'))), hex(SHA1('a')), hex(1), hex(256), hex('ab'), unhex('6162'), MD5('a') = MD5('a')"), [[
    '0CC175B9C0F1B6A831C399E269772661', '0CC175B9C0F1B6A831C399E269772661', 'ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb',
    '86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8', '01', '0100', '6162', 'ab', true,
  ]]);
  // A digest that is not text comes back as its hex, as PostHog's renderer writes bytes.
  assert.equal(await rows("select MD5('a')"), [['0cc175b9c0f1b6a831c399e269772661']]);
  // HogQLX tags as PostHog expands them; recording_button reads the event's $recording_status when not given one.
  assert.equal(await rows("select sparkline([1, 2, 3]), sparkline([1, 2], ['a', 'b']), recording_button(properties.$session_id), recording_button('s9', 'active') from events where event = 'purchase' and properties.$session_id = 's2'"), [[
    ['__hx_tag', 'Sparkline', 'data', [1, 2, 3]], ['__hx_tag', 'Sparkline', 'data', [1, 2], 'labels', ['a', 'b']],
    ['__hx_tag', 'RecordingButton', 'sessionId', 's2', 'recordingStatus', null], ['__hx_tag', 'RecordingButton', 'sessionId', 's9', 'recordingStatus', 'active'],
  ]]);
  assert.equal(await rows("select languageCodeToName('de'), languageCodeToName('ja'), languageCodeToName('xx'), languageCodeToName(null)"), [['German', 'Japanese', 'Unknown', 'Unknown']]);
  await refused('select sparkline()', /Function 'sparkline' expects at least 1 arguments?, found 0/);
});

h('functions: dates, strings, JSON, arrays and lambdas, maths, conversions, aggregates, windows', async () => {
  assert.equal(await rows("select toStartOfDay(timestamp), toStartOfMonth(timestamp), toStartOfWeek(timestamp), dateDiff('day', toDateTime('2024-06-01 00:00:00'), timestamp), formatDateTime(timestamp, '%Y-%m-%d %H:%i') from events where event = '$identify'"), [
    ['2024-06-01T00:00:00Z', '2024-06-01', '2024-05-26', 0, '2024-06-01 09:30'],
  ]);
  assert.equal(await rows("select dateAdd('day', 2, toDate('2024-06-01')), toDateTime('2024-06-01 10:00:00') + interval 1 hour, toHour(toTimeZone(toDateTime('2024-06-01T10:00:00Z'), 'Asia/Tokyo'))"), [['2024-06-03', '2024-06-01T11:00:00Z', 19]]);
  // A zone given to toDateTime, toDateTime64 or toUnixTimestamp: text is read on that zone's wall clock (10:00 in
  // Tokyo is 01:00 UTC, epoch 1,717,203,600), and a zoned value is written and typed in its zone, as ClickHouse's.
  const zoned = await hogql("select toDateTime('2024-06-01 10:00:00', 'Asia/Tokyo'), toDateTime64('2024-06-01 10:00:00.5', 3, 'Asia/Tokyo'), " +
    "toUnixTimestamp('2024-06-01 10:00:00', 'Asia/Tokyo'), toUnixTimestamp('2024-06-01 10:00:00'), toTimeZone(toDateTime('2024-06-01T10:00:00Z'), 'America/New_York')");
  assert.equal(zoned.body.results, [['2024-06-01T10:00:00+09:00', '2024-06-01T10:00:00.500000+09:00', 1717203600, 1717236000, '2024-06-01T06:00:00-04:00']]);
  assert.equal(zoned.body.types.map((x: string[]) => x[1]), ["Nullable(DateTime64(6, 'Asia/Tokyo'))", "Nullable(DateTime64(6, 'Asia/Tokyo'))", 'Int64', 'Int64', "Nullable(DateTime64(6, 'America/New_York'))"]);
  await refused("select toDateTime('2024-06-01 10:00:00', 'Mars/Olympus_Mons')", /toDateTime\(\): unknown time zone 'Mars\/Olympus_Mons'/);
  assert.equal(await rows("select concat('a', toString(1), null), upper('x'), substring('hello', 2, 3), replaceAll('a-b', '-', '+'), splitByChar(',', 'a,b'), length('héllo'), trim('  x ')"), [['a1', 'X', 'ell', 'a+b', ['a', 'b'], 5, 'x']]);
  assert.equal(await rows('select JSONExtractString(\'{"a":{"b":"c"}}\', \'a\', \'b\'), JSONExtractInt(\'{"n":3}\', \'n\'), JSONHas(\'{"n":3}\', \'m\')'), [['c', 3, false]]);
  assert.equal(await rows('select arrayMap(x -> x * 2, [1, 2, 3]), arrayFilter(x -> x > 1, [1, 2, 3]), has([1, 2], 2), range(3), arraySum([1, 2])'), [[[2, 4, 6], [2, 3], true, [0, 1, 2], 3]]);
  assert.equal(await rows('select round(2.567, 2), intDiv(7, 2), abs(-3), greatest(1, 5), toInt(\'12\'), toFloat(\'1.5\'), toString(3)'), [[2.57, 3, 3, 5, 12, 1.5, '3']]);
  assert.equal(await rows("select countIf(event = 'purchase'), uniq(distinct_id), uniqIf(distinct_id, event = '$pageview'), sumIf(properties.price, event = 'purchase'), argMax(event, timestamp), min(timestamp), quantile(0.5)(toFloat(properties.price)) from events"), [
    [2, 3, 3, 37.5, 'purchase', '2024-06-01T09:00:00Z', 13.75],
  ]);
  assert.equal(await rows("select groupArray(event) from (select event from events where event = 'purchase' order by timestamp)"), [[['purchase', 'purchase']]]);
  assert.equal(await rows("select event, row_number() over (partition by event order by timestamp) as rn, sum(toFloat(properties.price)) over (order by timestamp rows between unbounded preceding and current row) from events where event = 'purchase' order by timestamp"), [
    ['purchase', 1, 30], ['purchase', 2, 37.5],
  ]);
  assert.equal(await rows("select arrayJoin(['x', 'y']) as v order by v"), [['x'], ['y']]);
  // arrayJoin multiplies rows like a column: grouped, filtered and ordered by.
  assert.equal(await rows("select arrayJoin(splitByChar('/', properties.$current_url)) as part, count() from events where part != '' group by part order by part"), [['a.example', 1], ['https:', 1], ['x', 1]]);
  assert.equal(await rows("select event, arrayJoin(['a', 'b']) as k from events where k = 'b' and event = 'purchase'"), [['purchase', 'b'], ['purchase', 'b']]);
  assert.equal(await rows('select event, count() from events group by all order by 2 desc limit 1'), [['$pageview', 3]]);
  assert.equal(await rows("select toString(timestamp) from events where event = '$identify'"), [['2024-06-01 09:30:00']]);
});

h('sessions from $session_id, as a table and joined to events; {filters} with a date range', async () => {
  assert.equal(await rows('select session_id, distinct_id, $session_duration, $entry_current_url, $pageview_count, $is_bounce from sessions order by session_id'), [
    ['s1', 'anon-1', 1800, 'https://a.example/x', 1, false], ['s2', 'user-2', 45000, null, 1, false],
  ]);
  assert.equal(await rows("select event, session.$session_duration from events where event = 'purchase' order by timestamp"), [['purchase', 45000], ['purchase', null]]);
  assert.equal(await rows('select count() from events where {filters}'), [[6]]);
  assert.equal(await rows('select count() from events where {filters}', { filters: { dateRange: { date_from: '2024-06-02', date_to: '2024-06-03' } } }), [[2]]);
  assert.equal(await rows('select count() from events e where {filters}', { filters: { dateRange: { date_from: '2024-06-03' } } }), [[2]]);
  assert.equal(await rows('select count() from events where {filters}', { filters: { properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] } }), [[2]]);
});

h('errors as PostHog words them: syntax with its position, unknown functions with a hint, arity, nesting, tables', async () => {
  await refused('select event from events where', /^Syntax error at line 1, column 30: no viable alternative/);
  await refused('select 1; select 2', /^Syntax error at line 1, column 10: mismatched input 'select' expecting <EOF>/);
  await refused('select cuont() from events', /^Unsupported function call 'cuont\(\.\.\.\)'\. Perhaps you meant 'count\(\.\.\.\)'\?/);
  await refused('select nosuchfunctionatall(1)', /^Unsupported function call 'nosuchfunctionatall\(\.\.\.\)'/);
  await refused("select dateDiff('day', timestamp) from events", /^Function 'dateDiff' expects at least 3 arguments, found 2/);
  await refused('select sum(count()) from events', /^Aggregation 'count' cannot be nested inside another aggregation 'sum'\./);
  await refused('select x from nowhere', /^Unknown table "nowhere"\./);
  await refused('select nosuchfield from events', /^Unable to resolve field: nosuchfield/);
  await refused('select event as team_id from events', /reserved keyword/);
  await refused('select [1][0]', /SQL indexes start from one/);
  // DuckDB's own complaints about a query are the query's: 400, never 500.
  await refused('select event, count() from events', /could not be run/);
});

h('EventsQuery takes the catalogue’s functions, person_display_name, aggregates in where, PostHog’s default order', async () => {
  const events = async (q: Record<string, unknown>) => {
    const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'EventsQuery', after: 'all', ...q }, refresh: 'force_blocking' });
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body.results as unknown[][];
  };
  assert.equal(await events({ select: ['event', 'count()'] }), [['$pageview', 3], ['purchase', 2], ['$identify', 1]]);
  assert.equal(await events({ select: ['event', 'count()'], where: ['count() > 1'] }), [['$pageview', 3], ['purchase', 2]]);
  assert.equal(await events({
    select: ['toDate(timestamp)', "if(event = 'purchase', 1, 0)", "coalesce(properties.$browser, 'none')", "concat(event, '!')", 'round(toFloat(properties.price))', "dateDiff('day', toDateTime('2024-06-01'), timestamp)"],
    where: ["event = 'purchase'"], orderBy: ['timestamp ASC'],
  }), [['2024-06-03', 1, 'Safari', 'purchase!', 30, 2], ['2024-06-03', 1, 'none', 'purchase!', 8, 2]]);
  assert.equal(await events({ select: ["countIf(event = 'purchase')", 'argMax(event, timestamp)', 'uniq(distinct_id)'] }), [[2, 'purchase', 3]]);
  const people = await events({ select: ['person_display_name -- Person', 'event'], where: ["event = 'purchase'"], orderBy: ['timestamp ASC'] });
  assert.equal(people.map((r) => (r[0] as { display_name: string }).display_name), ['user-2', 'one@example.com']);
  assert.match((people[0][0] as { id: string }).id, /^[0-9a-f-]{36}$/);
  const bad = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'EventsQuery', select: ['cuont()'] } });
  assert.is(bad.status, 400);
  assert.is(bad.body.attr, 'select.0');
  assert.match(bad.body.detail, /Unsupported function call 'cuont\(\.\.\.\)'\. Perhaps you meant 'count\(\.\.\.\)'\?/);
});

h('LIMIT BY (with OFFSET, after ORDER BY, before LIMIT) and the ARRAY JOIN clause', async () => {
  // A select alias inside its own expression is the column it shadows; elsewhere, the alias.
  assert.equal(await rows("select timestamp + interval 1 hour as timestamp from events where event = '$identify'"), [['2024-06-01T10:30:00Z']]);
  assert.equal(await rows("select toDate(timestamp) as timestamp from events where timestamp = '2024-06-01' order by 1 limit 1"), [['2024-06-01']]);
  assert.equal(await rows('select event, distinct_id from events order by timestamp desc limit 1 by event'), [['purchase', 'user-1'], ['$pageview', 'user-2'], ['$identify', 'user-1']]);
  assert.equal(await rows('select event, distinct_id from events order by timestamp limit 1 offset 1 by event'), [['$pageview', 'user-1'], ['purchase', 'user-1']]);
  assert.equal(await rows('select event, distinct_id from events order by timestamp limit 2 by event limit 3'), [['$pageview', 'anon-1'], ['$identify', 'user-1'], ['$pageview', 'user-1']]);
  assert.equal(await rows('select event as e, distinct_id, count() as c from events group by e, distinct_id order by c desc, distinct_id, e limit 1 by e'), [['$pageview', 'anon-1', 1], ['$identify', 'user-1', 1], ['purchase', 'user-1', 1]]);
  assert.equal(await rows('select event, distinct_id from events order by 2 desc, 1 limit 1 by 1 limit 0'), []);
  assert.equal(await rows("select event, distinct_id from events where event = 'purchase' order by 2 desc limit 1 by event"), [['purchase', 'user-2']]);

  assert.equal(await rows("select event, x from events array join ['a', 'b'] as x where event = 'purchase' order by timestamp, x"), [['purchase', 'a'], ['purchase', 'b'], ['purchase', 'a'], ['purchase', 'b']]);
  assert.equal(await rows("select x, y, count() from events array join [1, 2] as x, ['one', 'two'] as y group by x, y order by x"), [[1, 'one', 6], [2, 'two', 6]]);
  assert.equal(await rows("select distinct_id, replaceAll(tag, '\"', '') as t from events array join JSONExtractArrayRaw(properties, 'tags') as tag order by t"), [['user-1', 'a'], ['user-1', 'b']]);
  // LEFT ARRAY JOIN keeps the events whose array is empty (their element NULL).
  assert.equal(await rows("select count(), countIf(tag is null) from events left array join JSONExtractArrayRaw(properties, 'tags') as tag"), [[7, 5]]);
  await refused('select x from events array join properties.tags', /must have an alias/);
  await refused('select x from events array join properties.tags as x', /ARRAY JOIN needs an array/);
  await refused('select event from events limit -1 by event', /LIMIT BY count must be a whole number/);
});

h('groups, events.$group_0..4 and persons.is_identified (a project of their own)', async () => {
  const admin = t.server.tenancy.users()[0];
  const other = await t.server.tenancy.createProject(admin.organization_id, 'Groups') as { id: number; api_token: string };
  const ev = (event: string, distinct_id: string, properties: Record<string, unknown>, timestamp: string) => ({ uuid: randomUUID(), event, distinct_id, timestamp, properties });
  const capture = async (batch: unknown[]) => {
    assert.is((await postJson(`${t.url}/batch/`, { api_key: other.api_token, batch })).status, 200);
    await t.applied();
  };
  const query = async (q: string) => {
    const r = await api('POST', `/api/environments/${other.id}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query: q }, refresh: 'force_blocking' });
    assert.is(r.status, 200, `${q}: ${JSON.stringify(r.body)}`);
    return r.body.results as unknown[][];
  };
  await capture([
    ev('$groupidentify', 'u1', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', seats: 5 } }, '2024-06-01T08:00:00Z'),
    ev('$groupidentify', 'u1', { $group_type: 'team', $group_key: 'core', $group_set: { name: 'Core' } }, '2024-06-01T08:01:00Z'),
    ev('$pageview', 'u1', { $groups: { company: 'acme', team: 'core' } }, '2024-06-01T09:00:00Z'),
    ev('$pageview', 'anon', { $groups: { company: 'acme' } }, '2024-06-01T09:30:00Z'),
    ev('$identify', 'u2', { $anon_distinct_id: 'pre-u2', $set: { email: 'two@example.com' } }, '2024-06-01T10:00:00Z'),
  ]);
  assert.equal(await query('select index, key, properties.name, properties.seats, created_at from groups order by index'), [
    [0, 'acme', 'Acme', '5', '2024-06-01T08:00:00Z'], [1, 'core', 'Core', null, '2024-06-01T08:01:00Z'],
  ]);
  assert.equal(await query('select $group_0, $group_1, count() from events group by $group_0, $group_1 order by $group_0, $group_1'), [['', '', 3], ['acme', '', 1], ['acme', 'core', 1]]);
  assert.equal(await query("select e.distinct_id, g.properties.name from events e join groups g on g.key = e.$group_0 and g.index = 0 where e.event = '$pageview' order by e.timestamp"), [['u1', 'Acme'], ['anon', 'Acme']]);
  // events.group_N: the event's group of that type, joined (PostHog's lazy join).
  assert.equal(await query("select distinct_id, group_0.properties.name, group_0.created_at, group_1.key from events where event = '$pageview' order by timestamp"), [
    ['u1', 'Acme', '2024-06-01T08:00:00Z', 'core'], ['anon', 'Acme', '2024-06-01T08:00:00Z', null],
  ]);
  assert.equal(await query('select is_identified, count() from persons group by is_identified order by is_identified'), [[false, 2], [true, 1]]);
  assert.equal(await query("select distinct_id, person.is_identified from events where event in ('$identify', '$pageview') order by timestamp"), [['u1', false], ['anon', false], ['u2', true]]);
  // A group's later $groupidentify reaches the store; so does a person becoming identified.
  await capture([
    ev('$groupidentify', 'u1', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme Inc' } }, '2024-06-02T08:00:00Z'),
    ev('$identify', 'named', { $anon_distinct_id: 'anon', $set: { email: 'anon@example.com' } }, '2024-06-02T09:00:00Z'),
  ]);
  assert.equal(await query('select key, properties.name, properties.seats from groups where index = 0'), [['acme', 'Acme Inc', '5']]);
  assert.equal(await query("select group_0.properties.name, count() from events where event = '$pageview' group by 1"), [['Acme Inc', 2]]);
  assert.equal(await query('select count() from persons where is_identified'), [[2]]);
  assert.equal(await query("select person.is_identified from events where distinct_id = 'anon'"), [[true]]);
  // The main project has no groups: an event of its naming the other project's group key
  // joins no group (after every other dated test's range).
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [ev('grouped', 'user-9', { $groups: { company: 'acme' } }, '2024-07-01T00:00:00Z')] })).status, 200);
  await t.applied();
  assert.equal(await rows('select count() from groups'), [[0]]);
  assert.equal(await rows("select $group_0, group_0.key, group_0.properties.name from events where $group_0 != ''"), [['acme', null, null]]);
  // group_N.* in insight expressions: the event's group as the store holds it now, of the query's project only.
  const trends = async (projectId: number, extra: Record<string, unknown>) => {
    const r = await api('POST', `/api/environments/${projectId}/query/`, t.personalKey, { query: { kind: 'TrendsQuery', interval: 'day', series: [{ kind: 'EventsNode', event: '$pageview' }], ...extra }, refresh: 'force_blocking' });
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body.results as { breakdown_value?: string; count: number; data: number[] }[];
  };
  const june = { dateRange: { date_from: '2024-06-01', date_to: '2024-06-02' } };
  const byGroup = await trends(other.id, { ...june, breakdownFilter: { breakdown_type: 'hogql', breakdown: 'group_0.properties.name' } });
  assert.equal(byGroup.map((i) => [i.breakdown_value, i.count]), [['Acme Inc', 2]]);
  assert.equal((await trends(other.id, { ...june, properties: [{ type: 'hogql', key: "group_1.properties.name = 'Core' and group_0.index = 0" }] }))[0].data, [1, 0]);
  assert.equal((await trends(other.id, { ...june, series: [{ kind: 'EventsNode', event: null, math: 'hogql', math_hogql: "countIf(group_0.key = 'acme' and group_0.created_at < timestamp)" }] }))[0].data, [2, 0]);
  const isolated = await trends(t.projectId, { dateRange: { date_from: '2024-07-01', date_to: '2024-07-01' }, series: [{ kind: 'EventsNode', event: 'grouped' }], breakdownFilter: { breakdown_type: 'hogql', breakdown: "coalesce(group_0.properties.name, 'none')" } });
  assert.equal(isolated.map((i) => [i.breakdown_value, i.count]), [['none', 1]]);

  // The hogql text of insights over groups (group property filters and breakdowns, maths and
  // aggregation counting groups), run as a HogQLQuery in the same project, gives their numbers.
  const insight = async (q: Record<string, unknown>) => {
    const r = await api('POST', `/api/environments/${other.id}/query/`, t.personalKey, { query: q, refresh: 'force_blocking' });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.type(r.body.hogql, 'string', JSON.stringify(q));
    return r.body as { hogql: string; results: { breakdown_value?: string; data: number[]; days: string[]; count: number }[] };
  };
  const trendsAgree = async (extra: Record<string, unknown>, expected: [string | undefined, number[]][]) => {
    const body = await insight({ kind: 'TrendsQuery', interval: 'day', ...june, series: [{ kind: 'EventsNode', event: '$pageview' }], ...extra });
    assert.equal(body.results.map((i) => [i.breakdown_value, i.data]), expected, body.hogql);
    const fromText = new Map((await query(body.hogql)).map((row) => [[String(row[1]).slice(0, 10), ...row.slice(2)].join('|'), Number(row[0])]));
    for (const item of body.results) {
      item.days.forEach((day, i) => assert.is(fromText.get([day, ...(item.breakdown_value === undefined ? [] : [item.breakdown_value])].join('|')) ?? 0, item.data[i], `${day} ${body.hogql}`));
    }
    assert.is([...fromText.values()].filter((v) => v !== 0).length, body.results.reduce((n, i) => n + i.data.filter((v) => v !== 0).length, 0), body.hogql);
  };
  await trendsAgree({ properties: [{ type: 'group', group_type_index: 1, key: 'name', value: 'CORE', operator: 'exact' }] }, [[undefined, [1, 0]]]);
  await trendsAgree({ breakdownFilter: { breakdown_type: 'group', breakdown: 'name', breakdown_group_type_index: 1 } }, [['Core', [1, 0]], ['$$_posthog_breakdown_null_$$', [1, 0]]]);
  await trendsAgree({ series: [{ kind: 'EventsNode', event: null, math: 'unique_group', math_group_type_index: 0 }] }, [[undefined, [1, 0]]]);
  await trendsAgree({ aggregation_group_type_index: 1, series: [{ kind: 'EventsNode', event: null, math: 'dau' }] }, [[undefined, [1, 0]]]);
  // A funnel of companies: acme's two pageviews (two persons) are one company's two steps.
  const companies = await insight({ kind: 'FunnelsQuery', ...june, aggregation_group_type_index: 0, series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: '$pageview' }] });
  assert.equal(companies.results.map((s) => s.count), [1, 1]);
  assert.equal((await query(companies.hogql)).map((row) => row.slice(0, 2)), [[1, 1]], companies.hogql);
  // Stickiness counting companies (math unique_group) or a HogQL expression's values: the
  // actors by the number of days they were active in, as the text gives them.
  for (const [series, expected] of [
    [{ kind: 'EventsNode', event: null, math: 'unique_group', math_group_type_index: 0 }, [1, 0]],
    [{ kind: 'EventsNode', event: null, math: 'hogql', math_hogql: 'distinct_id' }, [3, 1]],
  ] as const) {
    const sticky = await insight({ kind: 'StickinessQuery', ...june, interval: 'day', series: [series] });
    assert.equal(sticky.results[0].data, expected, sticky.hogql);
    const byIntervals = new Map((await query(sticky.hogql)).map(([total, n]) => [Number(n), Number(total)]));
    assert.equal(sticky.results[0].days.map((d) => byIntervals.get(Number(d)) ?? 0), sticky.results[0].data, sticky.hogql);
  }
  // Lifecycle counting companies: acme new on its first day (it was created that day), dormant after.
  const life = await insight({ kind: 'LifecycleQuery', ...june, interval: 'day', aggregation_group_type_index: 0, series: [{ kind: 'EventsNode', event: null }] });
  const fromText = new Map((await query(life.hogql)).map(([start, status, total]) => [`${String(start).slice(0, 10)}|${String(status)}`, Number(total)]));
  let seen = 0;
  for (const item of life.results as unknown as { status: string; days: string[]; data: number[] }[]) {
    item.days.forEach((day, i) => {
      assert.is((fromText.get(`${day}|${item.status}`) ?? 0) * (item.status === 'dormant' ? -1 : 1) || 0, item.data[i] || 0, `${day} ${item.status}: ${life.hogql}`);
      if (item.data[i] !== 0) seen++;
    });
  }
  assert.is(seen, fromText.size, life.hogql);
  assert.equal(Object.fromEntries([...fromText].filter(([, n]) => n !== 0)), { '2024-06-01|new': 1, '2024-06-02|dormant': 1 }, life.hogql);
});

h('HogQL in the insights: trends math "hogql", breakdowns of type hogql, property filters of type hogql', async () => {
  const insight = async (query: Record<string, unknown>) => {
    const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query, refresh: 'force_blocking' });
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const days = { dateRange: { date_from: '2024-06-01', date_to: '2024-06-03' }, interval: 'day' };
  const trends = (series: unknown[], extra: Record<string, unknown> = {}) => insight({ kind: 'TrendsQuery', ...days, series, ...extra });
  // A trends answer's `hogql`, run as a HogQLQuery, gives its numbers per day (and breakdown value).
  type Item = { data: number[]; days: string[]; breakdown_value?: string };
  const agrees = async (body: { hogql: string; results: Item[] }) => {
    const r = await hogql(body.hogql);
    assert.is(r.status, 200, `${body.hogql}: ${JSON.stringify(r.body)}`);
    const fromText = new Map((r.body.results as unknown[][]).map((row) => [[String(row[1]).slice(0, 10), ...row.slice(2)].join('|'), Number(row[0])]));
    const keys = new Set<string>();
    for (const item of body.results) {
      item.days.forEach((day, i) => {
        const key = [day, ...(item.breakdown_value === undefined ? [] : [item.breakdown_value])].join('|');
        keys.add(key);
        assert.is(fromText.get(key) ?? 0, item.data[i], `${key} in ${body.hogql}`);
      });
    }
    for (const key of fromText.keys()) assert.ok(keys.has(key), `${key} only in ${body.hogql}`);
  };
  const plain = await trends([{ kind: 'EventsNode', event: '$pageview', properties: [{ key: '$browser', value: 'CHROME', operator: 'exact' }, { key: 'price', value: 6, operator: 'gt' }] }]);
  assert.equal(plain.results[0].data, [0, 1, 0]);
  assert.match(plain.hogql, /^SELECT count\(\) AS total, toStartOfDay\(timestamp\) AS day_start FROM events WHERE timestamp >= toDateTime\('2024-06-01T00:00:00\.000Z'\) AND timestamp < toDateTime\('2024-06-04T00:00:00\.000Z'\) AND event = '\$pageview' AND /);
  await agrees(plain);
  for (const math of ['dau', 'unique_session']) await agrees(await trends([{ kind: 'EventsNode', event: null, math }]));
  // Quotes, backslashes and newlines in keys and values stay data in the text.
  const quoted = await trends([{ kind: 'EventsNode', event: "it's \\ here" }], { properties: [{ key: "o'k\\", value: "a\\'b\n", operator: 'is_not' }], breakdownFilter: { breakdown: "$bro'wser" } });
  assert.match(quoted.hogql, /event = 'it\\'s \\\\ here'/);
  await agrees(quoted);
  const typed = await trends([{ kind: 'EventsNode', event: '$pageview' }], { properties: [{ key: "o'k\\", value: "a\\'b\n", operator: 'is_not' }], breakdownFilter: { breakdown: '$browser' } });
  assert.equal(typed.results.map((i: { count: number }) => i.count), [2, 1]);
  await agrees(typed);
  // Past the breakdown limit, values fold into PostHog's "other" in the text as in the insight (or leave it, hidden).
  const folded = await trends([{ kind: 'EventsNode', event: '$pageview' }], { breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } });
  assert.equal(folded.results.map((i: { breakdown_value: string; count: number }) => [i.breakdown_value, i.count]), [['Chrome', 2], ['$$_posthog_breakdown_other_$$', 1]]);
  assert.match(folded.hogql, /'\$\$_posthog_breakdown_other_\$\$'/);
  await agrees(folded);
  const hidden = await trends([{ kind: 'EventsNode', event: '$pageview' }], { breakdownFilter: { breakdown: '$browser', breakdown_limit: 1, breakdown_hide_other_aggregation: true } });
  assert.equal(hidden.results.map((i: { breakdown_value: string; count: number }) => [i.breakdown_value, i.count]), [['Chrome', 2]]);
  await agrees(hidden);
  const foldedPairs = await trends([{ kind: 'EventsNode', event: null }], { breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: 'price' }], breakdown_limit: 2 } });
  assert.ok(foldedPairs.results.some((i: { breakdown_value: string[] }) => i.breakdown_value[0] === '$$_posthog_breakdown_other_$$'));
  await agrees(foldedPairs);
  await agrees(await trends([{ kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'price' }], { properties: [{ key: 'plan', value: ['pro', 'free'], operator: 'exact', type: 'person' }] }));
  // The series' own aggregate per day: prices are text in the events, read as numbers by toFloat.
  const math = await trends([
    { kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: 'sum(toFloat(properties.price))' },
    { kind: 'EventsNode', event: null, math: 'hogql', math_hogql: "countIf(event = 'purchase') * 10 + count(distinct person_id)" },
  ]);
  assert.equal(math.results[0].data, [5, 20, 0]);
  assert.match(math.hogql, / UNION ALL SELECT coalesce\(toFloat\(countIf\(event = 'purchase'\) \* 10 \+ count\(distinct person_id\)\), 0\) AS total/);
  assert.is(math.results[0].action.math, 'hogql');
  assert.is(math.results[0].action.math_hogql, 'sum(toFloat(properties.price))');
  // Day 1: one person (anon-1 merged into user-1); day 2: two; day 3: two purchases by two people.
  assert.equal(math.results[1].data, [1, 2, 22]);
  const people = await trends([{ kind: 'EventsNode', event: null, math: 'hogql', math_hogql: "countIf(person.is_identified and person.properties.plan = 'pro')" }]);
  assert.equal(people.results[0].data, [2, 1, 1]);
  const total = await trends([{ kind: 'EventsNode', event: 'purchase', math: 'hogql', math_hogql: 'max(toFloat(properties.price)) - min(toFloat(properties.price))' }], { trendsFilter: { display: 'BoldNumber' } });
  assert.is(total.results[0].aggregated_value, 22.5);

  // A breakdown by an expression, event or person, with PostHog's null value.
  const byBrowser = await trends([{ kind: 'EventsNode', event: '$pageview' }], { breakdownFilter: { breakdown_type: 'hogql', breakdown: "lower(properties.$browser) || '!'" } });
  assert.equal(byBrowser.results.map((i: { breakdown_value: string; count: number }) => [i.breakdown_value, i.count]), [['chrome!', 2], ['safari!', 1]]);
  await agrees(byBrowser);
  const byPlan = await trends([{ kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: 'count()' }], { breakdownFilter: { breakdown_type: 'hogql', breakdown: 'person.properties.plan' } });
  assert.equal(byPlan.results.map((i: { breakdown_value: string; data: number[] }) => [i.breakdown_value, i.data]), [['pro', [1, 1, 0]], ['$$_posthog_breakdown_null_$$', [0, 1, 0]]]);
  await agrees(byPlan);
  const several = await trends([{ kind: 'EventsNode', event: 'purchase' }], { breakdownFilter: { breakdowns: [{ type: 'hogql', property: "toFloat(properties.price) > 10" }, { type: 'event', property: '$browser' }] } });
  assert.equal(several.results.map((i: { breakdown_value: string[] }) => i.breakdown_value).sort(), [['false', '$$_posthog_breakdown_null_$$'], ['true', 'Safari']]);

  // Property filters of type hogql: on the query, a series, a funnel step, retention, EventsQuery.
  const filtered = await trends([{ kind: 'EventsNode', event: '$pageview', properties: [{ type: 'hogql', key: 'properties.price > 10' }] }]);
  assert.equal(filtered.results[0].data, [0, 1, 0]);
  await agrees(filtered);
  const byPerson = await trends([{ kind: 'EventsNode', event: null }], { properties: [{ type: 'hogql', key: "person.properties.email like '%@example.com'" }] });
  assert.equal(byPerson.results[0].data, [2, 1, 1]);
  await agrees(byPerson);
  // Stickiness answers its hogql too: persons by the number of days they did the event.
  // (Day 1: anon-1's pageview and identify are one person's two events.)
  for (const extra of [{ series: [{ kind: 'EventsNode', event: null, properties: [{ type: 'hogql', key: "event != '$identify'" }] }] }, { stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } }]) {
    const sticky = await insight({ kind: 'StickinessQuery', ...days, series: [{ kind: 'EventsNode', event: null }], ...extra });
    const r = await hogql(sticky.hogql);
    assert.is(r.status, 200, `${sticky.hogql}: ${JSON.stringify(r.body)}`);
    const byIntervals = new Map((r.body.results as number[][]).map(([total, n]) => [n, total]));
    assert.equal(sticky.results[0].data, sticky.results[0].days.map((d: number) => byIntervals.get(d) ?? 0));
    assert.ok(sticky.results[0].count > 0);
  }
  // And lifecycle: persons per day and status.
  for (const interval of ['day', 'hour']) {
    const range = interval === 'day' ? days.dateRange : { date_from: '2024-06-02T08:00:00Z', date_to: '2024-06-03T14:00:00Z' };
    const life = await insight({ kind: 'LifecycleQuery', dateRange: range, interval, series: [{ kind: 'EventsNode', event: null }] });
    const r = await hogql(life.hogql);
    assert.is(r.status, 200, `${life.hogql}: ${JSON.stringify(r.body)}`);
    const fromText = new Map((r.body.results as [string, string, number][]).map(([start, status, total]) => [`${start.replace('T', ' ').slice(0, interval === 'day' ? 10 : 19)}|${status}`, total]));
    let seen = 0;
    for (const item of life.results as { status: string; days: string[]; data: number[] }[]) {
      item.days.forEach((day, i) => {
        assert.is((fromText.get(`${day}|${item.status}`) ?? 0) * (item.status === 'dormant' ? -1 : 1) || 0, item.data[i] || 0, `${day} ${item.status}: ${life.hogql}`);
        if (item.data[i] !== 0) seen++;
      });
    }
    assert.is(seen, fromText.size, life.hogql);
    assert.ok(seen > 2);
  }
  const funnel = await insight({
    kind: 'FunnelsQuery', dateRange: days.dateRange,
    series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'purchase', properties: [{ type: 'hogql', key: 'toFloat(properties.price) >= 10' }] }],
  });
  assert.equal(funnel.results.map((s: { count: number }) => s.count), [2, 1]);
  // Ordered funnels answer their hogql: run as a HogQLQuery, it gives the persons at each step.
  // Each step's persons, then from the second step on the average and median conversion times.
  type Timed = { count: number; average_conversion_time: number | null; median_conversion_time: number | null };
  const timedRow = (steps: Timed[]) => [...steps.map((s) => s.count), ...steps.slice(1).flatMap((s) => [s.average_conversion_time, s.median_conversion_time])];
  const timedColumns = (n: number) => [...Array.from({ length: n }, (_, k) => `step_${k + 1}`), ...Array.from({ length: n - 1 }, (_, k) => [`step_${k + 1}_average_conversion_time`, `step_${k + 1}_median_conversion_time`]).flat()];
  const funnelAgrees = async (body: { hogql: string; results: Timed[] }) => {
    const r = await hogql(body.hogql);
    assert.is(r.status, 200, `${body.hogql}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.columns, timedColumns(body.results.length));
    assert.equal(r.body.results, [timedRow(body.results)], body.hogql);
  };
  await funnelAgrees(funnel);
  for (const [hours, counts] of [[1, [2, 0]], [13, [2, 1]]] as const) {
    const windowed = await insight({
      kind: 'FunnelsQuery', dateRange: days.dateRange, funnelsFilter: { funnelWindowInterval: hours, funnelWindowIntervalUnit: 'hour' },
      series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'purchase' }], properties: [{ key: '$browser', operator: 'is_set' }],
    });
    assert.equal(windowed.results.map((s: { count: number }) => s.count), counts);
    await funnelAgrees(windowed);
  }
  const threeSteps = await insight({ kind: 'FunnelsQuery', dateRange: days.dateRange, series: [{ kind: 'EventsNode', event: null }, { kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'purchase' }] });
  assert.equal(threeSteps.results.map((s: { count: number }) => s.count), [2, 1, 1]);
  await funnelAgrees(threeSteps);
  // Strict and unordered funnels write theirs too. Strict: user-1's first pageview is followed
  // by the identify, its second by the purchase; user-2's by its purchase.
  const funnelOf = (series: string[], extra: Record<string, unknown> = {}) =>
    insight({ kind: 'FunnelsQuery', dateRange: days.dateRange, series: series.map((event) => ({ kind: 'EventsNode', event })), ...extra });
  for (const [order, series, counts, window] of [
    ['strict', ['$pageview', 'purchase'], [2, 2], {}],
    ['strict', ['$identify', 'purchase'], [1, 0], {}],
    ['strict', ['$pageview', '$identify', '$pageview'], [2, 1, 1], {}],
    ['strict', ['$identify', '$pageview', 'purchase'], [1, 1, 1], {}],
    ['unordered', ['purchase', '$identify'], [2, 1], {}],
    ['unordered', ['purchase', '$identify', '$pageview'], [2, 2, 1], {}],
    // Within an hour user-1's identify has no purchase near it, and user-2's purchase no identify.
    ['unordered', ['purchase', '$identify'], [2, 0], { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' }],
  ] as const) {
    const body = await funnelOf([...series], { funnelsFilter: { funnelOrderType: order, ...window } });
    assert.equal(body.results.map((s: { count: number }) => s.count), counts, `${order} ${series.join(' → ')}`);
    await funnelAgrees(body);
  }
  // With a breakdown: a row per value, the value first, each step's persons as the funnel's.
  type Step = Timed & { breakdown_value: unknown };
  const breakdownAgrees = async (body: { hogql: string; results: Step[][] }) => {
    const r = await hogql(body.hogql);
    assert.is(r.status, 200, `${body.hogql}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.columns, ['breakdown_value', ...timedColumns(body.results[0].length)]);
    const fromText = Object.fromEntries((r.body.results as [string, ...number[]][]).map(([value, ...counts]) => [value, counts]));
    const fromFunnel = Object.fromEntries(body.results.map((steps) => [String(steps[0].breakdown_value), timedRow(steps)]));
    assert.equal(fromText, fromFunnel, body.hogql);
    assert.ok(Object.keys(fromFunnel).length >= 2);
  };
  const funnelByBrowser = await insight({
    kind: 'FunnelsQuery', dateRange: days.dateRange, series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'purchase' }],
    breakdownFilter: { breakdown_type: 'hogql', breakdown: 'upper(properties.$browser)' },
  });
  assert.equal(funnelByBrowser.results.map((steps: { breakdown_value: string; count: number }[]) => [steps[0].breakdown_value, steps.map((s) => s.count)]).sort(), [['CHROME', [1, 1]], ['SAFARI', [1, 1]]]);
  await breakdownAgrees(funnelByBrowser);
  const values = (body: { results: Step[][] }) => body.results.map((steps) => [steps[0].breakdown_value, steps.map((x) => x.count)]).sort();
  // Last touch, strict: user-1's last browser is Chrome (its purchase has none).
  const lastTouch = await funnelOf(['$pageview', 'purchase'], { funnelsFilter: { funnelOrderType: 'strict', breakdownAttributionType: 'last_touch' }, breakdownFilter: { breakdown: '$browser' } });
  assert.equal(values(lastTouch), [['Chrome', [1, 1]], ['Safari', [1, 1]]]);
  await breakdownAgrees(lastTouch);
  // A person property, unordered: user-2 has no plan.
  const funnelByPlan = await funnelOf(['purchase', '$identify'], { funnelsFilter: { funnelOrderType: 'unordered' }, breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } });
  assert.equal(values(funnelByPlan), [['$$_posthog_breakdown_null_$$', [1, 0]], ['pro', [1, 1]]]);
  await breakdownAgrees(funnelByPlan);
  // The value of one step's events: user-1's purchase has no browser, so its value is the null one.
  const byStep = await funnelOf(['$pageview', 'purchase'], { funnelsFilter: { breakdownAttributionType: 'step', breakdownAttributionValue: 1 }, breakdownFilter: { breakdown: '$browser' } });
  assert.equal(values(byStep), [['$$_posthog_breakdown_null_$$', [1, 1]], ['Safari', [1, 1]]]);
  await breakdownAgrees(byStep);
  // All events: each (person, value) its own funnel; user-1's Chrome pageviews have no Chrome purchase.
  const allEvents = await funnelOf(['$pageview', 'purchase'], { funnelsFilter: { breakdownAttributionType: 'all_events' }, breakdownFilter: { breakdown: '$browser' } });
  assert.equal(values(allEvents), [['Chrome', [1, 0]], ['Safari', [1, 1]]]);
  await breakdownAgrees(allEvents);
  // A cohort breakdown: the funnel over each cohort's persons' events ('all': everyone's).
  const everyone = await funnelOf(['$pageview', 'purchase'], { breakdownFilter: { breakdown_type: 'cohort', breakdown: ['all'] } });
  assert.equal(values(everyone), [['all', [2, 2]]]);
  assert.equal((await hogql(everyone.hogql)).body.results, [['all', ...timedRow(everyone.results[0])]]);
  const retention = await insight({
    kind: 'RetentionQuery', dateRange: { date_from: '2024-06-01', date_to: '2024-06-03' },
    retentionFilter: { period: 'Day', totalIntervals: 3, retentionType: 'retention_recurring', targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: null, type: 'events' } },
    properties: [{ type: 'hogql', key: "person.properties.plan = 'pro'" }],
  });
  assert.equal(retention.results.map((r: { values: { count: number }[] }) => r.values.map((v) => v.count)), [[1, 1, 1], [1, 1, 0], [0, 0, 0]]);
  // Retention answers its hogql too (first time and recurring, a returning event of its own, minimum occurrences).
  const retentionAgrees = async (body: { hogql: string; results: { date: string; values: { count: number }[] }[] }) => {
    const r = await hogql(body.hogql);
    assert.is(r.status, 200, `${body.hogql}: ${JSON.stringify(r.body)}`);
    const fromText = new Map((r.body.results as [string, number, number][]).map(([cohort, k, n]) => [`${cohort.slice(0, 10)}|${k}`, n]));
    let seen = 0;
    for (const row of body.results) {
      row.values.forEach((v, k) => {
        assert.is(fromText.get(`${row.date.slice(0, 10)}|${k}`) ?? 0, v.count, `${row.date} ${k}: ${body.hogql}`);
        if (v.count !== 0) seen++;
      });
    }
    assert.is(seen, fromText.size, body.hogql);
    assert.ok(seen > 1, body.hogql);
  };
  for (const retentionFilter of [
    { period: 'Day', totalIntervals: 3, retentionType: 'retention_recurring', targetEntity: { id: null, type: 'events' }, returningEntity: { id: null, type: 'events' } },
    { period: 'Day', totalIntervals: 3, retentionType: 'retention_first_time', targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: 'purchase', type: 'events' } },
    { period: 'Day', totalIntervals: 3, retentionType: 'retention_recurring', targetEntity: { id: null, type: 'events' }, returningEntity: { id: null, type: 'events' }, minimumOccurrences: 2 },
    { period: 'Week', totalIntervals: 2, retentionType: 'retention_first_time', targetEntity: { id: null, type: 'events' }, returningEntity: { id: null, type: 'events' } },
  ]) {
    await retentionAgrees(await insight({ kind: 'RetentionQuery', dateRange: { date_from: '2024-06-01', date_to: '2024-06-03' }, retentionFilter }));
  }
  // session.* (and events.session.*) in insight expressions: the event's session from $session_id
  // (s1: 09:00 to 09:30 on day 1; s2: day 2 23:30 to day 3 12:00; events without one read NULL).
  const durations = await trends([{ kind: 'EventsNode', event: null, math: 'hogql', math_hogql: 'avg(session.$session_duration)' }]);
  assert.equal(durations.results[0].data, [1800, 45000, 45000]);
  const longSessions = await trends([{ kind: 'EventsNode', event: null, properties: [{ type: 'hogql', key: 'session.$pageview_count >= 1 and events.session.duration > 3600' }] }]);
  assert.equal(longSessions.results[0].data, [0, 1, 1]);
  await agrees(longSessions);
  const byEntry = await trends([{ kind: 'EventsNode', event: '$pageview' }], { breakdownFilter: { breakdown_type: 'hogql', breakdown: 'session.$entry_current_url' } });
  assert.equal(byEntry.results.map((i: { breakdown_value: string; count: number }) => [i.breakdown_value, i.count]), [['https://a.example/x', 1], ['$$_posthog_breakdown_null_$$', 2]]);
  await agrees(byEntry);
  const sessionFunnel = await insight({
    kind: 'FunnelsQuery', dateRange: days.dateRange,
    series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'purchase', properties: [{ type: 'hogql', key: 'session.$pageview_count > 0' }] }],
  });
  assert.equal(sessionFunnel.results.map((s: { count: number }) => s.count), [2, 1]);
  await funnelAgrees(sessionFunnel);
  const personMath = await trends([{ kind: 'EventsNode', event: null, math: 'hogql', math_hogql: "uniqIf(person.id, person.properties.plan = 'pro' and events.person.created_at <= timestamp)" }]);
  assert.equal(personMath.results[0].data, [1, 1, 1]);
  const events = await insight({ kind: 'EventsQuery', after: 'all', select: ['event'], orderBy: ['timestamp ASC'], properties: [{ type: 'hogql', key: "event = 'purchase' and properties.$browser is null" }] });
  assert.equal(events.results, [['purchase']]);

  // Refused with the field that holds the expression.
  const wrong = async (query: Record<string, unknown>, attr: string, detail: RegExp) => {
    const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query, refresh: 'force_blocking' });
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.is(r.body.attr, attr);
    assert.match(r.body.detail, detail);
  };
  await wrong({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: 'sume(properties.price)' }] }, 'series.0.math_hogql', /Unsupported function call 'sume\(\.\.\.\)'\. Perhaps you meant 'sum\(\.\.\.\)'\?/);
  await wrong({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: 'properties.price' }] }, 'series.0.math_hogql', /must aggregate/);
  await wrong({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'hogql' }] }, 'series.0.math_hogql', /needs a math_hogql/);
  await wrong({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], properties: [{ type: 'hogql', key: 'count() > 1' }] }, 'properties.0', /Aggregation 'count' is not allowed in a property filter/);
  await wrong({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.$browser ==' } }, 'breakdownFilter.breakdown', /Invalid HogQL/);
  await wrong({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown_type: 'hogql', breakdown: 'nope.field' } }, 'breakdownFilter.breakdown', /Unable to resolve field: nope\.field/);
});

h('matchesAction(id or name): the project’s actions’ steps, in HogQLQuery, EventsQuery and insight expressions', async () => {
  const action = async (projectId: number, body: Record<string, unknown>) => {
    const r = await api('POST', `/api/projects/${projectId}/actions/`, t.personalKey, body);
    assert.is(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  };
  const chrome = await action(t.projectId, { name: 'Chrome views', steps: [{ event: '$pageview', properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] }] });
  // A person-property step or a URL step: user-1's purchase (plan pro), anon-1's pageview of /x.
  const mixed = await action(t.projectId, { name: "it's \\ mixed", steps: [{ event: 'purchase', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }] }, { url: 'a.example/x', url_matching: 'contains' }] });
  assert.equal(await rows(`select event, count() from events where matchesAction(${chrome}) group by event`), [['$pageview', 2]]);
  assert.equal(await rows("select count() from events where matchesAction('Chrome views')"), [[2]]);
  assert.equal(await rows(`select distinct_id, event from events where matchesAction(${mixed}) order by timestamp`), [['anon-1', '$pageview'], ['user-1', 'purchase']]);
  assert.equal(await rows(String.raw`select count() from events where matchesAction('it\'s \\ mixed') and not matchesAction(${chrome})`), [[1]]);
  // An event missing what a step reads does not match: `not` keeps it.
  assert.equal(await rows(`select countIf(matchesAction(${chrome})), countIf(not matchesAction(${mixed})) = count() - 2 from events`), [[2, true]]);
  // In a CTE, a subquery and a join: each events table reads its own match.
  assert.equal(await rows(`with m as (select uuid from events where matchesAction(${mixed})) select count() from events e join m on e.uuid = m.uuid where matchesAction(${chrome})`), [[1]]);
  assert.equal(await rows(`select count() from persons where id in (select person_id from events where matchesAction(${mixed}))`), [[1]]);
  // The action is read as it is now: a changed step changes the answer (the cache key holds the steps).
  const blocking = async () => (await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query: `select count() from events where matchesAction(${chrome})` } })).body.results;
  assert.equal(await blocking(), [[2]]);
  const changed = await api('PATCH', `/api/projects/${t.projectId}/actions/${chrome}/`, t.personalKey, { steps: [{ event: '$pageview', properties: [{ key: '$browser', value: 'Safari', operator: 'exact', type: 'event' }] }] });
  assert.is(changed.status, 200, JSON.stringify(changed.body));
  assert.equal(await blocking(), [[1]]);
  await api('PATCH', `/api/projects/${t.projectId}/actions/${chrome}/`, t.personalKey, { steps: [{ event: '$pageview', properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] }] });

  // Another project's action is not this project's: refused naming it, as an unknown name or a deleted action.
  const admin = t.server.tenancy.users()[0];
  const other = await t.server.tenancy.createProject(admin.organization_id, 'Actions elsewhere') as { id: number };
  const foreign = await action(other.id, { name: 'Elsewhere', steps: [{ event: '$pageview' }] });
  await refused(`select count() from events where matchesAction(${foreign})`, new RegExp(`Action ${foreign} does not exist in this project`));
  await refused("select count() from events where matchesAction('Elsewhere')", /No action named 'Elsewhere' exists in this project/);
  await refused("select count() from events where matchesAction('x'' or 1=1 --')", /No action named 'x' or 1=1 --' exists/);
  await refused('select count() from events where matchesAction(event)', /matchesAction takes one constant argument/);
  await refused(`select matchesAction(${chrome}) from persons`, /matchesAction reads an event/);
  const gone = await action(t.projectId, { name: 'Deleted soon', steps: [{ event: 'purchase' }] });
  assert.is((await api('PATCH', `/api/projects/${t.projectId}/actions/${gone}/`, t.personalKey, { deleted: true })).status, 200);
  await refused(`select count() from events where matchesAction(${gone})`, new RegExp(`Action ${gone} does not exist`));

  // In the insights: a hogql property filter, math and breakdown, and EventsQuery's where.
  const insight = async (query: Record<string, unknown>) => {
    const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query, refresh: 'force_blocking' });
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const days = { dateRange: { date_from: '2024-06-01', date_to: '2024-06-03' }, interval: 'day' };
  const filtered = await insight({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: null, properties: [{ type: 'hogql', key: `matchesAction(${mixed})` }] }] });
  assert.equal(filtered.results[0].data, [1, 0, 1]);
  const math = await insight({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: null, math: 'hogql', math_hogql: "countIf(matchesAction('Chrome views'))" }] });
  assert.equal(math.results[0].data, [1, 1, 0]);
  // Actions whose steps read person properties, in math_hogql: the person as the query finds it
  // (user-1, plan pro: anon-1's pageview and the identify on June 1st, a pageview, a purchase).
  const proPeople = await action(t.projectId, { name: 'Pro people', steps: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }] }] });
  const personMath = await insight({ kind: 'TrendsQuery', ...days, series: [
    { kind: 'EventsNode', event: null, math: 'hogql', math_hogql: `countIf(matchesAction(${mixed}))` },
    { kind: 'EventsNode', event: null, math: 'hogql', math_hogql: `countIf(matchesAction('Pro people')) * 10 + countIf(not matchesAction(${proPeople}))` },
  ] });
  assert.equal(personMath.results[0].data, [1, 0, 1]);
  assert.equal(personMath.results[1].data, [20, 11, 11]);
  const personText = await hogql(personMath.hogql);
  assert.is(personText.status, 200, `${personMath.hogql}: ${JSON.stringify(personText.body)}`);
  assert.equal((personText.body.results as unknown[][]).map((r) => r[0]), [1, 0, 1, 20, 11, 11], personMath.hogql);
  const personSplit = await insight({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: `countIf(matchesAction(${proPeople}))` }], breakdownFilter: { breakdown: '$browser' } });
  assert.equal(personSplit.results.map((i: { breakdown_value: string; data: number[] }) => [i.breakdown_value, i.data]), [['Chrome', [1, 1, 0]], ['Safari', [0, 0, 0]]]);
  const split = await insight({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: null }], breakdownFilter: { breakdown_type: 'hogql', breakdown: `if(matchesAction(${mixed}), 'yes', 'no')` } });
  assert.equal(split.results.map((i: { breakdown_value: string; count: number }) => [i.breakdown_value, i.count]).sort(), [['no', 4], ['yes', 2]]);
  const funnel = await insight({ kind: 'FunnelsQuery', dateRange: days.dateRange, series: [{ kind: 'EventsNode', event: '$pageview', properties: [{ type: 'hogql', key: `matchesAction(${chrome})` }] }, { kind: 'EventsNode', event: 'purchase' }] });
  assert.equal(funnel.results.map((s: { count: number }) => s.count), [1, 1]);
  // An action series' hogql says matchesAction, and gives the same numbers run as a HogQLQuery.
  const actionFunnel = await insight({ kind: 'FunnelsQuery', dateRange: days.dateRange, series: [{ kind: 'ActionsNode', id: chrome }, { kind: 'ActionsNode', id: mixed }] });
  assert.equal(actionFunnel.results.map((s: { count: number }) => s.count), [1, 1]);
  assert.match(actionFunnel.hogql, new RegExp(`matchesAction\\(${mixed}\\)`));
  const fromText = await hogql(actionFunnel.hogql);
  assert.equal((fromText.body.results as unknown[][]).map((row) => row.slice(0, 2)), [[1, 1]], actionFunnel.hogql);
  const actionTrends = await insight({ kind: 'TrendsQuery', ...days, series: [{ kind: 'ActionsNode', id: mixed }] });
  assert.equal(actionTrends.results[0].data, [1, 0, 1]);
  const trendsText = await hogql(actionTrends.hogql);
  assert.equal((trendsText.body.results as unknown[][]).map((r) => [String(r[1]).slice(0, 10), r[0]]), [['2024-06-01', 1], ['2024-06-03', 1]], actionTrends.hogql);
  const events = await insight({ kind: 'EventsQuery', after: 'all', select: ['distinct_id', `matchesAction(${chrome})`], where: [`matchesAction('it\\'s \\\\ mixed')`], orderBy: ['timestamp ASC'] });
  assert.equal(events.results, [['anon-1', true], ['user-1', false]]);
  const wrong = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: null, math: 'hogql', math_hogql: `countIf(matchesAction(${foreign}))` }] }, refresh: 'force_blocking' });
  assert.is(wrong.status, 400, JSON.stringify(wrong.body));
  assert.is(wrong.body.attr, 'series.0.math_hogql');
  assert.match(wrong.body.detail, new RegExp(`Action ${foreign} does not exist in this project`));
});

h('HogQL in the background: async, poll, cancel as the other kinds', async () => {
  const start = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query: "select count() from events where event = 'purchase'" }, refresh: 'force_async' });
  assert.is(start.status, 202, JSON.stringify(start.body));
  const id = start.body.query_status.id;
  const done = await eventually(async () => {
    const poll = await api('GET', `/api/environments/${t.projectId}/query/${id}/`, t.personalKey);
    return poll.status === 200 && poll.body.query_status.complete ? poll.body : null;
  });
  assert.equal(done.query_status.results.results, [[2]]);
  const again = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query: 'select count() from events e1 cross join events e2 cross join events e3' }, refresh: 'force_async' });
  assert.is(again.status, 202);
  assert.is((await api('DELETE', `/api/environments/${t.projectId}/query/${again.body.query_status.id}/`, t.personalKey)).status, 204);
});

h('cohorts in HogQL: IN COHORT by id or name, inCohort/notInCohort, the cohort_people table', async () => {
  const cohort = async (body: Record<string, unknown>) => {
    const r = await api('POST', `/api/projects/${t.projectId}/cohorts/`, t.personalKey, body);
    assert.is(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  };
  const pro = await cohort({ name: 'Pro', filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', operator: 'exact', value: 'pro' }] } } });
  const bigBuyers = await cohort({ name: 'Big buyers', filters: { properties: { type: 'AND', values: [{
    type: 'behavioral', key: 'purchase', value: 'performed_event', event_type: 'events', explicit_datetime: '2024-06-01',
    event_filters: [{ key: 'price', operator: 'gt', value: 10, type: 'event' }],
  }] } } });
  const two = await cohort({ name: 'Static two', is_static: true, distinct_ids: ['user-2'] });
  assert.equal(await rows(`select count() from persons where id in cohort ${pro}`), [[1]]);
  assert.equal(await rows("select properties.email from persons where id in cohort 'Pro'"), [['one@example.com']]);
  assert.equal(await rows(`select distinct_id from events where event = 'purchase' and inCohort(${bigBuyers})`), [['user-2']]);
  assert.equal(await rows(`select distinct_id from events where event = 'purchase' and notInCohort(${pro})`), [['user-2']]);
  assert.equal(await rows("select distinct_id from events where event = 'purchase' and person_id not in cohort 'Static two'"), [['user-1']]);
  assert.equal(await rows('select cohort_id, count() from cohort_people group by cohort_id order by cohort_id'), [[pro, 1], [bigBuyers, 1], [two, 1]]);
  assert.equal(await rows(`select person.properties.email from cohort_people where cohort_id = ${pro}`), [['one@example.com']]);
  assert.equal(await rows(`select count() from cohort_people c join persons p on p.id = c.person_id where c.cohort_id = ${two}`), [[1]]);
  await refused('select count() from persons where id in cohort 999999', /Could not find a cohort with the id 999999/);
  await refused("select count() from events where inCohort('nobody')", /Could not find a cohort with the name "nobody"/);
});

h('cohorts in EventsQuery and insight expressions: inCohort, notInCohort, IN COHORT on behavioural and static cohorts', async () => {
  const cohort = async (projectId: number, body: Record<string, unknown>) => {
    const r = await api('POST', `/api/projects/${projectId}/cohorts/`, t.personalKey, body);
    assert.is(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  };
  const query = (q: Record<string, unknown>) => api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: q, refresh: 'force_blocking' });
  const ok = async (q: Record<string, unknown>) => {
    const r = await query(q);
    assert.is(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  // Behavioural: a purchase over 10 since June 1st (user-2's, 30). Static: anon-1, so user-1's person.
  const buyers = await cohort(t.projectId, { name: 'Buyers over 10', filters: { properties: { type: 'AND', values: [{
    type: 'behavioral', key: 'purchase', value: 'performed_event', event_type: 'events', explicit_datetime: '2024-06-01',
    event_filters: [{ key: 'price', operator: 'gt', value: 10, type: 'event' }],
  }] } } });
  const one = await cohort(t.projectId, { name: 'Static anon one', is_static: true, distinct_ids: ['anon-1'] });
  const events = (extra: Record<string, unknown>) => ok({ kind: 'EventsQuery', after: 'all', ...extra });
  // user-2's events: a pageview and a purchase.
  assert.equal((await events({ select: ['event', 'count()'], where: [`inCohort(${buyers})`], orderBy: ['event'] })).results, [['$pageview', 1], ['purchase', 1]]);
  assert.equal((await events({ select: ['distinct_id', `notInCohort(${one})`, `person_id in cohort ${buyers}`, "person_id not in cohort 'Static anon one'"], where: ["event = 'purchase'"], orderBy: ['timestamp ASC'] })).results,
    [['user-2', true, true, true], ['user-1', false, false, false]]);
  // user-1's four events (anon-1's pageview, the identify, a pageview, a purchase), through a hogql property filter.
  assert.equal((await events({ select: ['count()'], properties: [{ type: 'hogql', key: `inCohort(${one})` }] })).results, [[4]]);
  // Ordered by membership first: user-2's pageview before user-1's earlier ones.
  assert.equal((await events({ select: ['distinct_id'], where: ["event = '$pageview'"], orderBy: [`notInCohort(${one}) desc`, 'timestamp asc'] })).results, [['user-2'], ['anon-1'], ['user-1']]);

  const days = { dateRange: { date_from: '2024-06-01', date_to: '2024-06-03' }, interval: 'day' };
  // user-1's pageviews: June 1st (as anon-1) and 2nd; its hogql run as a HogQLQuery gives the same.
  const filtered = await ok({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: '$pageview', properties: [{ type: 'hogql', key: `inCohort(${one})` }] }] });
  assert.equal(filtered.results[0].data, [1, 1, 0]);
  const text = await hogql(filtered.hogql);
  assert.is(text.status, 200, `${filtered.hogql}: ${JSON.stringify(text.body)}`);
  assert.equal((text.body.results as unknown[][]).map((r) => [String(r[1]).slice(0, 10), r[0]]), [['2024-06-01', 1], ['2024-06-02', 1]], filtered.hogql);
  const behavioural = await ok({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: null, properties: [{ type: 'hogql', key: `not inCohort(${buyers})` }] }] });
  assert.equal(behavioural.results[0].data, [2, 1, 1]);
  // Math: user-2's events per day; a breakdown by membership.
  const math = await ok({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: null, math: 'hogql', math_hogql: `countIf(inCohort(${buyers}))` }] });
  assert.equal(math.results[0].data, [0, 1, 1]);
  const split = await ok({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown_type: 'hogql', breakdown: `if(person_id in cohort ${one}, 'static', 'other')` } });
  assert.equal(split.results.map((i: { breakdown_value: string; count: number }) => [i.breakdown_value, i.count]).sort(), [['other', 1], ['static', 2]]);

  // Cohort property filters are written into the insights' hogql as IN COHORT, and agree.
  const byCohort = await ok({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: '$pageview' }], properties: [{ type: 'cohort', key: 'id', value: one }] });
  assert.equal(byCohort.results[0].data, [1, 1, 0]);
  assert.match(byCohort.hogql, new RegExp(`person_id IN COHORT ${one}`));
  const cohortText = await hogql(byCohort.hogql);
  assert.equal((cohortText.body.results as unknown[][]).map((r) => [String(r[1]).slice(0, 10), r[0]]), [['2024-06-01', 1], ['2024-06-02', 1]], byCohort.hogql);
  const notBuyers = await ok({ kind: 'FunnelsQuery', dateRange: days.dateRange, series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'purchase' }], properties: [{ type: 'cohort', key: 'id', value: buyers, operator: 'not_in' }] });
  assert.equal(notBuyers.results.map((s: { count: number }) => s.count), [1, 1]);
  const funnelText = await hogql(notBuyers.hogql);
  assert.equal((funnelText.body.results as unknown[][]).map((row) => row.slice(0, 2)), [[1, 1]], notBuyers.hogql);

  // Another project's cohort is not this project's: a 400 naming the field.
  const admin = t.server.tenancy.users()[0];
  const other = await t.server.tenancy.createProject(admin.organization_id, 'Cohorts elsewhere') as { id: number };
  const foreign = await cohort(other.id, { name: 'Elsewhere', is_static: true, distinct_ids: ['user-1'] });
  const wrongEvents = await query({ kind: 'EventsQuery', after: 'all', select: ['count()'], where: [`inCohort(${foreign})`] });
  assert.is(wrongEvents.status, 400, JSON.stringify(wrongEvents.body));
  assert.is(wrongEvents.body.attr, 'where.0');
  assert.match(wrongEvents.body.detail, new RegExp(`Could not find a cohort with the id ${foreign}`));
  const wrongTrend = await query({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: null, properties: [{ type: 'hogql', key: `inCohort(${foreign})` }] }] });
  assert.is(wrongTrend.status, 400, JSON.stringify(wrongTrend.body));
  assert.match(wrongTrend.body.detail, new RegExp(`Could not find a cohort with the id ${foreign}`));
  const wrongName = await query({ kind: 'TrendsQuery', ...days, series: [{ kind: 'EventsNode', event: null, math: 'hogql', math_hogql: "countIf(person_id in cohort 'Elsewhere')" }] });
  assert.is(wrongName.status, 400, JSON.stringify(wrongName.body));
  assert.is(wrongName.body.attr, 'series.0.math_hogql');
});

h('cohorts calculated (count, last_calculation, errors) and their members listed, paged and exported as CSV', async () => {
  const create = async (body: Record<string, unknown>) => {
    const r = await api('POST', `/api/projects/${t.projectId}/cohorts/`, t.personalKey, body);
    assert.is(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  const buyers = await create({ name: 'Buyers', filters: { properties: { type: 'AND', values: [
    { type: 'behavioral', key: 'purchase', value: 'performed_event', event_type: 'events' },
  ] } } });
  // Calculated once created: PostHog's fields say so until it is done.
  assert.is(buyers.is_calculating, true);
  assert.is(buyers.count, null);
  const unsupported = await create({ name: 'Regulars', filters: { properties: { type: 'AND', values: [
    { type: 'behavioral', key: '$pageview', value: 'performed_event_regularly', event_type: 'events', time_value: 1, time_interval: 'day', total_periods: 3, min_periods: 2 },
  ] } } });
  const settled = (id: number) => eventually(async () => {
    const r = await api('GET', `/api/projects/${t.projectId}/cohorts/${id}/`, t.personalKey);
    return r.body.is_calculating === false ? r.body : null;
  });
  const done = await settled(buyers.id);
  assert.is(done.count, 2);
  assert.is(done.errors_calculating, 0);
  assert.ok(Date.parse(done.last_calculation) >= Date.parse(buyers.created_at));
  const failed = await settled(unsupported.id);
  assert.is(failed.count, null);
  assert.is(failed.errors_calculating, 1);
  assert.is(failed.last_calculation, null);
  // New filters: calculated again.
  const changed = await api('PATCH', `/api/projects/${t.projectId}/cohorts/${buyers.id}/`, t.personalKey, { filters: { properties: { type: 'AND', values: [
    { type: 'behavioral', key: 'purchase', value: 'performed_event', event_type: 'events', event_filters: [{ key: 'price', operator: 'gt', value: 10, type: 'event' }] },
  ] } } });
  assert.is(changed.body.is_calculating, true);
  assert.is((await settled(buyers.id)).count, 1);

  // Members: both buyers before the change; now the one who spent more than 10.
  const all = await create({ name: 'Everyone who bought', filters: { properties: { type: 'AND', values: [
    { type: 'behavioral', key: 'purchase', value: 'performed_event', event_type: 'events' },
  ] } } });
  const page = await api('GET', `/api/projects/${t.projectId}/cohorts/${all.id}/persons/?limit=1`, t.personalKey);
  assert.is(page.status, 200, JSON.stringify(page.body));
  assert.is(page.body.results.length, 1);
  assert.match(page.body.next, /offset=1/);
  assert.is(page.body.previous, null);
  const second = await api('GET', `/api/projects/${t.projectId}/cohorts/${all.id}/persons/?limit=1&offset=1`, t.personalKey);
  assert.is(second.body.results.length, 1);
  assert.is(second.body.next, null);
  const ids = [...page.body.results, ...second.body.results].flatMap((p: { distinct_ids: string[] }) => p.distinct_ids.filter((d) => d.startsWith('user-'))).sort();
  assert.equal(ids, ['user-1', 'user-2']);
  const first = page.body.results[0];
  for (const field of ['id', 'uuid', 'name', 'distinct_ids', 'properties', 'created_at', 'is_identified']) assert.ok(field in first, field);
  const big = await api('GET', `/api/projects/${t.projectId}/cohorts/${buyers.id}/persons/`, t.personalKey);
  assert.equal(big.body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids), [['user-2']]);

  const csv = await fetch(`${t.url}/api/projects/${t.projectId}/cohorts/${all.id}/persons/?format=csv`, { headers: { authorization: `Bearer ${t.personalKey}` } });
  assert.is(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  const lines = (await csv.text()).trim().split('\r\n');
  const header = lines[0].split(',');
  for (const column of ['id', 'uuid', 'name', 'distinct_ids.0', 'properties.email', 'created_at']) assert.ok(header.includes(column), `${column} in ${lines[0]}`);
  assert.is(lines.length, 3);
  assert.ok(lines.some((l) => l.includes('one@example.com')));
  assert.is((await api('GET', `/api/projects/${t.projectId}/cohorts/999999/persons/`, t.personalKey)).status, 404);

  // A static cohort uploaded as CSV naming persons by email or by person UUID: each person's distinct ids join.
  const upload = async (csv: string) => {
    const form = new FormData();
    form.append('name', 'Uploaded');
    form.append('is_static', 'true');
    form.append('csv', new Blob([csv], { type: 'text/csv' }), 'people.csv');
    const r = await fetch(`${t.url}/api/projects/${t.projectId}/cohorts/`, { method: 'POST', body: form, headers: { authorization: `Bearer ${t.personalKey}` } });
    const body = (await r.json()) as { id: number; count: number };
    assert.is(r.status, 201, JSON.stringify(body));
    return body;
  };
  const byEmail = await upload('Email\none@example.com\nnobody@example.com\n');
  assert.is(byEmail.count, 2);
  assert.equal(await rows(`select properties.email from persons where id in cohort ${byEmail.id}`), [['one@example.com']]);
  const [[user2]] = await rows("select person_id from events where distinct_id = 'user-2' limit 1") as [[string]];
  const byPerson = await upload(`person_id\n${user2}\n`);
  assert.is(byPerson.count, 1);
  assert.equal(await rows(`select distinct distinct_id from events where person_id in cohort ${byPerson.id}`), [['user-2']]);
});

h('an instant compared with text reads the text as a time; text that is no time is refused, as ClickHouse refuses it', async () => {
  const [[after]] = await rows("select count() from events where timestamp > '2024-06-02 00:00:00'");
  const [[counted]] = await rows("select countIf(toDate(timestamp) >= toDate('2024-06-02')) from events");
  assert.ok(Number(after) > 0);
  assert.is(after, counted);
  // A property no event has is NULL: no row compares true, nothing to refuse.
  assert.equal(await rows('select count() from events where timestamp > properties.not_a_property'), [[0]]);
  // Not an empty answer: ClickHouse fails such a comparison ("Cannot convert string"), and so does this.
  await refused('select count() from events where timestamp > properties.$browser', /could not be run: .*Chrome/);
  await refused("select count() from events where timestamp < 'the day before'", /could not be run: .*the day before/);
});

h.run();
