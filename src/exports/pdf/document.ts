// The insight as a PDF report on A4 landscape pages: the chart (the PNG export's image,
// drawn at twice its resolution) and below it the values — the rows of the CSV export —
// as a table. A table too wide for the page is cut into bands of columns, each repeating
// the first column; long tables continue on further pages under a repeated header.
import type { Raster } from '../chart/draw.js';
import { displayCell } from '../chart/table-chart.js';
import type { Cell, Table } from '../tabular/table.js';
import type { InsightData } from '../types.js';
import { fitText, textWidth, winAnsi, type Face } from './fonts.js';
import { literal, pdfFile, ref, textString, type PdfObject } from './writer.js';

const PAGE_W = 842;
const PAGE_H = 595;
const MARGIN = 36;
const CONTENT_W = PAGE_W - 2 * MARGIN;
const FONT_SIZE = 8;
const ROW_H = 14;
const PAD = 4;
const MIN_COL = 36;
const MAX_COL = 200;
const FOOTER_Y = 20;

type Rgb = [number, number, number];
const INK: Rgb = [0.12, 0.14, 0.16];
const MUTED: Rgb = [0.4, 0.43, 0.46];
const HEADER_FILL: Rgb = [0.925, 0.933, 0.945];
const STRIPE_FILL: Rgb = [0.972, 0.976, 0.98];
const RULE: Rgb = [0.85, 0.87, 0.89];

const num = (n: number) => String(Math.round(n * 100) / 100);
const rgb = (c: Rgb, op: 'rg' | 'RG') => `${c.map(num).join(' ')} ${op}`;

function text(x: number, y: number, bytes: Uint8Array, face: Face, size: number, color: Rgb): string {
  return `BT /${face === 'bold' ? 'F2' : 'F1'} ${num(size)} Tf ${rgb(color, 'rg')} ${num(x)} ${num(y)} Td ${literal(bytes)} Tj ET`;
}

const rect = (x: number, y: number, w: number, h: number, color: Rgb) => `${rgb(color, 'rg')} ${num(x)} ${num(y)} ${num(w)} ${num(h)} re f`;
const line = (x1: number, y1: number, x2: number, y2: number, color: Rgb) => `${rgb(color, 'RG')} 0.5 w ${num(x1)} ${num(y1)} m ${num(x2)} ${num(y2)} l S`;

// Table numbers in full (the chart rounds them), with thousands separators.
const exact = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });
const pdfCell = (value: Cell, timeZone: string) => (typeof value === 'number' ? exact.format(value) : displayCell(value, timeZone));

interface Column {
  index: number;
  width: number;
  right: boolean;
}

function measureColumns(header: string[], rows: string[][], numeric: boolean[]): Column[] {
  return header.map((title, index) => {
    let w = textWidth(winAnsi(title), 'bold', FONT_SIZE);
    for (const r of rows) w = Math.max(w, textWidth(winAnsi(r[index]), 'regular', FONT_SIZE));
    return { index, width: Math.min(MAX_COL, Math.max(MIN_COL, w + 2 * PAD)), right: numeric[index] };
  });
}

// Bands of columns that each fit the page width. Every band repeats the leading text
// columns (series, breakdown, cohort, …) that say what a row is, within a third of the width.
interface Band {
  keys: Column[];
  own: Column[];
}

function bands(columns: Column[]): Band[] {
  const total = columns.reduce((s, c) => s + c.width, 0);
  if (total <= CONTENT_W || columns.length < 2) return [{ keys: [], own: columns }];
  const keys: Column[] = [];
  let keyWidth = 0;
  for (const col of columns) {
    if (col.right || keys.length === columns.length - 1 || keyWidth + col.width > CONTENT_W / 3) break;
    keys.push(col);
    keyWidth += col.width;
  }
  if (keys.length === 0) {
    keys.push(columns[0]);
    keyWidth = columns[0].width;
  }
  const out: Band[] = [];
  let own: Column[] = [];
  let used = keyWidth;
  for (const col of columns.slice(keys.length)) {
    if (own.length > 0 && used + col.width > CONTENT_W) {
      out.push({ keys, own });
      own = [];
      used = keyWidth;
    }
    own.push(col);
    used += col.width;
  }
  out.push({ keys, own });
  return out;
}

export function imageObject(chart: Raster): PdfObject {
  // The raster is opaque (drawn on white): its RGBA becomes RGB.
  const rgbBytes = Buffer.alloc(chart.width * chart.height * 3);
  for (let p = 0, q = 0; p < chart.rgba.length; p += 4, q += 3) {
    rgbBytes[q] = chart.rgba[p];
    rgbBytes[q + 1] = chart.rgba[p + 1];
    rgbBytes[q + 2] = chart.rgba[p + 2];
  }
  return {
    dict: `<< /Type /XObject /Subtype /Image /Width ${chart.width} /Height ${chart.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 >>`,
    stream: rgbBytes,
  };
}

