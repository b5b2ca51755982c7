// Dashboard exports from hand-made data (no server): the grid placement of tiles, the one
// picture with every tile drawn in its box, the PDF's title page and a page per tile, the
// JSON of every tile's query and results.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gridBox, gridBoxes, pixelBoxes, CANVAS_WIDTH } from '../../src/exports/dashboard/layout.js';
import { renderDashboard } from '../../src/exports/dashboard/render.js';
import { dashboardSvg, MAX_HEIGHT } from '../../src/exports/dashboard/picture.js';
import { plainLines, wrap } from '../../src/exports/dashboard/text.js';
import type { DashboardData, DashboardTileData } from '../../src/exports/dashboard/types.js';
import { decodePng, inked, type DecodedPng } from '../helpers/png.js';
import { fromWinAnsi, readPdf } from '../helpers/pdf.js';
import { everyKind } from './fixtures.js';

const s = suite('exports: dashboards rendered whole');

const insightTile = (id: number, kind: keyof typeof everyKind, layout: DashboardTileData['layout']): DashboardTileData =>
  ({ id, layout, text: null, error: null, insight: { ...everyKind[kind], id: 100 + id } });

const board: DashboardData = {
  id: 7, name: 'Weekly review', description: 'What moved this week', filters: { date_from: '-7d' }, timezone: 'Europe/Paris',
  computedAt: '2024-03-04T08:00:00Z',
  tiles: [
    insightTile(1, 'trends-line', { x: 0, y: 0, w: 8, h: 5 }),
    { id: 2, layout: { x: 8, y: 0, w: 4, h: 5 }, text: '# Notes\nSign-ups **doubled** after the launch.', insight: null, error: null },
    insightTile(3, 'funnel', { x: 0, y: 5, w: 6, h: 5 }),
    insightTile(4, 'retention', null),
    { id: 5, layout: null, text: null, insight: { ...everyKind['trends-number'], id: 105 }, error: 'The query timed out.' },
  ],
};

s('layout: a stored sm layout is clamped to the grid; tiles without one follow the laid-out ones two to a row', () => {
  assert.equal(gridBox({ sm: { x: 10, y: 2, w: 6, h: 4 } }), { x: 10, y: 2, w: 2, h: 4 });
  assert.equal(gridBox({ sm: { x: 0, y: 1 } }), { x: 0, y: 1, w: 6, h: 5 });
  assert.is(gridBox({ xs: { x: 0, y: 0 } }), null);
  assert.is(gridBox({}), null);
  const boxes = gridBoxes(board.tiles);
  assert.equal(boxes.slice(3), [{ x: 0, y: 10, w: 6, h: 5 }, { x: 6, y: 10, w: 6, h: 5 }]);
  const px = pixelBoxes(boxes, 100);
  // Side by side tiles meet the canvas edges' padding; none overlaps another.
  assert.is(Math.round(px.boxes[0].x), 32);
  assert.is(Math.round(px.boxes[1].x + px.boxes[1].width), CANVAS_WIDTH - 32);
  for (let i = 0; i < px.boxes.length; i++) {
    for (let j = i + 1; j < px.boxes.length; j++) {
      const a = px.boxes[i];
      const b = px.boxes[j];
      const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
      assert.ok(apart, `tiles ${i} and ${j} overlap`);
    }
  }
  assert.is(px.height, px.boxes[4].y + px.boxes[4].height + 32);
});

s('text: markdown marks dropped; lines wrapped to a width, long words cut', () => {
  assert.equal(plainLines('# Title\n- one **bold** [link](http://x)\n'), ['Title', '• one bold link', '']);
  const measure = (t: string) => t.length;
  assert.equal(wrap(['aa bb cc', 'abcdefgh'], 5, measure), ['aa bb', 'cc', 'abcde', 'fgh']);
});

// Share of non-white pixels inside a box of the picture (white cards on a grey page: a
// blank card would ink only its border).
function inkedIn(img: DecodedPng, box: { x: number; y: number; width: number; height: number }): number {
  let n = 0;
  let all = 0;
  for (let y = Math.ceil(box.y + 12); y < box.y + box.height - 12; y++) {
    for (let x = Math.ceil(box.x + 12); x < box.x + box.width - 12; x++) {
      const i = (y * img.width + x) * img.channels;
      all++;
      if (img.pixels[i] < 200 || img.pixels[i + 1] < 200 || img.pixels[i + 2] < 200) n++;
    }
  }
  return n / all;
}

