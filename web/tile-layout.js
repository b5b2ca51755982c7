// Moving and resizing a dashboard's tiles on the 12-column grid (pure): a step at a time,
// kept on the grid, and tiles the changed one now covers pushed down below it, as PostHog's
// grid pushes them.
const COLUMNS = 12;

const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

// Each step: [dx, dy, dw, dh].
export const STEPS = {
  left: [-1, 0, 0, 0], right: [1, 0, 0, 0], up: [0, -1, 0, 0], down: [0, 1, 0, 0],
  narrower: [0, 0, -1, 0], wider: [0, 0, 1, 0], shorter: [0, 0, 0, -1], taller: [0, 0, 0, 1],
};

// The boxes with box `i` stepped; the others, in reading order, moved down out of its way
// and out of the way of those moved before them.
export function stepped(boxes, i, step) {
  const [dx, dy, dw, dh] = STEPS[step];
  const b = boxes[i];
  const w = Math.min(COLUMNS, Math.max(1, b.w + dw));
  const next = { x: Math.min(COLUMNS - w, Math.max(0, b.x + dx)), y: Math.max(0, b.y + dy), w, h: Math.min(100, Math.max(1, b.h + dh)) };
  const out = boxes.map((x, j) => (j === i ? next : { ...x }));
  // The others in reading order, each below whatever placed tile it would cover.
  const placed = [next];
  const rest = out.map((_, j) => j).filter((j) => j !== i).sort((a, b) => out[a].y - out[b].y || out[a].x - out[b].x);
  for (const j of rest) {
    const box = out[j];
    for (let hit = placed.filter((p) => overlaps(p, box)); hit.length > 0; hit = placed.filter((p) => overlaps(p, box))) {
      box.y = Math.max(...hit.map((p) => p.y + p.h));
    }
    placed.push(box);
  }
  return out;
}

// What a keyboard key does to a focused tile: arrows move it, Shift+arrows resize it.
export function keyStep(key, shift) {
  const moves = shift
    ? { ArrowLeft: 'narrower', ArrowRight: 'wider', ArrowUp: 'shorter', ArrowDown: 'taller' }
    : { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };
  return moves[key] ?? null;
}

// The tiles' `layouts` with their new `sm` boxes (PostHog's shape; other breakpoints kept).
export const layoutsOf = (tile, box) => ({ ...(tile.layouts ?? {}), sm: { x: box.x, y: box.y, w: box.w, h: box.h } });
