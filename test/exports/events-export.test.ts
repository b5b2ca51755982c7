// Exports of events (export_context.source an EventsQuery) against the real server: up to
// the export row limit, read a page at a time (a small limit and page here so several pages
// and the cut are exercised), the file cut at the limit saying so in its last CSV line and
// in the asset's export_context; the query's own smaller limit honoured.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { startTestServer, NO_DESTINATIONS, postJson, type TestServer } from '../helpers/server.js';
import { parseCsv } from '../helpers/csv.js';
import { sheetRows } from '../helpers/sheet.js';
import { unzip } from '../helpers/unzip.js';
import { cutNote } from '../../src/exports/assets/events-export.js';
import { content, day } from './helpers.js';

const s = suite('exports: exports of events, up to the row limit');
let t: TestServer;
let api: ApiCall;
const env = () => `/api/environments/${t.projectId}`;
const ROW_LIMIT = 25;
const EVENTS = 40;

s.before(async () => {
  t = await startTestServer({
    env: { HEDGEROW_EXPORT_SYNC_MS: '120000', HEDGEROW_EXPORT_ROW_LIMIT: String(ROW_LIMIT), HEDGEROW_EXPORT_PAGE_ROWS: '7' },
    consumers: NO_DESTINATIONS,
  });
  api = apiClient(t);
  // Pairs of events with the same timestamp: pages must not repeat or skip either of a pair.
  const batch = Array.from({ length: EVENTS }, (_, i) => ({
    uuid: randomUUID(), event: 'clicked', distinct_id: `user-${i % 4}`, timestamp: day(-1, 1 + Math.floor(i / 2)), properties: { n: i },
  }));
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
});

s.after(async () => {
  await t.close();
});

const source = { kind: 'EventsQuery', select: ['event', 'properties.n'], event: 'clicked', after: '-7d' };

async function exported(format: string, query: Record<string, unknown>) {
  const r = await api('POST', `${env()}/exports/`, t.personalKey, { export_format: format, export_context: { source: query } });
  assert.is(r.status, 201, JSON.stringify(r.body));
  assert.ok(r.body.has_content, JSON.stringify(r.body));
  return { asset: r.body, file: (await content(t, r.body.id)).bytes };
}

s('CSV: the newest 25 of 40 matching events (the row limit), read 7 a page, none repeated, then a last line saying it was cut', async () => {
  const { asset, file } = await exported('text/csv', source);
  const rows = parseCsv(file.toString('utf8'));
  assert.equal(rows[0], ['event', 'properties.n']);
  const data = rows.slice(1, -1);
  assert.is(data.length, ROW_LIMIT);
  const ns = data.map((r) => Number(r[1]));
  assert.is(new Set(ns).size, ROW_LIMIT, 'no row twice');
  // Newest first: the 24 largest n (timestamps grow with n, two events a timestamp), then
  // one of the pair 14 and 15, which share theirs.
  const sorted = [...ns].sort((a, b) => b - a);
  assert.equal(sorted.slice(0, ROW_LIMIT - 1), Array.from({ length: ROW_LIMIT - 1 }, (_, i) => EVENTS - 1 - i));
  assert.ok([14, 15].includes(sorted[ROW_LIMIT - 1]));
  assert.equal(rows[rows.length - 1], [cutNote(ROW_LIMIT)]);
  assert.equal(asset.export_context, { source, truncated: true, row_limit: ROW_LIMIT, row_count: ROW_LIMIT });
  const listed = await api('GET', `${env()}/exports/${asset.id}/`, t.personalKey);
  assert.is(listed.body.export_context.truncated, true);
});

s('the query API gives the same rows, in the same order, as one query', async () => {
  const { file } = await exported('text/csv', source);
  const q = await api('POST', `${env()}/query/`, t.personalKey, { query: { ...source, orderBy: ['timestamp DESC', 'uuid DESC'], limit: ROW_LIMIT } });
  assert.is(q.status, 200, JSON.stringify(q.body));
  assert.equal(parseCsv(file.toString('utf8')).slice(1, -1), q.body.results.map((row: unknown[]) => row.map(String)));
});

s('a smaller limit of the query\'s own is honoured and is not a cut; everything under the limit is whole', async () => {
  const own = await exported('text/csv', { ...source, limit: 10 });
  const rows = parseCsv(own.file.toString('utf8'));
  assert.is(rows.length, 11);
  assert.ok(!rows.some((r) => r[0].startsWith('Export truncated')));
  assert.equal(own.asset.export_context, { source: { ...source, limit: 10 } });
  const few = await exported('text/csv', { ...source, properties: [{ key: 'n', value: 12, operator: 'lt', type: 'event' }] });
  const fewRows = parseCsv(few.file.toString('utf8'));
  assert.is(fewRows.length, 13, 'a header and all 12 rows over two pages, no note');
  assert.is(few.asset.export_context.truncated, undefined);
});

s('XLSX and JSON of events: cut at the limit too, said in export_context', async () => {
  const xlsx = await exported('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', source);
  const sheet = sheetRows(unzip(xlsx.file).get('xl/worksheets/sheet1.xml')!.toString('utf8'));
  assert.is(sheet.length, 1 + ROW_LIMIT);
  assert.is(xlsx.asset.export_context.truncated, true);
  const json = await exported('application/json', source);
  assert.is(JSON.parse(json.file.toString('utf8')).results.length, ROW_LIMIT);
  assert.is(json.asset.export_context.row_limit, ROW_LIMIT);
});

s.run();
