// Export rendering micro benchmark: milliseconds per file for each format, for the chart
// fixtures of test/exports/fixtures.ts and for table queries of 1,000 and 10,000 rows, so
// the exports API can tell a small export (rendered before its 201) from a large one.
// The baseline, timed in the same run, is JSON.stringify of the same result: figures
// are compared as ratios to it, the machine being shared and noisy.
//   node dist/bench/exports.js [--time 1000] [--record]
// --record appends a dated section to bench/RESULTS.md.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { XLSX_TYPE, type ExportFormat, type InsightData } from '../src/exports/index.js';
import { renderExport } from '../src/exports/render.js';
import { eventsTable, trendsByBrowser, weeklyRetention } from '../test/exports/fixtures.js';

const { values: args } = parseArgs({ options: { time: { type: 'string', default: '1000' }, record: { type: 'boolean', default: false } } });
const TIME_MS = Number(args.time);

function rows(n: number): InsightData {
  const base = Date.UTC(2024, 4, 1);
  return {
    ...eventsTable, name: `${n.toLocaleString('en-US')} purchases`,
    result: Array.from({ length: n }, (_, i) => [
      'purchase', { distinct_id: `user${i % 997}@example.com`, properties: { email: `user${i % 997}@example.com` } },
      (i % 500) / 4, ['Chrome', 'Safari', 'Firefox'][i % 3], new Date(base + i * 61_000).toISOString(),
    ]),
  };
}

const cases: Array<{ name: string; insight: InsightData; formats: ExportFormat[] }> = [
  { name: 'trends, 5 series × 30 days', insight: trendsByBrowser, formats: ['text/csv', XLSX_TYPE, 'image/png', 'application/pdf'] },
  { name: 'retention, 8 weekly cohorts', insight: weeklyRetention, formats: ['text/csv', 'image/png', 'application/pdf'] },
  { name: 'events, 1,000 rows', insight: rows(1_000), formats: ['text/csv', XLSX_TYPE, 'image/png', 'application/pdf'] },
  { name: 'events, 10,000 rows', insight: rows(10_000), formats: ['text/csv', XLSX_TYPE] },
];

const bench = new Bench({ time: TIME_MS, warmupTime: 200 });
for (const c of cases) {
  bench.add(`${c.name} · baseline JSON.stringify`, () => { JSON.stringify(c.insight.result); });
  for (const f of c.formats) bench.add(`${c.name} · ${f}`, () => { renderExport(f, c.insight, null); });
}
await bench.run();

const ms = (name: string) => bench.getTask(name)?.result?.latency.mean ?? NaN;
const label = (f: ExportFormat) => (f === XLSX_TYPE ? 'xlsx' : f);
const lines = ['| insight | format | ms per file | ÷ baseline |', '|---|---|---:|---:|'];
for (const c of cases) {
  const base = ms(`${c.name} · baseline JSON.stringify`);
  lines.push(`| ${c.name} | baseline: JSON.stringify | ${base.toFixed(3)} | 1 |`);
  for (const f of c.formats) {
    const t = ms(`${c.name} · ${f}`);
    lines.push(`| ${c.name} | ${label(f)} | ${t < 1 ? t.toFixed(3) : t.toFixed(1)} | ${Math.round(t / base).toLocaleString('en-US')} |`);
  }
}
const table = lines.join('\n');
console.log(`\n${table}\n`);

if (args.record) {
  const file = join(process.cwd(), 'bench', 'RESULTS.md');
  appendFileSync(file, [
    '',
    `## Export rendering (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Command: \`npx tsc -p tsconfig.json && node dist/bench/exports.js --time ${TIME_MS} --record\``,
    `Node ${process.version}; one thread; means of tinybench runs. PNG is 1200×630, the PDF's chart 2400×1260.`,
    '',
    table,
    '',
  ].join('\n'));
  console.log(`appended to ${file}`);
}
