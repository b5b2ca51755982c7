// Dashboard export rendering: milliseconds for a six-tile dashboard as one PNG and as a PDF
// (title page and a page per tile), against the baseline timed in the same run: the six
// insights' own PNG exports one after another (what a dashboard PNG draws, plus one
// rasterization of the whole canvas). Figures are compared as ratios, the machine being
// shared and noisy.
//   node dist/bench/dashboard-render.js [--time 2000]
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { renderExport } from '../src/exports/render.js';
import { renderDashboard } from '../src/exports/dashboard/render.js';
import type { DashboardData } from '../src/exports/dashboard/types.js';
import { everyKind } from '../test/exports/fixtures.js';

const { values: args } = parseArgs({ options: { time: { type: 'string', default: '2000' } } });
const kinds = ['trends-line', 'trends-number', 'funnel', 'retention', 'lifecycle', 'stickiness'] as const;
const board: DashboardData = {
  id: 1, name: 'Bench', description: '', filters: {}, timezone: 'UTC', computedAt: '2024-03-04T09:00:00Z',
  tiles: kinds.map((k, i) => ({ id: i, layout: { x: (i % 2) * 6, y: Math.floor(i / 2) * 5, w: 6, h: 5 }, text: null, error: null, insight: { ...everyKind[k], id: i } })),
};

const bench = new Bench({ time: Number(args.time), warmupTime: 500 });
bench
  .add('baseline: six insight PNG exports', () => { for (const k of kinds) renderExport('image/png', everyKind[k], null); })
  .add('dashboard PNG (six tiles, 1920 px)', () => { renderDashboard('image/png', board); })
  .add('dashboard PDF (title + six pages)', () => { renderDashboard('application/pdf', board); });
await bench.run();
const base = bench.tasks[0].result!.mean;
for (const t of bench.tasks) {
  const r = t.result!;
  console.log(`${t.name.padEnd(40)} ${r.mean.toFixed(0).padStart(6)} ms  ±${r.rme.toFixed(1)}%  ${(r.mean / base).toFixed(2)}× baseline  (${r.samples.length} runs)`);
}
