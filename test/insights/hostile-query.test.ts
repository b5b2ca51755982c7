// Hostile queries through the real server (issue 27): every one answers a 400 naming the
// offending part, or the right answer; none a 5xx. Property names are data (`constructor`,
// `toString`, `__proto__` filter, select and break down like any other name), unknown
// kinds are unknown, trailing text is refused everywhere, DuckDB's errors are the query's,
// and a source nested to stall the parser is refused before it gets there. The liveness
// probe answers throughout.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { eventually, postJson, startTestServer, type TestServer } from '../helpers/server.js';
import { assertServedThroughout, watchServer, type Watch } from '../helpers/server-watch.js';

const s = suite('hostile queries');
let t: TestServer;
let api: ApiCall;
let watch: Watch;
const statuses: number[] = [];

const query = async (q: Record<string, unknown>) => {
  const res = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: q, refresh: 'force_blocking' });
  statuses.push(res.status);
  return res;
};
const events = (extra: Record<string, unknown>) => query({ kind: 'EventsQuery', select: ['event'], ...extra });
const count = (properties: unknown[], breakdownFilter?: unknown) => query({
  kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'probe' }], dateRange: { date_from: '-1d' }, properties, trendsFilter: { display: 'BoldNumber' },
  ...(breakdownFilter ? { breakdownFilter } : {}),
});
const total = (res: { body: { results: { aggregated_value?: number; count?: number }[] } }) =>
  res.body.results.reduce((sum, r) => sum + (r.aggregated_value ?? r.count ?? 0), 0);

function refused(res: { status: number; body: { type: string; attr: string | null; detail: string } }, attr: string | null, detail: RegExp) {
  assert.is(res.status, 400, JSON.stringify(res.body));
  assert.is(res.body.type, 'validation_error');
  assert.is(res.body.attr, attr);
  assert.match(res.body.detail, detail);
}

s.before(async () => {
  t = await startTestServer();
  api = apiClient(t);
  watch = watchServer(t.url, process.pid);
  const named = { constructor: 'c1', toString: 't1', hasOwnProperty: 'h1', valueOf: 'v1', plan: 'pro' };
  const batch = [
    ...[1, 2, 3].map((n) => ({ uuid: randomUUID(), event: 'probe', distinct_id: `u${n}`, properties: named })),
    ...[4, 5].map((n) => ({ uuid: randomUUID(), event: 'probe', distinct_id: `u${n}`, properties: { plan: 'free' } })),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await eventually(async () => total(await count([])) === 5);
});
s.after(async () => { await t?.close(); });

s('properties named constructor, toString, hasOwnProperty and __proto__ select, filter and break down as data', async () => {
  const selected = await events({ select: ['properties.constructor', 'properties.toString', 'properties.hasOwnProperty', 'properties.__proto__'], where: ["properties.constructor = 'c1'"] });
  assert.is(selected.status, 200, JSON.stringify(selected.body));
  assert.equal(selected.body.results, [['c1', 't1', 'h1', null], ['c1', 't1', 'h1', null], ['c1', 't1', 'h1', null]]);
  for (const [key, value] of [['constructor', 'c1'], ['toString', 't1'], ['hasOwnProperty', 'h1'], ['valueOf', 'v1']]) {
    assert.is(total(await count([{ key, value, operator: 'exact', type: 'event' }])), 3, key);
    assert.is(total(await count([{ key, operator: 'is_not_set', type: 'event' }])), 2, key);
  }
  assert.is(total(await count([{ key: '__proto__', value: 'x', operator: 'exact', type: 'event' }])), 0);
  assert.is(total(await count([{ key: '__proto__', operator: 'is_not_set', type: 'event' }])), 5);
  const broken = await count([], { breakdown: 'constructor', breakdown_type: 'event' });
  assert.is(broken.status, 200);
  assert.equal(broken.body.results.map((r: { breakdown_value: string }) => r.breakdown_value).sort(), ['$$_posthog_breakdown_null_$$', 'c1']);
  assert.is((await count([], { breakdown: '__proto__', breakdown_type: 'event' })).status, 200);
});

s('an unknown query kind is a 400, whatever it is named', async () => {
  for (const kind of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'SessionsTimelineQuery']) {
    refused(await query({ kind }), 'kind', /^Unsupported query kind/);
  }
});

