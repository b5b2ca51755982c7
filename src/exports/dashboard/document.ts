// The dashboard as a PDF (beyond PostHog, which exports dashboards only as pictures): a
// title page (name, description, when computed, and the tiles with the page each is on), then
// one A4 landscape page per tile in the dashboard's order: an insight's chart as its PNG
// export draws it (at 1.5 × for print), a text card's text, or why a tile has no results.
import { chartOption } from '../chart/option.js';
import { optionToSvg, svgToPixels, type Raster } from '../chart/draw.js';
import { imageObject } from '../pdf/document.js';
import { textWidth, winAnsi, type Face } from '../pdf/fonts.js';
import { literal, pdfFile, ref, textString, type PdfObject } from '../pdf/writer.js';
import { localTime, plainLines, wrap } from './text.js';
import type { DashboardData, DashboardTileData } from './types.js';

const PAGE_W = 842;
const PAGE_H = 595;
const MARGIN = 40;
const CONTENT_W = PAGE_W - 2 * MARGIN;
const ZOOM = 1.5;

type Rgb = [number, number, number];
const INK: Rgb = [0.12, 0.14, 0.16];
const MUTED: Rgb = [0.4, 0.43, 0.46];

const num = (n: number) => String(Math.round(n * 100) / 100);

interface Page {
  ops: string[];
  image: Raster | null;
}

function show(ops: string[], x: number, y: number, s: string, face: Face, size: number, color: Rgb): void {
  ops.push(`BT /${face === 'bold' ? 'F2' : 'F1'} ${num(size)} Tf ${color.map(num).join(' ')} rg ${num(x)} ${num(y)} Td ${literal(winAnsi(s))} Tj ET`);
}

// Wrapped lines from `y` down, stopping above the bottom margin; returns the next y.
function paragraph(ops: string[], lines: string[], y: number, face: Face, size: number, color: Rgb): number {
  const lead = size * 1.4;
  for (const line of wrap(lines, CONTENT_W, (s) => textWidth(winAnsi(s), face, size))) {
    if (y - lead < MARGIN + 20) break;
    y -= lead;
    show(ops, MARGIN, y, line, face, size, color);
  }
  return y;
}

const tileTitle = (t: DashboardTileData) => (t.text !== null ? plainLines(t.text).find((l) => l.trim() !== '')?.trim() || 'Text' : t.insight?.name || 'Insight');

function titlePage(d: DashboardData): Page {
  const ops: string[] = [];
  let y = paragraph(ops, [d.name], PAGE_H - 150, 'bold', 28, INK);
  if (d.description.trim() !== '') y = paragraph(ops, plainLines(d.description), y - 6, 'regular', 12, MUTED);
  const count = d.tiles.length;
  y = paragraph(ops, [`${count} tile${count === 1 ? '' : 's'} · computed ${localTime(d.computedAt, d.timezone)} (${d.timezone})`], y - 6, 'regular', 10, MUTED);
  y -= 18;
  d.tiles.forEach((t, i) => {
    if (y - 16 < MARGIN + 20) return;
    y -= 16;
    show(ops, MARGIN, y, `${i + 2}`, 'regular', 10, MUTED);
    show(ops, MARGIN + 30, y, tileTitle(t).slice(0, 120), 'regular', 10, INK);
  });
  return { ops, image: null };
}

function tilePage(t: DashboardTileData): Page {
  const ops: string[] = [];
  if (t.text !== null) {
    paragraph(ops, plainLines(t.text), PAGE_H - MARGIN, 'regular', 12, INK);
    return { ops, image: null };
  }
  if (t.insight === null || t.error !== null) {
    const y = paragraph(ops, [t.insight?.name ?? 'Insight'], PAGE_H - MARGIN, 'bold', 16, INK);
    paragraph(ops, [t.error ?? 'No results.'], y - 6, 'regular', 11, MUTED);
    return { ops, image: null };
  }
  const image = svgToPixels(optionToSvg(chartOption(t.insight)), ZOOM);
  const room = PAGE_H - 2 * MARGIN - 20;
  const scale = Math.min(CONTENT_W / image.width, room / image.height);
  const w = image.width * scale;
  const h = image.height * scale;
  ops.push(`q ${num(w)} 0 0 ${num(h)} ${num(MARGIN + (CONTENT_W - w) / 2)} ${num(PAGE_H - MARGIN - h)} cm /Im1 Do Q`);
  return { ops, image };
}

export function dashboardPdf(d: DashboardData): Uint8Array {
  const pages = [titlePage(d), ...d.tiles.map(tilePage)];
  pages.forEach((page, i) => {
    const footer = `${d.name} · page ${i + 1} of ${pages.length}`;
    show(page.ops, PAGE_W - MARGIN - textWidth(winAnsi(footer), 'regular', 7), 20, footer, 'regular', 7, MUTED);
  });
  // 1 catalog, 2 page tree, 3–4 fonts, 5 info, then per page: the page, its content, its image.
  const objects: PdfObject[] = [];
  const pageRefs: number[] = [];
  const pageObjects: PdfObject[] = [];
  let next = 6;
  for (const page of pages) {
    const pageNo = next;
    const contentNo = next + 1;
    const imageNo = page.image ? next + 2 : null;
    next += page.image ? 3 : 2;
    pageRefs.push(pageNo);
    const xobject = imageNo === null ? '' : ` /XObject << /Im1 ${ref(imageNo)} >>`;
    pageObjects.push({
      dict: `<< /Type /Page /Parent ${ref(2)} /MediaBox [0 0 ${PAGE_W} ${PAGE_H}] /Resources << /Font << /F1 ${ref(3)} /F2 ${ref(4)} >>${xobject} >> /Contents ${ref(contentNo)} >>`,
    });
    pageObjects.push({ dict: '<< >>', stream: Buffer.from(page.ops.join('\n'), 'latin1') });
    if (page.image) pageObjects.push(imageObject(page.image));
  }
  objects.push(
    { dict: `<< /Type /Catalog /Pages ${ref(2)} >>` },
    { dict: `<< /Type /Pages /Kids [${pageRefs.map(ref).join(' ')}] /Count ${pages.length} >>` },
    { dict: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>' },
    { dict: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>' },
    { dict: `<< /Title ${textString(d.name)} /Producer (hedgerow) >>` },
    ...pageObjects,
  );
  return pdfFile(objects, 1, 5);
}
