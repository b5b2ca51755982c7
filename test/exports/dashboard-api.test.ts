// Dashboard exports over the API against the real server: POST …/exports/ {dashboard} as PNG,
// PDF and JSON, rendered in the background (the create waits for nothing here), each file
// opened: the picture's size and ink, the PDF's pages, the JSON's results against the
// dashboard's own tiles computed under its filters. An insight exported with its dashboard
// runs under the dashboard's filters. CSV is refused, as are deleted dashboards.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { decodePng, inked } from '../helpers/png.js';
import { fromWinAnsi, readPdf } from '../helpers/pdf.js';
import { content, loadEvents, pageviewsQuery, saveInsight, settled } from './helpers.js';

const s = suite('exports: dashboards over the exports API');
let t: TestServer;
let api: ApiCall;
const env = () => `/api/environments/${t.projectId}`;
let board: Record<string, any>;
let views: { id: number };

s.before(async () => {
  // Nothing is waited for: every render goes on in the background.
  t = await startTestServer({ env: { HEDGEROW_EXPORT_SYNC_MS: '0' }, consumers: NO_DESTINATIONS });
  api = apiClient(t);
  await loadEvents(t, api);
  const created = await api('POST', `${env()}/dashboards/`, t.personalKey, { name: 'Traffic review', description: 'Every Monday', filters: { date_from: '-3d' } });
  assert.is(created.status, 201);
  views = await saveInsight(t, api, 'Views', pageviewsQuery);
  const funnel = await saveInsight(t, api, 'Sign-up funnel', { kind: 'FunnelsQuery', dateRange: { date_from: '-7d' }, series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }] });
  for (const i of [views, funnel]) assert.is((await api('PATCH', `${env()}/insights/${i.id}/`, t.personalKey, { dashboards: [created.body.id] })).status, 200);
  const read = await api('GET', `${env()}/dashboards/${created.body.id}/`, t.personalKey);
  const tileOf = (id: number) => read.body.tiles.find((x: any) => x.insight.id === id).id;
  const laid = await api('PATCH', `${env()}/dashboards/${created.body.id}/`, t.personalKey, {
    tiles: [
      { id: tileOf(views.id), layouts: { sm: { x: 0, y: 0, w: 8, h: 5 } } },
      { text: { body: 'Read me first' }, layouts: { sm: { x: 8, y: 0, w: 4, h: 5 } } },
      { id: tileOf(funnel.id), layouts: { sm: { x: 0, y: 5, w: 12, h: 6 } } },
    ],
  });
  assert.is(laid.status, 200);
  board = (await api('GET', `${env()}/dashboards/${created.body.id}/?refresh=blocking`, t.personalKey)).body;
  assert.equal(board.tiles.map((x: any) => x.insight?.name ?? x.text.body), ['Views', 'Read me first', 'Sign-up funnel']);
});
s.after(async () => { await t?.close(); });

async function exportBoard(format: string): Promise<{ asset: Record<string, any>; bytes: Buffer }> {
  const r = await api('POST', `${env()}/exports/`, t.personalKey, { dashboard: board.id, export_format: format });
  assert.is(r.status, 201, JSON.stringify(r.body));
  assert.is(r.body.dashboard, board.id);
  assert.is(r.body.insight, null);
  assert.match(r.body.filename, /^export-traffic-review-\d{4}-\d{2}-\d{2}-\d{6}\.(png|pdf|json)$/);
  const asset = await settled(t, api, r.body.id);
  assert.is(asset.exception, null);
  assert.is(asset.has_content, true);
  const file = await content(t, r.body.id);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), format);
  return { asset, bytes: file.bytes };
}

s('PNG: the whole dashboard in one picture, as tall as its layout, every tile drawn', async () => {
  const { bytes } = await exportBoard('image/png');
  const img = decodePng(bytes);
  assert.is(img.width, 1920);
  // Header (136 px), 11 rows of 80 px with 16 px gaps, padding.
  assert.is(img.height, 136 + 11 * 80 + 10 * 16 + 32);
  // The views chart (first row, a thin line over four days) and the funnel (below it) are
  // drawn, not blank cards (cards' borders alone ink about 0.2% of a band).
  assert.ok(inked(img, 150, 500) > 0.006, `first row ${inked(img, 150, 500)}`);
  assert.ok(inked(img, 700, 1150) > 0.03, `second row ${inked(img, 700, 1150)}`);
});

s('PDF: a title page naming the dashboard and its tiles, then one page per tile', async () => {
  const { bytes } = await exportBoard('application/pdf');
  const pdf = readPdf(bytes);
  assert.is(pdf.pages.length, 4);
  const title = fromWinAnsi(pdf.pages[0].texts.join(' '));
  for (const text of ['Traffic review', 'Every Monday', '3 tiles', 'Views', 'Read me first', 'Sign-up funnel']) assert.ok(title.includes(text), `${text} in ${title}`);
  assert.equal(pdf.pages.map((p) => p.images.length), [0, 1, 0, 1]);
  assert.ok(pdf.pages[2].texts.join(' ').includes('Read me first'));
});

s('JSON: every tile\'s query and results, computed under the dashboard\'s filters as the dashboard shows them', async () => {
  const { bytes } = await exportBoard('application/json');
  const body = JSON.parse(bytes.toString('utf8'));
  assert.equal(body.dashboard.name, 'Traffic review');
  assert.equal(body.dashboard.filters, { date_from: '-3d' });
  assert.equal(body.tiles.map((x: any) => x.id), board.tiles.map((x: any) => x.id));
  assert.equal(body.tiles[0].layout, { x: 0, y: 0, w: 8, h: 5 });
  assert.is(body.tiles[0].insight.query.source.dateRange.date_from, '-3d');
  assert.equal(body.tiles[0].insight.results, board.tiles[0].insight.result);
  assert.equal(body.tiles[2].insight.results, board.tiles[2].insight.result);
  assert.is(body.tiles[1].text, 'Read me first');
});

s('an insight exported with its dashboard runs under the dashboard\'s filters', async () => {
  const r = await api('POST', `${env()}/exports/`, t.personalKey, { dashboard: board.id, insight: views.id, export_format: 'application/json' });
  assert.is(r.status, 201);
  assert.match(r.body.filename, /^export-views-/);
  await settled(t, api, r.body.id);
  const results = JSON.parse((await content(t, r.body.id)).bytes.toString('utf8')).results;
  assert.is(results[0].days.length, 4, 'the last 3 days and today');
  assert.equal(results, board.tiles[0].insight.result);
});

s('refused: a dashboard as CSV or XLSX, a deleted dashboard', async () => {
  for (const format of ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']) {
    const r = await api('POST', `${env()}/exports/`, t.personalKey, { dashboard: board.id, export_format: format });
    assert.is(r.status, 400);
    assert.is(r.body.attr, 'export_format');
    assert.match(r.body.detail, /^A dashboard cannot be exported as /);
  }
  const gone = await api('POST', `${env()}/dashboards/`, t.personalKey, { name: 'Gone' });
  assert.is((await api('PATCH', `${env()}/dashboards/${gone.body.id}/`, t.personalKey, { deleted: true })).status, 200);
  const r = await api('POST', `${env()}/exports/`, t.personalKey, { dashboard: gone.body.id, export_format: 'image/png' });
  assert.is(r.status, 400);
  assert.is(r.body.code, 'does_not_exist');
  assert.is(r.body.attr, 'dashboard');
});

s.run();
