// The dashboard as one picture (PNG): its name and description above PostHog's grid, each
// insight tile the chart its PNG export draws (../chart/), scaled into the tile's box; text
// cards as their text; a tile whose query failed says why. One SVG, rasterized once.
import { chartOption } from '../chart/option.js';
import { optionToSvg, svgToPng } from '../chart/draw.js';
import { FONT_FAMILY, fontMetrics } from '../chart/fonts.js';
import { FAINT, HEIGHT, INK, MUTED, RULE, WIDTH } from '../chart/theme.js';
import { CANVAS_WIDTH, gridBoxes, PADDING, pixelBoxes, type PixelBox } from './layout.js';
import { localTime, plainLines, wrap } from './text.js';
import type { DashboardData, DashboardTileData } from './types.js';

const INSET = 10;
// The tallest picture drawn (about 40 rows of tiles): 1920 × 16,000 px is some 120 MB of
// pixels in the export worker. Tiles below are left out, and the picture says so.
export const MAX_HEIGHT = 16_000;
const NOTE_HEIGHT = 40;
const TEXT_SIZE = 16;
const LINE = 22;

const escapeXml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const n = (v: number) => String(Math.round(v * 10) / 10);

function textLine(x: number, y: number, text: string, size: number, color: string, bold = false): string {
  return `<text x="${n(x)}" y="${n(y)}" font-family="${FONT_FAMILY}" font-size="${size}"${bold ? ' font-weight="bold"' : ''} fill="${color}">${escapeXml(text)}</text>`;
}

// Lines that fit `width`, at most as many as fit `height` (the last one ends in "…" when cut).
function block(box: PixelBox, lines: string[], size: number, color: string, bold = false): string {
  const face = bold ? fontMetrics().bold : fontMetrics().regular;
  const wrapped = wrap(lines, box.width, (s) => face.width(s, size));
  const room = Math.max(1, Math.floor(box.height / LINE));
  const shown = wrapped.slice(0, room);
  if (wrapped.length > room) shown[room - 1] = `${shown[room - 1].replace(/.$/, '')}…`;
  return shown.map((line, i) => textLine(box.x, box.y + size + i * LINE, line, size, color, bold)).join('');
}

// The chart's SVG placed in the box: its ids and classes made unique to the tile (each chart
// names its own from the same counter's start), its aspect kept.
function nestedChart(svg: string, index: number, box: PixelBox): string {
  const unique = svg.replace(/(["#.\s])zr(\d+)-/g, `$1t${index}z$2-`);
  return unique.replace(/^<svg\b[^>]*>/, `<svg x="${n(box.x)}" y="${n(box.y)}" width="${n(box.width)}" height="${n(box.height)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="xMidYMid meet">`);
}

function tileSvg(tile: DashboardTileData, index: number, box: PixelBox): string {
  const card = `<rect x="${n(box.x)}" y="${n(box.y)}" width="${n(box.width)}" height="${n(box.height)}" rx="8" fill="#ffffff" stroke="${RULE}" stroke-width="1.5"/>`;
  const inner = { x: box.x + INSET, y: box.y + INSET, width: box.width - 2 * INSET, height: box.height - 2 * INSET };
  if (tile.text !== null) return card + block(inner, plainLines(tile.text), TEXT_SIZE, INK);
  if (tile.insight === null || tile.error !== null) {
    const title = block({ ...inner, height: LINE }, [tile.insight?.name ?? 'Insight'], 18, INK, true);
    return card + title + block({ ...inner, y: inner.y + LINE + 8, height: inner.height - LINE - 8 }, [tile.error ?? 'No results.'], TEXT_SIZE, MUTED);
  }
  return card + nestedChart(optionToSvg(chartOption(tile.insight)), index, inner);
}

export function dashboardSvg(d: DashboardData): string {
  const width = CANVAS_WIDTH - 2 * PADDING;
  const parts: string[] = [block({ x: PADDING, y: PADDING - 4, width, height: 36 }, [d.name], 28, INK, true)];
  let top = PADDING + 40;
  if (d.description.trim() !== '') {
    parts.push(block({ x: PADDING, y: top, width, height: LINE }, [d.description.replace(/\s+/g, ' ')], 15, MUTED));
    top += LINE + 4;
  }
  const count = d.tiles.length;
  parts.push(block({ x: PADDING, y: top, width, height: LINE }, [`${count} tile${count === 1 ? '' : 's'} · computed ${localTime(d.computedAt, d.timezone)} (${d.timezone})`], 13, FAINT));
  top += LINE + 16;
  const { boxes, height } = pixelBoxes(gridBoxes(d.tiles), top);
  const fits = (i: number) => boxes[i].y + boxes[i].height <= MAX_HEIGHT - NOTE_HEIGHT - PADDING;
  let shown = 0;
  d.tiles.forEach((tile, i) => {
    if (!fits(i)) return;
    parts.push(tileSvg(tile, i, boxes[i]));
    shown++;
  });
  if (count === 0) parts.push(block({ x: PADDING, y: top, width, height: LINE }, ['This dashboard has no tiles.'], TEXT_SIZE, MUTED));
  let total = Math.ceil(Math.max(height, top + 2 * LINE));
  if (shown < count) {
    total = MAX_HEIGHT;
    parts.push(block({ x: PADDING, y: total - PADDING - NOTE_HEIGHT + 8, width, height: LINE },
      [`Showing ${shown} of ${count} tiles: the picture stops at ${MAX_HEIGHT.toLocaleString('en-US')} px. The PDF and JSON exports have them all.`], TEXT_SIZE, MUTED));
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${CANVAS_WIDTH}" height="${n(total)}" viewBox="0 0 ${CANVAS_WIDTH} ${n(total)}">` +
    `<rect width="100%" height="100%" fill="#f5f6f8"/>${parts.join('')}</svg>`;
}

export function dashboardPng(d: DashboardData): Uint8Array {
  return svgToPng(dashboardSvg(d));
}
