// The exports API against the real server: saved insights of every query kind exported in
// every format through POST …/exports/ (rendered before the 201), their files read back from
// …/exports/:id/content/ and checked against the insight's own results; PostHog's fields,
// errors, list, scopes and headers.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, denied, type ApiCall } from '../helpers/api.js';
import { startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { parseCsv } from '../helpers/csv.js';
import { decodePng, differingPixels, inked } from '../helpers/png.js';
import { readPdf } from '../helpers/pdf.js';
import { sheetRows } from '../helpers/sheet.js';
import { unzip } from '../helpers/unzip.js';
import { defaultExpiresAfter, EXPORT_FORMATS, FORMAT_EXTENSIONS, type ExportFormat } from '../../src/exports/index.js';
import { content, loadEvents, saveInsight } from './helpers.js';

const s = suite('exports: the exports API');
let t: TestServer;
let api: ApiCall;
const env = () => `/api/environments/${t.projectId}`;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

interface Kind {
  name: string;
  query: Record<string, unknown>;
  // The CSV's data rows checked against the insight's result.
  checkCsv(rows: string[][], result: any, columns: string[] | null): void;
}

const numbers = (cells: string[]) => cells.map(Number);

// Trends, lifecycle, stickiness: a row per series, the series' values in its last columns.
function trendShaped(rows: string[][], result: any[]): void {
  assert.is(rows.length, result.length + 1);
  result.forEach((item, k) => {
    assert.equal(numbers(rows[k + 1].slice(-item.data.length)), item.data, `row ${k + 1}`);
    assert.equal(rows[0].slice(-item.labels.length), item.labels);
  });
}

const KINDS: Kind[] = [
  {
    name: 'Pageviews by browser',
    query: { kind: 'TrendsQuery', interval: 'day', dateRange: { date_from: '-6d' }, series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } },
    checkCsv(rows, result) {
      assert.equal(rows[0].slice(0, 2), ['series', '$browser']);
      assert.equal(rows.slice(1).map((r) => r[1]).sort(), result.map((i: any) => i.breakdown_value).sort());
      trendShaped(rows, result);
    },
  },
  {
    name: 'Sign-up funnel',
    query: { kind: 'FunnelsQuery', dateRange: { date_from: '-7d' }, series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }, { kind: 'EventsNode', event: 'upgraded' }] },
    checkCsv(rows, result) {
      assert.equal(rows.slice(1).map((r) => [r[0], Number(r[3])]), result.map((st: any) => [st.action_id, st.count]));
      assert.ok(result[0].count > result[2].count && result[2].count > 0);
    },
  },
  {
    name: 'Daily retention',
    query: { kind: 'RetentionQuery', dateRange: { date_from: '-5d' }, retentionFilter: { period: 'Day', totalIntervals: 5, retentionType: 'retention_recurring', targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } } },
    checkCsv(rows, result) {
      assert.equal(rows[0].slice(0, 2), ['cohort', 'cohort size']);
      assert.is(rows.length, result.length + 1);
      result.forEach((c: any, k: number) => assert.equal(numbers(rows[k + 1].slice(2)), c.values.map((v: any) => v.count)));
      assert.ok(result[0].values[0].count > 0);
    },
  },
  {
    name: 'Lifecycle',
    query: { kind: 'LifecycleQuery', interval: 'day', dateRange: { date_from: '-6d' }, series: [{ kind: 'EventsNode', event: '$pageview' }] },
    checkCsv(rows, result) {
      assert.equal(rows.slice(1).map((r) => r[0]).sort(), ['$pageview - dormant', '$pageview - new', '$pageview - resurrecting', '$pageview - returning']);
      trendShaped(rows, result);
    },
  },
  {
    name: 'Stickiness',
    query: { kind: 'StickinessQuery', interval: 'day', dateRange: { date_from: '-6d' }, series: [{ kind: 'EventsNode', event: '$pageview' }] },
    checkCsv(rows, result) {
      assert.equal(rows[0].slice(0, 3), ['series', '1 day', '2 days']);
      trendShaped(rows, result);
    },
  },
  {
    name: 'Recent sign-ups',
    query: { kind: 'EventsQuery', select: ['event', 'distinct_id', 'properties.plan'], event: 'signed_up', after: '-7d', orderBy: ['timestamp DESC'], limit: 8 },
    checkCsv(rows, result, columns) {
      assert.equal(rows[0], columns);
      assert.equal(rows.slice(1), result.map((r: unknown[]) => r.map(String)));
      assert.is(rows.length, 9);
    },
  },
];