export function insightPdf(insight: InsightData, chart: Raster, table: Table): Uint8Array {
  const rows = table.rows.map((r) => r.map((c) => pdfCell(c, insight.timezone)));
  const numeric = table.header.map((_, i) => table.rows.some((r) => typeof r[i] === 'number') && table.rows.every((r) => r[i] === null || typeof r[i] === 'number'));
  const columnBands = bands(measureColumns(table.header, rows, numeric));

  const pages: string[][] = [];
  let ops: string[] = [];
  pages.push(ops);
  const imageH = (CONTENT_W * chart.height) / chart.width;
  let y = PAGE_H - MARGIN - imageH;
  ops.push(`q ${num(CONTENT_W)} 0 0 ${num(imageH)} ${MARGIN} ${num(y)} cm /Im1 Do Q`);
  y -= 22;

  const newPage = () => {
    ops = [];
    pages.push(ops);
    y = PAGE_H - MARGIN;
  };
  const header = (band: Column[]) => {
    let x = MARGIN;
    const width = band.reduce((s, c) => s + c.width, 0);
    ops.push(rect(MARGIN, y - ROW_H, width, ROW_H, HEADER_FILL));
    for (const col of band) {
      const bytes = fitText(table.header[col.index], 'bold', FONT_SIZE, col.width - 2 * PAD);
      const tx = col.right ? x + col.width - PAD - textWidth(bytes, 'bold', FONT_SIZE) : x + PAD;
      ops.push(text(tx, y - ROW_H + 4.5, bytes, 'bold', FONT_SIZE, INK));
      x += col.width;
    }
    y -= ROW_H;
  };

  const bandHeight = 18 + ROW_H * (rows.length + 1);
  columnBands.forEach(({ keys, own }) => {
    const band = [...keys, ...own];
    // A band starts where its title, header and a couple of rows fit, and on a new page
    // when it fits there whole but not here.
    const room = y - MARGIN;
    if (room < 18 + 3 * ROW_H || (room < bandHeight && bandHeight <= PAGE_H - 2 * MARGIN)) newPage();
    const from = keys.length > 0 && own[0].index > keys.length ? own[0].index + 1 : 1;
    const range = columnBands.length > 1 ? ` (columns ${from}–${own[own.length - 1].index + 1} of ${table.header.length})` : '';
    ops.push(text(MARGIN, y - 11, winAnsi(`Values${range}`), 'bold', 11, INK));
    y -= 18;
    header(band);
    const width = band.reduce((s, c) => s + c.width, 0);
    rows.forEach((cells, r) => {
      if (y - ROW_H < MARGIN) {
        newPage();
        header(band);
      }
      if (r % 2 === 1) ops.push(rect(MARGIN, y - ROW_H, width, ROW_H, STRIPE_FILL));
      let x = MARGIN;
      for (const col of band) {
        const bytes = fitText(cells[col.index], 'regular', FONT_SIZE, col.width - 2 * PAD);
        const tx = col.right ? x + col.width - PAD - textWidth(bytes, 'regular', FONT_SIZE) : x + PAD;
        ops.push(text(tx, y - ROW_H + 4.5, bytes, 'regular', FONT_SIZE, INK));
        x += col.width;
      }
      ops.push(line(MARGIN, y - ROW_H, MARGIN + width, y - ROW_H, RULE));
      y -= ROW_H;
    });
    y -= 14;
  });

  const name = insight.name || 'Untitled insight';
  pages.forEach((page, i) => {
    const footer = winAnsi(`${name} · page ${i + 1} of ${pages.length}`);
    page.push(text(PAGE_W - MARGIN - textWidth(footer, 'regular', 7), FOOTER_Y, footer, 'regular', 7, MUTED));
  });

  // 1 catalog, 2 page tree, 3–4 fonts, 5 image, 6 info, then a page and its content each.
  const firstPage = 7;
  const kids = pages.map((_, i) => ref(firstPage + 2 * i)).join(' ');
  const objects: PdfObject[] = [
    { dict: `<< /Type /Catalog /Pages ${ref(2)} >>` },
    { dict: `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>` },
    { dict: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>' },
    { dict: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>' },
    imageObject(chart),
    { dict: `<< /Title ${textString(name)} /Producer (hedgerow) >>` },
  ];
  pages.forEach((page, i) => {
    objects.push({
      dict: `<< /Type /Page /Parent ${ref(2)} /MediaBox [0 0 ${PAGE_W} ${PAGE_H}] ` +
        `/Resources << /Font << /F1 ${ref(3)} /F2 ${ref(4)} >> /XObject << /Im1 ${ref(5)} >> >> /Contents ${ref(firstPage + 2 * i + 1)} >>`,
    });
    objects.push({ dict: '<< >>', stream: Buffer.from(page.join('\n'), 'latin1') });
  });
  return pdfFile(objects, 1, 6);
}
