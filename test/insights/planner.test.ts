// The planner's pure parts: SQL rendering with bound parameters, date ranges as PostHog
// reads them, zone offsets across DST, formulas, query validation, staging helpers.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timeRanges, wellFormedJson, stageEvents } from '../../src/insights/columnar/stage.js';
import { bucketId, resolveRange, type TimeContext } from '../../src/insights/planner/dates.js';
import { QueryError } from '../../src/insights/planner/errors.js';
import { applyFormula, parseFormula } from '../../src/insights/planner/formula.js';
import { pointer } from '../../src/insights/planner/properties.js';
import { ident, render, sql } from '../../src/insights/planner/sql.js';
import { parseQuery } from '../../src/insights/schemas.js';
import { offsetSegments } from '../../src/time/zone.js';

const ctx = (now: string, zone = 'UTC', weekStart: 0 | 1 = 0): TimeContext => ({ zone, weekStart, nowMs: Date.parse(now), firstEventMs: null });
const local = (iso: string) => Date.parse(`${iso}Z`);

const p = suite('insights: planner');

p('values are parameters, fragments nest, identifiers come from an allow-list', () => {
  const inner = sql`x = ${"it's"}`;
  const r = render(sql`SELECT ${ident('browser')} FROM t WHERE ${inner} AND n > ${2} AND f < ${1.5}`);
  assert.is(r.text, 'SELECT browser FROM t WHERE x = $1 AND n > $2 AND f < $3');
  assert.equal(r.params, [{ kind: 'text', value: "it's" }, { kind: 'int', value: 2 }, { kind: 'float', value: 1.5 }]);
  assert.throws(() => ident('x; DROP'));
});

p('property names become JSON pointers', () => {
  assert.is(pointer('$browser'), '/$browser');
  assert.is(pointer('a/b~c'), '/a~1b~0c');
  assert.is(pointer(''), '/');
});

p('relative ranges: -7d, mStart, yStart, -1m (calendar) start their day, -24h its hour; date_to rounds up to its day', () => {
  const now = ctx('2024-03-31T15:20:00Z');
  const r = resolveRange({ date_from: '-7d' }, 'day', now);
  assert.is(r.fromLocal, local('2024-03-24T00:00:00'));
  assert.is(r.toLocal, local('2024-03-31T23:59:59.999'));
  assert.is(r.fromUs, local('2024-03-24T00:00:00') * 1000);
  assert.is(r.toUs, local('2024-04-01T00:00:00') * 1000);
  assert.is(resolveRange({ date_from: 'mStart' }, 'day', now).fromLocal, local('2024-03-01T00:00:00'));
  assert.is(resolveRange({ date_from: 'yStart' }, 'day', now).fromLocal, local('2024-01-01T00:00:00'));
  assert.is(resolveRange({ date_from: '-1m' }, 'day', now).fromLocal, local('2024-02-29T00:00:00'));
  const hours = resolveRange({ date_from: '-24h' }, 'hour', now);
  assert.is(hours.fromUs, local('2024-03-30T15:00:00') * 1000);
  assert.is(hours.buckets.length, 25);
  assert.is(resolveRange({ date_from: '-2d', date_to: '-1d' }, 'day', now).toLocal, local('2024-03-30T23:59:59.999'));
  assert.is(resolveRange({}, 'day', now).fromLocal, local('2024-03-24T00:00:00'));
});

p('explicit dates keep their times; offsets are converted to the project zone', () => {
  const now = ctx('2024-06-15T12:00:00Z', 'America/New_York');
  const r = resolveRange({ date_from: '2024-06-01T10:00:00Z', date_to: '2024-06-02T10:00:00', explicitDate: true }, 'hour', now);
  assert.is(r.fromLocal, local('2024-06-01T06:00:00'));
  assert.is(r.fromUs, Date.parse('2024-06-01T10:00:00Z') * 1000);
  assert.is(r.toLocal, local('2024-06-02T10:00:00'));
  assert.throws(() => resolveRange({ date_from: 'yesterday' }, 'day', now), (e: unknown) => e instanceof QueryError && e.attr === 'dateRange.date_from');
  assert.throws(() => resolveRange({ date_from: '2024-02-30' }, 'day', now), (e: unknown) => e instanceof QueryError);
});

