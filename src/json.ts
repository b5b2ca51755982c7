// JSON values as clients send them: the one test for "a JSON object" (not null, not an
// array), shared by capture, /decide, the flag and cohort APIs and person processing.
export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

// How far a parsed JSON value reaches. JSON.parse reads any depth, but structured clone
// (to a worker), msgpackr (to LMDB), JSON.stringify and every recursive check after it
// overflow the stack somewhere past a few thousand levels; callers refuse what is
// deeper than they allow before any of those see it.
export const TOO_DEEP = -1;

// The walk's stack, reused by every walk (no allocation per call; an array emptied by
// `length = 0` would drop its backing store and allocate it again at the next push).
// Slots are set to null as they are taken, so it keeps no request's objects alive.
const pending: (object | null)[] = [];
const pendingLevels: number[] = [];

function endWalk(top: number, result: number): number {
  for (let i = 0; i < top; i++) pending[i] = null;
  return result;
}

/**
 * The number of values `value` holds (members of its objects and elements of its
 * arrays, at every level), or TOO_DEEP when objects and arrays nest more than `levels`
 * deep (`value` itself is level 1). Iterative, so any depth is walked without
 * recursion; it stops as soon as the count passes `maxValues` or a level passes
 * `levels`, so its cost is bounded by those, not by the input.
 */
export function measureJson(value: unknown, levels: number, maxValues = Infinity): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (levels < 1) return TOO_DEEP;
  let count = 0;
  let top = 0;
  pending[top] = value;
  pendingLevels[top++] = 1;
  while (top > 0) {
    const v = pending[--top] as Record<string, unknown>;
    pending[top] = null;
    const below = pendingLevels[top] + 1;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (++count > maxValues) return endWalk(top, count);
        const child: unknown = v[i];
        if (typeof child !== 'object' || child === null) continue;
        if (below > levels) return endWalk(top, TOO_DEEP);
        pending[top] = child;
        pendingLevels[top++] = below;
      }
      continue;
    }
    for (const key in v) {
      if (++count > maxValues) return endWalk(top, count);
      const child = v[key];
      if (typeof child !== 'object' || child === null) continue;
      if (below > levels) return endWalk(top, TOO_DEEP);
      pending[top] = child;
      pendingLevels[top++] = below;
    }
  }
  return count;
}
