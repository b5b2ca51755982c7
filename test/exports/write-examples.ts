// Writes one example file per chart kind from the hand-made insights in ./fixtures.ts:
//   node dist/test/exports/write-examples.js [DIR] [png|pdf|…]   (default docs/exports, png)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FORMAT_EXTENSIONS, type ExportFormat } from '../../src/exports/index.js';
import { renderExport } from '../../src/exports/render.js';
import { everyKind } from './fixtures.js';

const dir = process.argv[2] ?? 'docs/exports';
const ext = process.argv[3] ?? 'png';
const format = (Object.keys(FORMAT_EXTENSIONS) as ExportFormat[]).find((f) => FORMAT_EXTENSIONS[f] === ext);
if (!format) throw new Error(`unknown extension ${ext}`);
mkdirSync(dir, { recursive: true });
for (const [name, insight] of Object.entries(everyKind)) {
  const started = performance.now();
  const { bytes } = renderExport(format, insight, null);
  writeFileSync(join(dir, `${name}.${ext}`), bytes);
  console.log(`${name}.${ext}  ${bytes.length} bytes  ${(performance.now() - started).toFixed(0)} ms`);
}
