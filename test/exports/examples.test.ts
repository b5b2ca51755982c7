// The example pictures in docs/exports/ (linked from the README), one per way PostHog can
// display an insight, drawn from the hand-made results in ./fixtures.ts, and a dashboard as a
// picture and a PDF. With HEDGEROW_WRITE_EXAMPLES=1 this test draws them anew into docs/;
// otherwise it checks that every one is there and still what the renderer draws (same size,
// at most a quarter of the pixels changed: a reviewer is never shown a stale or blank one).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderExport } from '../../src/exports/render.js';
import { renderDashboard } from '../../src/exports/dashboard/render.js';
import type { DashboardData } from '../../src/exports/dashboard/types.js';
import { decodePng, differingPixels } from '../helpers/png.js';
import { readPdf } from '../helpers/pdf.js';
import { everyKind } from './fixtures.js';

const s = suite('exports: the example pictures in docs/exports');
const DIR = fileURLToPath(new URL('../../../docs/exports/', import.meta.url));
const writing = process.env.HEDGEROW_WRITE_EXAMPLES === '1';

// Every display of a trends insight PostHog offers, every funnel view, and the other kinds.
const DISPLAYS = ['ActionsLineGraph', 'ActionsBar', 'ActionsUnstackedBar', 'ActionsAreaGraph', 'ActionsLineGraphCumulative', 'BoldNumber', 'ActionsPie',
  'ActionsBarValue', 'ActionsTable', 'WorldMap'];
const FUNNEL_VIEWS = ['steps', 'time_to_convert', 'trends'];

const sourceOf = (q: any) => (q.source ?? q);

s('the fixtures cover every trends display, every funnel view and every other insight kind', () => {
  const sources = Object.values(everyKind).map((i) => sourceOf(i.query));
  const displays = new Set(sources.filter((q) => q.kind === 'TrendsQuery').map((q) => q.trendsFilter?.display ?? 'ActionsLineGraph'));
  for (const d of DISPLAYS) assert.ok(displays.has(d), `a trends fixture displayed as ${d}`);
  const views = new Set(sources.filter((q) => q.kind === 'FunnelsQuery').map((q) => q.funnelsFilter?.funnelVizType ?? 'steps'));
  for (const v of FUNNEL_VIEWS) assert.ok(views.has(v), `a funnel fixture viewed as ${v}`);
  const kinds = new Set(sources.map((q) => q.kind));
  for (const k of ['RetentionQuery', 'LifecycleQuery', 'StickinessQuery', 'EventsQuery']) assert.ok(kinds.has(k), k);
});

function checkPng(name: string, bytes: Uint8Array): void {
  const path = `${DIR}${name}.png`;
  if (writing) {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(path, bytes);
  }
  assert.ok(existsSync(path), `docs/exports/${name}.png exists (HEDGEROW_WRITE_EXAMPLES=1 draws it)`);
  const fresh = decodePng(bytes);
  const stored = decodePng(readFileSync(path));
  assert.equal([stored.width, stored.height], [fresh.width, fresh.height], name);
  const changed = differingPixels(fresh, stored) / (fresh.width * fresh.height);
  assert.ok(changed < 0.25, `${name}: ${(changed * 100).toFixed(1)}% of the pixels differ from what the renderer draws now`);
}

for (const [name, insight] of Object.entries(everyKind)) {
  s(`${name}: its picture is in docs/exports`, () => checkPng(name, renderExport('image/png', insight, null).bytes));
}

const board: DashboardData = {
  id: 1, name: 'Weekly review', description: 'Traffic, sign-ups and who stays: every Monday at 9:00', filters: { date_from: '-30d' }, timezone: 'Europe/London',
  computedAt: '2024-03-04T09:00:00Z',
  tiles: [
    { id: 1, layout: { x: 0, y: 0, w: 8, h: 5 }, text: null, error: null, insight: { ...everyKind['trends-line'], id: 1 } },
    { id: 2, layout: { x: 8, y: 0, w: 4, h: 5 }, text: null, error: null, insight: { ...everyKind['trends-number'], id: 2 } },
    { id: 3, layout: { x: 0, y: 5, w: 6, h: 5 }, text: null, error: null, insight: { ...everyKind.funnel, id: 3 } },
    { id: 4, layout: { x: 6, y: 5, w: 6, h: 5 }, text: null, error: null, insight: { ...everyKind.retention, id: 4 } },
    { id: 5, layout: { x: 0, y: 10, w: 12, h: 2 }, text: '## Notes\nThe March campaign started on the 11th; sign-ups are counted once per person.', insight: null, error: null },
  ],
};

s('a dashboard as one picture and as a PDF', () => {
  checkPng('dashboard', renderDashboard('image/png', board));
  const path = `${DIR}dashboard.pdf`;
  if (writing) writeFileSync(path, renderDashboard('application/pdf', board));
  assert.is(readPdf(readFileSync(path)).pages.length, 1 + board.tiles.length);
});

s.run();
