// The fonts charts are drawn in: DejaVu Sans, bundled in assets/fonts/ (licence beside
// it), handed to resvg by path so a machine without fonts installed draws the same
// image, and nothing is fetched. Their metrics drive ECharts' text layout (./ttf-metrics.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readFontMetrics, type FontMetrics } from './ttf-metrics.js';

// The compiled module runs from dist/src/exports/chart/: four levels up is the repository.
const FONT_DIR = new URL('../../../../assets/fonts/', import.meta.url);
const fontPath = (name: string) => fileURLToPath(new URL(name, FONT_DIR));

export const FONT_FAMILY = 'DejaVu Sans';
export const FONT_FILES = [fontPath('DejaVuSans.ttf'), fontPath('DejaVuSans-Bold.ttf')];

let metrics: { regular: FontMetrics; bold: FontMetrics } | null = null;

export function fontMetrics(): { regular: FontMetrics; bold: FontMetrics } {
  metrics ??= { regular: readFontMetrics(readFileSync(FONT_FILES[0])), bold: readFontMetrics(readFileSync(FONT_FILES[1])) };
  return metrics;
}