p('zone offsets change at the DST instants, to the second', () => {
  const segments = offsetSegments('Europe/Paris', Date.parse('2024-03-01T00:00:00Z'), Date.parse('2024-11-30T00:00:00Z'));
  assert.equal(segments.slice(1).map((s) => [new Date(s.fromMs).toISOString(), s.offsetMs / 3600_000]), [
    ['2024-03-31T01:00:00.000Z', 2],
    ['2024-10-27T01:00:00.000Z', 1],
  ]);
  assert.is(segments[0].offsetMs, 3600_000);
  assert.equal(offsetSegments('UTC', 0, 1e12), [{ fromMs: -Infinity, offsetMs: 0 }]);
});

p('bucket ids: consecutive integers per interval, weeks on either start day', () => {
  assert.is(bucketId(local('1970-01-02T00:00:00'), 'day', 0), 1);
  // 1970-01-04 was a Sunday, 1970-01-05 a Monday.
  assert.is(bucketId(local('1970-01-04T00:00:00'), 'week', 0) + 1, bucketId(local('1970-01-11T00:00:00'), 'week', 0));
  assert.is(bucketId(local('1970-01-04T00:00:00'), 'week', 1), bucketId(local('1969-12-29T00:00:00'), 'week', 1));
  assert.is(bucketId(local('2024-12-01T00:00:00'), 'month', 0) + 1, bucketId(local('2025-01-01T00:00:00'), 'month', 0));
});

p('formulas: precedence, parentheses, unary minus, division by zero gives 0', () => {
  const f = parseFormula('A + B * 2 - -C / (A - 1)', 3);
  assert.equal(applyFormula(f, [[1, 3], [2, 4], [6, 6]]), [1 + 4 - 0, 3 + 8 + 3]);
  assert.equal(applyFormula(parseFormula('a % 0 + 1', 1), [[5]]), [1]);
  for (const bad of ['A +', 'A B', 'D', '(A', 'A; DROP', 'process.exit()']) {
    assert.throws(() => parseFormula(bad, 3), (e: unknown) => e instanceof QueryError, bad);
  }
});

p('queries: wrapped in InsightVizNode or bare, bad shapes named by field', () => {
  const trends = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x' }] };
  assert.is(parseQuery({ kind: 'InsightVizNode', source: trends }).kind, 'TrendsQuery');
  assert.throws(() => parseQuery({ kind: 'SessionsTimelineQuery', query: 'select 1' }), (e: unknown) => e instanceof QueryError && /Unsupported query kind/.test(e.message));
  assert.throws(() => parseQuery({ ...trends, interval: 'fortnight' }), (e: unknown) => e instanceof QueryError && e.attr === 'interval');
  assert.throws(() => parseQuery({ ...trends, series: [{ event: 'x', math: 'fortnightly_active' }] }), (e: unknown) => e instanceof QueryError && e.attr === 'series.0.math');
});

p('load staging: lone surrogates replaced, time ranges cut at the widest gaps', () => {
  assert.is(wellFormedJson(JSON.stringify('a\ud800b\\ud800')), '"a\\ufffdb\\\\ud800"');
  assert.ok(stageEvents([{ project_id: 1, uuid: 'u', event: 'e', distinct_id: 'd', person_id: 'p', timestamp: 't', properties: { x: '\udfff' } }])!.bytes.toString().includes('\\ufffd'));
  assert.equal(timeRanges([5, 1, 2, 100, 101, 1000], 3), [{ from: 1, to: 5 }, { from: 100, to: 101 }, { from: 1000, to: 1000 }]);
  assert.equal(timeRanges([3, 3, 3], 8), [{ from: 3, to: 3 }]);
  assert.equal(timeRanges([], 8), []);
});

p.run();
