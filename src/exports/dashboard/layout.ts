// Where each tile goes on the dashboard's picture (pure): PostHog's grid, 12 columns of the
// `sm` breakpoint, rows of a fixed height, gaps between. Tiles without a usable layout (an
// insight added through its `dashboards` has none) follow the laid-out ones two to a row at
// PostHog's default size (6 × 5), as its frontend places new tiles.
import type { DashboardTileData, GridBox } from './types.js';

export const CANVAS_WIDTH = 1920;
export const PADDING = 32;
export const GAP = 16;
export const ROW_HEIGHT = 80;
export const COLUMNS = 12;
const DEFAULT_W = 6;
const DEFAULT_H = 5;

export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

const COLUMN_WIDTH = (CANVAS_WIDTH - 2 * PADDING - (COLUMNS - 1) * GAP) / COLUMNS;

const whole = (v: unknown, min: number, max: number): number | null =>
  (typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(min, Math.round(v))) : null);

// A stored `layouts.sm` as a grid box, or null when it lacks a coordinate.
export function gridBox(layouts: Record<string, unknown>): GridBox | null {
  const sm = layouts.sm;
  if (typeof sm !== 'object' || sm === null) return null;
  const l = sm as Record<string, unknown>;
  const x = whole(l.x, 0, COLUMNS - 1);
  const y = whole(l.y, 0, 10_000);
  if (x === null || y === null) return null;
  const w = Math.min(COLUMNS - x, whole(l.w, 1, COLUMNS) ?? DEFAULT_W);
  return { x, y, w, h: whole(l.h, 1, 100) ?? DEFAULT_H };
}

// Every tile's grid box: its own, or the next free place after the laid-out ones.
export function gridBoxes(tiles: readonly DashboardTileData[]): GridBox[] {
  let bottom = 0;
  for (const t of tiles) if (t.layout) bottom = Math.max(bottom, t.layout.y + t.layout.h);
  let free = 0;
  return tiles.map((t) => {
    if (t.layout) return t.layout;
    const box = { x: (free % 2) * DEFAULT_W, y: bottom + Math.floor(free / 2) * DEFAULT_H, w: DEFAULT_W, h: DEFAULT_H };
    free++;
    return box;
  });
}

// Grid units to pixels below `top`; returns the boxes and the canvas height they need.
export function pixelBoxes(boxes: readonly GridBox[], top: number): { boxes: PixelBox[]; height: number } {
  let height = top;
  const out = boxes.map((b) => {
    const box = {
      x: PADDING + b.x * (COLUMN_WIDTH + GAP),
      y: top + b.y * (ROW_HEIGHT + GAP),
      width: b.w * COLUMN_WIDTH + (b.w - 1) * GAP,
      height: b.h * ROW_HEIGHT + (b.h - 1) * GAP,
    };
    height = Math.max(height, box.y + box.height);
    return box;
  });
  return { boxes: out, height: height + PADDING };
}