const insights = new Map<string, { id: number; result: any; columns: string[] | null }>();

s.before(async () => {
  t = await startTestServer({ env: { HEDGEROW_EXPORT_SYNC_MS: '120000' }, consumers: NO_DESTINATIONS });
  api = apiClient(t);
  await loadEvents(t, api);
  for (const kind of KINDS) {
    const { id } = await saveInsight(t, api, kind.name, kind.query);
    const r = await api('GET', `${env()}/insights/${id}/?refresh=blocking`, t.personalKey);
    assert.is(r.status, 200);
    insights.set(kind.name, { id, result: r.body.result, columns: r.body.columns });
  }
});
s.after(async () => { await t?.close(); });

async function exportOf(insight: number, format: ExportFormat, extra: Record<string, unknown> = {}) {
  return api('POST', `${env()}/exports/`, t.personalKey, { insight, export_format: format, ...extra });
}

function checkFile(kind: Kind, format: ExportFormat, bytes: Buffer): void {
  const { result, columns } = insights.get(kind.name)!;
  switch (format) {
    case 'text/csv':
      kind.checkCsv(parseCsv(bytes.toString('utf8')), result, columns);
      break;
    case 'application/json':
      assert.equal(JSON.parse(bytes.toString('utf8')).results, result);
      break;
    case 'image/png': {
      const img = decodePng(bytes);
      assert.equal([img.width, img.height], [1200, 630]);
      // Not blank: a chart or a table (retention, events) inks at least 1% of the picture.
      assert.ok(inked(img) > 0.01, `${kind.name}: the chart is drawn (${inked(img)})`);
      break;
    }
    case 'application/pdf': {
      const pdf = readPdf(bytes);
      assert.ok(pdf.pages.length >= 1);
      assert.ok(pdf.pages[0].images.length === 1, 'the chart is on the first page');
      assert.ok(pdf.pages.flatMap((p) => p.texts).join(' ').includes(kind.name), 'the title is printed');
      break;
    }
    case XLSX: {
      const rows = sheetRows(unzip(bytes).get('xl/worksheets/sheet1.xml')!.toString('utf8'));
      kind.checkCsv(rows.map((r) => r.map((v) => (v === null ? '' : String(v)))), result, columns);
      break;
    }
  }
}

for (const kind of KINDS) {
  s(`${kind.name}: every format rendered before the 201, its file served with its type and name`, async () => {
    const { id: insightId } = insights.get(kind.name)!;
    for (const format of EXPORT_FORMATS) {
      const created = await exportOf(insightId, format);
      assert.is(created.status, 201, JSON.stringify(created.body));
      const asset = created.body;
      assert.equal(Object.keys(asset), ['id', 'dashboard', 'insight', 'export_format', 'created_at', 'has_content', 'export_context', 'filename', 'expires_after', 'exception']);
      assert.is(asset.has_content, true, `${format}: ${asset.exception}`);
      assert.is(asset.exception, null);
      assert.is(asset.insight, insightId);
      assert.is(asset.dashboard, null);
      assert.is(asset.export_format, format);
      assert.is(asset.export_context, null);
      const slug = kind.name.toLowerCase().replace(/ /g, '-');
      assert.match(asset.filename, new RegExp(`^export-${slug}-\\d{4}-\\d{2}-\\d{2}-\\d{6}\\.${FORMAT_EXTENSIONS[format]}$`));
      assert.is(asset.expires_after, defaultExpiresAfter(format, new Date(asset.created_at)).toISOString());

      const file = await content(t, asset.id);
      assert.is(file.status, 200);
      assert.is(file.headers.get('content-type'), format);
      assert.is(file.headers.get('content-disposition'), `attachment; filename="${asset.filename}"`);
      checkFile(kind, format, file.bytes);
    }
  });
}

