// HogQL's numbers(n) and numbers(offset, n) (ClickHouse's table of integers in a column
// `number`, which PostHog's trends use for the days of a range), through /query/ as a
// HogQLQuery: its rows, its use as a subquery joined to events, arguments that are
// expressions but read no table, and its bound.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const n = suite('hogql: numbers()');
let t: TestServer;
let api: ApiCall;

const hogql = (query: string) =>
  api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query }, refresh: 'force_blocking' });
const rows = async (query: string) => {
  const r = await hogql(query);
  assert.is(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  return r.body;
};
const refused = async (query: string, detail: RegExp) => {
  const r = await hogql(query);
  assert.is(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
  assert.match(r.body.detail, detail);
};

n.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS });
  api = apiClient(t);
  const batch = ['2024-06-01T10:00:00Z', '2024-06-03T10:00:00Z', '2024-06-03T11:00:00Z'].map((timestamp) => ({ uuid: randomUUID(), event: 'e', distinct_id: 'd', timestamp, properties: {} }));
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
});
n.after(async () => { await t?.close(); });

n('numbers(n): 0 to n-1 in a column named number, typed UInt64', async () => {
  const body = await rows('select number from numbers(4) order by number');
  assert.equal(body.results, [[0], [1], [2], [3]]);
  assert.equal(body.columns, ['number']);
  assert.equal(body.types, [['number', 'UInt64']]);
  assert.equal((await rows('select * from numbers(2)')).results.map((r: number[]) => r[0]).sort(), [0, 1]);
  assert.equal((await rows('select count() from numbers(0)')).results, [[0]]);
});

n('numbers(offset, n): n integers from offset; aliased, filtered and aggregated', async () => {
  assert.equal((await rows('select n.number * 2 from numbers(5, 3) n order by 1')).results, [[10], [12], [14]]);
  assert.equal((await rows('select sum(number) from numbers(1, 10) where number % 2 = 0')).results, [[30]]);
});

n('arguments are expressions over constants: the days of a range, crossed with the events', async () => {
  const days = await rows("select addDays(toDate('2024-06-01'), number) as day from numbers(dateDiff('day', toDate('2024-06-01'), toDate('2024-06-04')))  order by day");
  assert.equal(days.results, [['2024-06-01'], ['2024-06-02'], ['2024-06-03']]);
  const perDay = await rows("select d.day, countIf(toDate(e.timestamp) = d.day) from events e cross join (select addDays(toDate('2024-06-01'), number) as day from numbers(3)) d group by d.day order by d.day");
  assert.equal(perDay.results, [['2024-06-01', 1], ['2024-06-02', 0], ['2024-06-03', 2]]);
});

n('an argument reads no table, is a number, aggregates nothing; past a million rows is refused', async () => {
  await refused('select number from events e cross join numbers(e.timestamp) x', /Unable to resolve field/);
  await refused("select number from numbers('a')", /numbers\(\) takes integers/);
  await refused('select number from numbers(count())', /numbers\(\) takes integers/);
  await refused('select number from numbers(2000000)', /numbers\(\) is limited to 1000000 rows/);
  await refused('select number from numbers', /Unknown table "numbers"/);
});

n.run();