s('PNG: one picture as wide as PostHog\'s grid, as tall as the tiles; every tile drawn in its box', () => {
  const img = decodePng(renderDashboard('image/png', board));
  assert.is(img.width, CANVAS_WIDTH);
  const top = 32 + 40 + 26 + 22 + 16;
  const { boxes, height } = pixelBoxes(gridBoxes(board.tiles), top);
  assert.is(img.height, Math.ceil(height));
  // The header (name, description) is drawn above the grid.
  assert.ok(inked(img, 0, top - 10) > 0.01, 'the title is drawn');
  boxes.forEach((box, i) => assert.ok(inkedIn(img, box) > 0.003, `tile ${i} has something drawn (${inkedIn(img, box)})`));
  // A chart inks much more of its box than the text card does.
  assert.ok(inkedIn(img, boxes[0]) > inkedIn(img, boxes[1]));
});

s('PNG: a dashboard taller than the picture may be stops at its bound and says how many tiles it shows', () => {
  const tiles = Array.from({ length: 90 }, (_, i) => ({ id: i, layout: null, text: `Note ${i}`, insight: null, error: null }));
  const img = decodePng(renderDashboard('image/png', { ...board, tiles }));
  assert.equal([img.width, img.height], [CANVAS_WIDTH, MAX_HEIGHT]);
  // The note along the bottom edge.
  assert.ok(inked(img, MAX_HEIGHT - 72, MAX_HEIGHT - 40) > 0.002, `${inked(img, MAX_HEIGHT - 72, MAX_HEIGHT - 40)}`);
  assert.match(dashboardSvg({ ...board, tiles }), /Showing \d+ of 90 tiles/);
});

s('PNG: an empty dashboard is a picture that says so', () => {
  const img = decodePng(renderDashboard('image/png', { ...board, tiles: [] }));
  assert.is(img.width, CANVAS_WIDTH);
  assert.ok(inked(img) > 0.001);
});

s('PDF: a title page listing the tiles, then a page per tile in order: charts as images, text and errors as text', () => {
  const pdf = readPdf(renderDashboard('application/pdf', board));
  assert.is(pdf.pages.length, 1 + board.tiles.length);
  const texts = pdf.pages.map((p) => fromWinAnsi(p.texts.join(' ')));
  assert.ok(texts[0].includes('Weekly review') && texts[0].includes('What moved this week'), texts[0]);
  assert.ok(texts[0].includes('5 tiles') && texts[0].includes('Europe/Paris'), texts[0]);
  for (const name of [everyKind['trends-line'].name, 'Notes', everyKind.funnel.name]) assert.ok(texts[0].includes(name), `${name} listed`);
  assert.equal(pdf.pages.map((p) => p.images.length), [0, 1, 0, 1, 1, 0]);
  assert.ok(texts[2].includes('Sign-ups doubled after the launch.'), texts[2]);
  assert.ok(texts[5].includes('The query timed out.'), texts[5]);
  // Charts are drawn at 1.5 × the PNG export's size.
  assert.equal([pdf.pages[1].images[0].width, pdf.pages[1].images[0].height], [1800, 945]);
  assert.ok(texts.every((t, i) => t.includes(`page ${i + 1} of 6`)));
});

s('JSON: the dashboard and every tile with its query and results as computed', () => {
  const body = JSON.parse(Buffer.from(renderDashboard('application/json', board)).toString('utf8'));
  assert.equal(body.dashboard, { id: 7, name: 'Weekly review', description: 'What moved this week', filters: { date_from: '-7d' }, timezone: 'Europe/Paris', computed_at: '2024-03-04T08:00:00Z' });
  assert.equal(body.tiles.map((t: any) => t.id), [1, 2, 3, 4, 5]);
  assert.equal(body.tiles[0].insight.results, everyKind['trends-line'].result);
  assert.equal(body.tiles[0].insight.query, everyKind['trends-line'].query);
  assert.is(body.tiles[1].insight, null);
  assert.match(body.tiles[1].text, /Sign-ups/);
  assert.is(body.tiles[4].error, 'The query timed out.');
});

s('CSV and XLSX have no dashboard form', () => {
  assert.throws(() => renderDashboard('text/csv', board), /cannot be exported as text\/csv/);
});

s.run();