s('two different insights make different pictures; the same one the same file', async () => {
  const views = await saveInsight(t, api, 'Page views', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-6d' } });
  const signups = await saveInsight(t, api, 'Sign-ups', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signed_up' }], dateRange: { date_from: '-6d' } });
  const [a, b, again] = await Promise.all([exportOf(views.id, 'image/png'), exportOf(signups.id, 'image/png'), exportOf(views.id, 'image/png')]);
  const [pa, pb, pagain] = await Promise.all([a, b, again].map((r) => content(t, r.body.id)));
  const [ia, ib] = [decodePng(pa.bytes), decodePng(pb.bytes)];
  assert.ok(differingPixels(ia, ib) > 0.01 * ia.width * ia.height, 'the charts differ');
  assert.ok(pagain.bytes.equals(pa.bytes));
});

s('export_context is kept as sent: its columns pick and order the CSV columns, its filename names the file', async () => {
  const { id } = insights.get('Recent sign-ups')!;
  const context = { columns: ['properties.plan', 'event'], filename: 'Plans by sign-up', extra: { nested: [1, 2] } };
  const r = await exportOf(id, 'text/csv', { export_context: context });
  assert.is(r.status, 201);
  assert.equal(r.body.export_context, context);
  assert.match(r.body.filename, /^plans-by-sign-up-\d{4}-\d{2}-\d{2}-\d{6}\.csv$/);
  const rows = parseCsv((await content(t, r.body.id)).bytes.toString('utf8'));
  assert.equal(rows[0], ['properties.plan', 'event']);
  assert.ok(rows.slice(1).every((row) => row[1] === 'signed_up' && (row[0] === 'team' || row[0] === 'free')));
});

s('a query in export_context.source is exported without an insight', async () => {
  const source = { kind: 'EventsQuery', select: ['event', 'distinct_id'], event: 'upgraded', after: '-7d', orderBy: ['timestamp DESC'], limit: 3 };
  const r = await api('POST', `${env()}/exports/`, t.personalKey, { export_format: 'text/csv', export_context: { source } });
  assert.is(r.status, 201, JSON.stringify(r.body));
  assert.is(r.body.insight, null);
  assert.match(r.body.filename, /^export-\d{4}-\d{2}-\d{2}-\d{6}\.csv$/);
  const q = await api('POST', `${env()}/query/`, t.personalKey, { query: source });
  const rows = parseCsv((await content(t, r.body.id)).bytes.toString('utf8'));
  assert.equal(rows, [['event', 'distinct_id'], ...q.body.results.map((row: unknown[]) => row.map(String))]);
  assert.is(rows.length, 4);
});

s('expires_after: as given (naive times are UTC), else the format\'s default', async () => {
  const { id } = insights.get('Lifecycle')!;
  const given = await exportOf(id, 'application/json', { expires_after: '2099-03-04T05:06:07' });
  assert.is(given.body.expires_after, '2099-03-04T05:06:07.000Z');
  const offset = await exportOf(id, 'application/json', { expires_after: '2099-03-04T05:06:07+02:00' });
  assert.is(offset.body.expires_after, '2099-03-04T03:06:07.000Z');
  const date = await exportOf(id, 'application/json', { expires_after: '2099-03-04' });
  assert.is(date.body.expires_after, '2099-03-04T00:00:00.000Z');
  const csv = await exportOf(id, 'text/csv');
  const days = (Date.parse(csv.body.expires_after) - Date.parse(csv.body.created_at)) / 86_400_000;
  assert.ok(days > 6 && days <= 7, `CSV kept 7 days (${days})`);
  assert.match(csv.body.expires_after, /T00:00:00\.000Z$/);
  const png = await exportOf(id, 'image/png', { expires_after: null });
  const pngDays = (Date.parse(png.body.expires_after) - Date.parse(png.body.created_at)) / 86_400_000;
  assert.ok(pngDays > 179 && pngDays <= 180, `images kept about six months (${pngDays})`);
  const bad = await exportOf(id, 'image/png', { expires_after: 'next tuesday' });
  assert.equal(bad.body, {
    type: 'validation_error', code: 'invalid', attr: 'expires_after',
    detail: 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
  });
  assert.is((await exportOf(id, 'image/png', { expires_after: '2099-02-30' })).status, 400);
});

s('PostHog\'s 400s: unknown format, no target, another project\'s insight, a deleted or unknown insight, a wrong pk type', async () => {
  const { id } = insights.get('Lifecycle')!;
  const post = (body: unknown) => api('POST', `${env()}/exports/`, t.personalKey, body);
  const unknownFormat = await post({ insight: id, export_format: 'image/gif' });
  assert.is(unknownFormat.status, 400);
  assert.equal(unknownFormat.body, {
    type: 'validation_error', code: 'invalid_choice', attr: 'export_format',
    detail: `"image/gif" is not a valid choice. Allowed values: ${EXPORT_FORMATS.join(', ')}.`,
  });
  assert.equal((await post({ insight: id })).body, { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'export_format' });
  assert.equal((await post({ export_format: 'image/png' })).body, {
    type: 'validation_error', code: 'invalid_input', detail: 'Either dashboard, insight or export_context is required for an export.', attr: null,
  });
  assert.is((await post({ export_format: 'image/png', export_context: {} })).body.code, 'invalid_input');

  const other = await t.server.tenancy.createProject((t.server.tenancy.project(t.projectId))!.organization_id, 'Other');
  const foreign = await api('POST', `/api/environments/${other.id}/insights/`, t.personalKey, { name: 'Theirs', query: { kind: 'InsightVizNode', source: KINDS[0].query } });
  assert.equal((await post({ insight: foreign.body.id, export_format: 'text/csv' })).body, {
    type: 'validation_error', code: 'invalid_input', detail: 'This insight does not belong to your team.', attr: 'insight',
  });

  const gone = await saveInsight(t, api, 'Soon deleted', KINDS[0].query);
  await api('PATCH', `${env()}/insights/${gone.id}/`, t.personalKey, { deleted: true });
  assert.equal((await post({ insight: gone.id, export_format: 'text/csv' })).body, {
    type: 'validation_error', code: 'does_not_exist', detail: `Invalid pk "${gone.id}" - object does not exist.`, attr: 'insight',
  });
  assert.equal((await post({ insight: 987654, export_format: 'text/csv' })).body, {
    type: 'validation_error', code: 'does_not_exist', detail: 'Invalid pk "987654" - object does not exist.', attr: 'insight',
  });
  // The insight is read before the format, as the serializer's fields are ordered.
  assert.is((await post({ insight: 987654, export_format: 'image/gif' })).body.attr, 'insight');
  assert.equal((await post({ insight: 'abc', export_format: 'text/csv' })).body, {
    type: 'validation_error', code: 'incorrect_type', detail: 'Incorrect type. Expected pk value, received str.', attr: 'insight',
  });
  assert.is((await post({ insight: String(id), export_format: 'application/json' })).status, 201, 'a pk may be its text');

  const legacy = await api('POST', `${env()}/insights/`, t.personalKey, { name: 'Legacy', filters: { insight: 'TRENDS' } });
  const noQuery = await post({ insight: legacy.body.id, export_format: 'text/csv' });
  assert.is(noQuery.status, 400);
  assert.is(noQuery.body.attr, 'insight');
  assert.match(noQuery.body.detail, /no query/);

  const path = await post({ export_format: 'text/csv', export_context: { path: '/api/projects/1/events' } });
  assert.is(path.status, 400);
  assert.is(path.body.attr, 'export_context');
  const badSource = await post({ export_format: 'text/csv', export_context: { source: { kind: 'NoSuchQuery' } } });
  assert.is(badSource.status, 400);
  assert.match(badSource.body.attr, /^export_context\.source/);
  assert.is((await api('POST', `${env()}/exports/`, t.personalKey, '[1]')).status, 400);
});

s('dashboards: an id that names none is PostHog\'s 400 (exports of dashboards: ./dashboard-api.test.ts)', async () => {
  const r = await api('POST', `${env()}/exports/`, t.personalKey, { dashboard: 999_999, export_format: 'application/pdf' });
  assert.is(r.status, 400);
  assert.is(r.body.code, 'does_not_exist');
  assert.is(r.body.attr, 'dashboard');
  assert.match(r.body.detail, /^Invalid pk "999999" - object does not exist\.$/);
  const withInsight = await api('POST', `${env()}/exports/`, t.personalKey, { dashboard: 999_999, insight: insights.get('Lifecycle')!.id, export_format: 'image/png' });
  assert.is(withInsight.body.attr, 'dashboard');
  assert.is((await api('POST', `${env()}/exports/`, t.personalKey, { dashboard: null, insight: insights.get('Lifecycle')!.id, export_format: 'application/json' })).status, 201);
});

s('list: the envelope, newest first, limit and offset, a format filter, the caller\'s own only; retrieve by id', async () => {
  const me = await addUser(t, { scopes: ['export:write'] });
  const call = (method: string, path: string, body?: unknown) => api(method, path, me.key, body);
  const { id } = insights.get('Stickiness')!;
  const made: Record<string, any>[] = [];
  for (const format of ['text/csv', 'application/json', 'text/csv'] as const) made.push((await call('POST', `${env()}/exports/`, { insight: id, export_format: format })).body);
  const all = await call('GET', `${env()}/exports/`);
  assert.is(all.status, 200);
  assert.equal(Object.keys(all.body), ['count', 'next', 'previous', 'results']);
  assert.is(all.body.count, 3);
  assert.equal(all.body.results.map((a: { id: number }) => a.id), made.map((a) => a.id).reverse());
  assert.equal(all.body.results[0], made[2]);
  const page = await call('GET', `${env()}/exports/?limit=1&offset=1`);
  assert.equal(page.body.results.map((a: { id: number }) => a.id), [made[1].id]);
  assert.match(page.body.next, /\/exports\/\?limit=1&offset=2$/);
  assert.match(page.body.previous, /\/exports\/\?limit=1$/);
  const csv = await call('GET', `/api/projects/${t.projectId}/exports/?export_format=text/csv`);
  assert.equal(csv.body.results.map((a: { id: number }) => a.id), [made[2].id, made[0].id]);
  assert.is((await call('GET', `${env()}/exports/?export_format=image/gif`)).body.count, 3, 'an unknown format filters nothing');
  assert.equal((await call('GET', `/api/projects/${t.projectId}/exports/${made[1].id}/`)).body, made[1]);
  // Another user's exports are not listed and not found.
  const mine = await api('GET', `${env()}/exports/`, t.personalKey);
  assert.ok(!mine.body.results.some((a: { id: number }) => made.some((m) => m.id === a.id)));
  assert.is((await api('GET', `${env()}/exports/${made[0].id}/`, t.personalKey)).status, 404);
  assert.is((await content(t, made[0].id)).status, 404);
  assert.is((await call('GET', `${env()}/exports/999999/`)).status, 404);
  assert.is((await call('GET', `${env()}/exports/abc/`)).status, 404);
  // No changing or deleting an export.
  assert.is((await call('PATCH', `${env()}/exports/${made[0].id}/`, {})).status, 405);
  assert.is((await call('DELETE', `${env()}/exports/${made[0].id}/`)).status, 405);
});

s('scopes: export:read lists, reads and downloads; creating needs export:write; other scopes are refused', async () => {
  const { id } = insights.get('Lifecycle')!;
  const reader = await addUser(t, { scopes: ['export:read'] });
  const writer = await addUser(t, { scopes: ['export:write'] });
  const other = await addUser(t, { scopes: ['insight:write', 'query:read'] });
  const refused = await api('POST', `${env()}/exports/`, reader.key, { insight: id, export_format: 'text/csv' });
  assert.is(refused.status, 403);
  assert.equal(refused.body, denied("API key missing required scope 'export:write'"));
  const made = await api('POST', `${env()}/exports/`, writer.key, { insight: id, export_format: 'text/csv' });
  assert.is(made.status, 201);
  assert.is((await api('GET', `${env()}/exports/`, writer.key)).status, 200);
  assert.is((await content(t, made.body.id, writer.key)).status, 200);
  assert.is((await api('GET', `${env()}/exports/`, reader.key)).status, 200);
  for (const path of [`${env()}/exports/`, `${env()}/exports/${made.body.id}/`, `${env()}/exports/${made.body.id}/content/`]) {
    const r = await api('GET', path, other.key);
    assert.is(r.status, 403, path);
    assert.equal(r.body, denied("API key missing required scope 'export:read'"));
  }
  assert.is((await api('POST', `${env()}/exports/`, other.key, { insight: id, export_format: 'text/csv' })).status, 403);
});

s.run();