s('trailing text is refused in orderBy as in select and where', async () => {
  const hostile = 'timestamp; DROP TABLE events';
  refused(await events({ where: [hostile] }), 'where.0', /^Invalid HogQL "timestamp; DROP TABLE events": mismatched input ';' expecting <EOF>/);
  refused(await events({ select: [hostile] }), 'select.0', /^Invalid HogQL/);
  refused(await events({ orderBy: [hostile] }), 'orderBy.0', /^Invalid HogQL "timestamp; DROP TABLE events": mismatched input ';' expecting <EOF>$/);
  refused(await events({ orderBy: ['timestamp DESC, event'] }), 'orderBy.0', /mismatched input ','/);
  const fine = await events({ orderBy: ['timestamp DESC -- newest first'] });
  assert.is(fine.status, 200);
  assert.is(fine.body.results.length, 5);
});

s('DuckDB\'s errors are the query\'s: an aggregate ordered by a plain column, a non-UUID personId, an aggregate in where, a bad regex', async () => {
  refused(await events({ select: ['event', 'count()'], orderBy: ['timestamp'] }), 'orderBy.0', /^timestamp is not under an aggregate function and not in the GROUP BY keys/);
  const grouped = await events({ select: ['event', 'count()'], orderBy: ['count() DESC', 'event'] });
  assert.is(grouped.status, 200);
  assert.equal(grouped.body.results, [['probe', 5]]);
  refused(await events({ personId: 'not-a-uuid' }), 'personId', /^Must be a valid UUID\.$/);
  refused(await events({ where: ['count() > 1'] }), 'where.0', /^Aggregations are not allowed in where/);
  refused(await events({ where: ["properties.plan =~ '('"] }), null, /^The query could not be run: missing \)/);
});

s('a formula nested or long enough to overflow a recursive parser is a 400', async () => {
  const formula = (f: string) => query({
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'probe' }, { kind: 'EventsNode', event: 'probe' }], trendsFilter: { formula: f },
  });
  refused(await formula(`${'('.repeat(400)}A${')'.repeat(400)}`), 'trendsFilter.formula', /at most 32 levels deep/);
  refused(await formula(`${'-'.repeat(400)}A`), 'trendsFilter.formula', /at most 32 levels deep/);
  refused(await formula(`${'('.repeat(100_000)}A${')'.repeat(100_000)}`), 'trendsFilter.formula', /at most 1000 numbers, series and operators/);
  refused(await formula(`${'A+'.repeat(100_000)}B`), 'trendsFilter.formula', /at most 1000 numbers, series and operators/);
  const fine = await formula('(A + B) / 2');
  assert.is(fine.status, 200);
});

s('a select nested 350 levels is refused before the parser, naming the limit; another project\'s count is answered', async () => {
  const deep = '('.repeat(350) + '1' + ')'.repeat(350);
  refused(await events({ select: [deep] }), 'select.0', /^The HogQL of select\.0 nests parentheses, brackets and braces 350 levels deep; at most 32 are accepted\.$/);
  refused(await events({ where: [`${'('.repeat(33)}1${')'.repeat(33)} = 1`] }), 'where.0', /33 levels deep/);
  const other = await api('POST', '/api/projects/', t.personalKey, { name: 'other' });
  const theirs = await api('POST', `/api/environments/${other.body.id}/query/`, t.personalKey, {
    query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'probe' }] }, refresh: 'force_blocking',
  });
  statuses.push(theirs.status);
  assert.is(theirs.status, 200);
});

s('throughout, the liveness probe answered every time it asked and no answer was a 5xx', () => assertServedThroughout(watch, statuses));

s.run();
