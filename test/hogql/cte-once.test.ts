// A table CTE read several times is compiled once: a DuckDB WITH under a generated name that
// each read names (issue 28), its body still scoped to the project. Through /query/: the same
// answers as the query written with the body repeated; in the compiled SQL, the body once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { parseHogQLSelect } from '../../src/insights/hogql.js';
import { compileHogQL } from '../../src/insights/planner/hogql/compile.js';
import { render } from '../../src/insights/planner/sql.js';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const c = suite('hogql: a CTE compiled once');
let t: TestServer;
let api: ApiCall;

const rows = async (query: string) => {
  const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query }, refresh: 'force_blocking' });
  assert.is(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  return r.body.results as unknown[][];
};
const compiled = async (query: string) => render(compileHogQL(await parseHogQLSelect(query), query, { projectId: 7, timezone: 'UTC', weekStart: 0, values: {}, variables: {}, filters: null }).statement).text;
const count = (text: string, part: string) => text.split(part).length - 1;

c.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS });
  api = apiClient(t);
  const ev = (event: string, who: string, day: string) => ({ uuid: randomUUID(), event, distinct_id: who, timestamp: `2024-06-0${day}T10:00:00Z`, properties: {} });
  const batch = [ev('a', 'u1', '1'), ev('a', 'u1', '2'), ev('a', 'u2', '2'), ev('b', 'u2', '3'), ev('b', 'u3', '3'), ev('b', 'u3', '4'), ev('c', 'u3', '4')];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
});
c.after(async () => { await t?.close(); });

const BODY = 'select event, count() as n, uniq(distinct_id) as users from events group by event';
const THRICE = `with per as (${BODY}) select a.event, a.n, b.users, (select max(n) from per) as top from per a join per b on a.event = b.event order by a.event`;

c('a CTE read three times: the answers of its body written out at each read', async () => {
  const inlined = `select a.event, a.n, b.users, (select max(n) from (${BODY})) as top from (${BODY}) a join (${BODY}) b on a.event = b.event order by a.event`;
  const expected = [['a', 3, 2, 3], ['b', 3, 2, 3], ['c', 1, 1, 3]];
  assert.equal(await rows(THRICE), expected);
  assert.equal(await rows(inlined), expected);
});

c('its SQL holds the body once, under a WITH, still scoped to the project', async () => {
  const text = await compiled(THRICE);
  assert.is(count(text, 'FROM events'), 1, text);
  assert.is(count(text, 'count(DISTINCT'), 1, text);
  assert.match(text, /^WITH w\d+ AS \(SELECT .* FROM \(SELECT \* FROM events WHERE project = \$\d+\) AS t\d+ GROUP BY/);
  // A CTE read by another CTE and by the query: each body once, the one read first defined first.
  const chained = await compiled('with a as (select event from events), b as (select event from a where event = \'x\') select count() from a join b on a.event = b.event');
  assert.is(count(chained, 'FROM events'), 1, chained);
  assert.ok(chained.indexOf('AS (SELECT') < chained.indexOf(' FROM w'), chained);
  // A CTE no read reaches is not compiled; one defined in a subquery is that subquery's WITH.
  assert.is(count(await compiled('with unused as (select event from events) select 1'), 'events'), 0);
  const inner = await compiled('select (select count() from (with x as (select event from events) select * from x a join x b on a.event = b.event)) as n');
  assert.is(count(inner, 'FROM events'), 1, inner);
  assert.match(inner, /^SELECT \(SELECT .*\(WITH w\d+ AS/);
});

c('CTEs chained, shadowed and read from subqueries give the right rows', async () => {
  assert.equal(await rows("with a as (select event, distinct_id from events), b as (select event from a where distinct_id = 'u3') select event, count() from b group by event order by event"), [['b', 2], ['c', 1]]);
  // An inner CTE of the same name hides the outer one inside its SELECT only.
  assert.equal(await rows("with x as (select 1 as v) select (select v from (with x as (select 2 as v) select v from x)) as inner, (select v from x) as outer"), [[2, 1]]);
  assert.equal(await rows("with users as (select distinct distinct_id from events where event = 'b') select event, count() from events where distinct_id in (select distinct_id from users) and distinct_id not in (select distinct_id from users where distinct_id = 'u2') group by event order by event"), [['b', 2], ['c', 1]]);
  // A CTE read in both sides of a UNION ALL.
  assert.equal(await rows("with e as (select event from events where event != 'a') select count() from (select event from e union all select event from e)"), [[8]]);
});

c.run();
