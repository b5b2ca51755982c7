// What a Hog value, or the value a library function is about to build, costs: measured
// before the allocation is made, so a program cannot make one the bounds refuse.
// Two measures: `vm`, the VM's own cost model (8 bytes a unit plus the characters of
// strings, as @posthog/hogvm's calculateCost counts the stack against its memory limit),
// and `heap`, what V8 really spends while building it (a Map holds about 190 bytes before
// its first entry; printing a string splits it into an array of one-character strings).
// Arrays are counted by their length, holes included: `a[100000000] := 1` makes a sparse
// array the VM counts as one element, but copying, printing or listing it fills every hole.
// Each walk stops as soon as it passes `stopAt`, so it costs at most about stopAt / 8 steps.

export const UNIT = 8;
// V8's heap for one empty Map (JSON objects become Maps), one JSON array, one plain object
// made from a Map by jsonStringify: measured on Node 20, rounded up.
const MAP_BYTES = 192;
export const ARRAY_BYTES = 32;
export const OBJECT_BYTES = 64;
// What printing spends per value beside the text: the piece's own string and its slot in
// the arrays map() and join() go through.
const PRINT_PIECE_BYTES = 48;
// Printing a nested string splits it into characters (a pointer each), maps them and joins.
const PRINT_BYTES_PER_QUOTED_CHAR = 17;

export interface Cost {
  vm: number;
  heap: number;
}

const isMap = (v: unknown): v is Map<unknown, unknown> => v instanceof Map;

/** The VM's cost of `value`, arrays counted by length; stops past `stopAt`. */
export function vmCost(value: unknown, stopAt: number): number {
  let total = 0;
  const path = new Set<object>();
  const walk = (v: unknown): void => {
    if (total > stopAt) return;
    if (typeof v === 'string') {
      total += UNIT + v.length;
      return;
    }
    if (typeof v !== 'object' || v === null) {
      total += UNIT;
      return;
    }
    total += UNIT;
    if (path.has(v)) return;
    path.add(v);
    if (Array.isArray(v)) {
      if (total + v.length * UNIT > stopAt) total += v.length * UNIT;
      else for (let i = 0; i < v.length && total <= stopAt; i++) walk(v[i]);
    } else if (isMap(v)) {
      for (const [k, x] of v) {
        if (total > stopAt) break;
        walk(k);
        walk(x);
      }
    } else {
      for (const k of Object.keys(v)) {
        if (total > stopAt) break;
        total += UNIT + k.length;
        walk((v as Record<string, unknown>)[k]);
      }
    }
    path.delete(v);
  };
  walk(value);
  return total;
}

/** Heap a copy of `value`'s arrays and maps would take (what converting or cloning it costs). */
export function copyHeap(value: unknown, stopAt: number): number {
  let total = 0;
  const path = new Set<object>();
  const walk = (v: unknown): void => {
    if (total > stopAt) return;
    if (typeof v === 'string') {
      total += v.length * 2;
      return;
    }
    if (typeof v !== 'object' || v === null || path.has(v)) {
      total += UNIT;
      return;
    }
    path.add(v);
    if (Array.isArray(v)) {
      total += ARRAY_BYTES + v.length * UNIT;
      if (total <= stopAt) for (let i = 0; i < v.length && total <= stopAt; i++) walk(v[i]);
    } else if (isMap(v)) {
      total += MAP_BYTES;
      for (const [k, x] of v) {
        if (total > stopAt) break;
        total += 3 * UNIT;
        walk(k);
        walk(x);
      }
    } else {
      total += OBJECT_BYTES;
      for (const k of Object.keys(v)) {
        if (total > stopAt) break;
        total += 3 * UNIT + k.length * 2;
        walk((v as Record<string, unknown>)[k]);
      }
    }
    path.delete(v);
  };
  walk(value);
  return total;
}

function digits(n: number): number {
  if (!Number.isFinite(n) || !Number.isInteger(n) || Math.abs(n) >= 1e15) return 24;
  const a = Math.abs(n);
  return (a < 10 ? 1 : Math.floor(Math.log10(a)) + 1) + (n < 0 ? 1 : 0);
}

export interface PrintCost {
  chars: number;
  heap: number;
  // Values printed and how deep they nest (jsonStringify's indentation repeats per level).
  nodes: number;
  depth: number;
}

/**
 * Upper bounds of the text printing `value` makes (print(), toString(), concat() and
 * jsonStringify() print alike, up to quoting) and of the heap that costs. A string inside
 * a collection (or at the top when `topQuoted`) is printed quoted and escaped: at most
 * `escapeFactor` characters per character (2 for Hog's `\n`, 6 for JSON's `\u001f`).
 */
export function printCost(value: unknown, stopAt: number, topQuoted = false, escapeFactor = 2): PrintCost {
  let chars = 0;
  let heap = 0;
  let nodes = 0;
  let depth = 0;
  const path = new Set<object>();
  const over = () => chars > stopAt || heap > stopAt;
  const walk = (v: unknown, quoted: boolean, level: number): void => {
    if (over()) return;
    nodes++;
    if (level > depth) depth = level;
    heap += PRINT_PIECE_BYTES;
    if (typeof v === 'string') {
      if (quoted) {
        chars += v.length * escapeFactor + 2;
        heap += v.length * PRINT_BYTES_PER_QUOTED_CHAR;
      } else {
        chars += v.length;
      }
      return;
    }
    if (typeof v === 'number') {
      chars += digits(v);
      return;
    }
    if (typeof v !== 'object' || v === null || path.has(v)) {
      chars += 5;
      return;
    }
    path.add(v);
    chars += 2;
    if (Array.isArray(v)) {
      chars += v.length * 2;
      heap += v.length * 3 * UNIT;
      for (let i = 0; i < v.length && !over(); i++) walk(v[i], true, level + 1);
    } else {
      const entries: Iterable<[unknown, unknown]> = isMap(v) ? v : Object.entries(v as Record<string, unknown>);
      for (const [k, x] of entries) {
        if (over()) break;
        chars += 4;
        heap += 6 * UNIT;
        walk(k, true, level + 1);
        walk(x, true, level + 1);
      }
    }
    path.delete(v);
  };
  walk(value, topQuoted, 0);
  return { chars, heap: heap + chars * 2, nodes, depth };
}

/**
 * What JSON.parse of `text` and its conversion to Hog values (objects become Maps) will
 * cost, counted from the text in one pass: each object, array and scalar it holds and
 * the characters of its strings.
 */
export function jsonTextCost(text: string): Cost {
  let objects = 0;
  let arrays = 0;
  let values = 0;
  let stringChars = 0;
  let inString = false;
  let scalar = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      else stringChars++;
      continue;
    }
    if (c === 34) {
      inString = true;
      values++;
      scalar = false;
    } else if (c === 123 /* { */) {
      objects++;
      scalar = false;
    } else if (c === 91 /* [ */) {
      arrays++;
      scalar = false;
    } else if (c === 44 /* , */ || c === 58 /* : */ || c === 125 || c === 93 || c <= 32) {
      scalar = false;
    } else if (!scalar) {
      scalar = true;
      values++;
    }
  }
  const nodes = objects + arrays + values;
  return {
    vm: nodes * UNIT + stringChars,
    // JSON.parse's objects, then the Maps they become; arrays twice (parsed, then mapped).
    heap: objects * (MAP_BYTES + OBJECT_BYTES) + arrays * 2 * ARRAY_BYTES + nodes * 2 * UNIT + stringChars * 2,
  };
}

/** Occurrences of `needle` in `hay` as String.prototype.replaceAll counts them (an empty needle matches len + 1 times). */
export function occurrences(hay: string, needle: string, atMost = Infinity): number {
  if (needle.length === 0) return Math.min(hay.length + 1, atMost);
  let n = 0;
  for (let at = hay.indexOf(needle); at !== -1 && n < atMost; at = hay.indexOf(needle, at + needle.length)) n++;
  return n;
}

const UNRESERVED = new Set([..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()"].map((c) => c.charCodeAt(0)));

/** The length of encodeURIComponent(text), from its characters. */
export function urlEncodedLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += UNRESERVED.has(c) ? 1 : 3;
    else if (c < 0x800) n += 6;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 12;
      i++;
    } else n += 9;
  }
  return n;
}

/** Whether `text` holds a character outside ASCII (case mapping may lengthen those up to three times). */
export function hasNonAscii(text: string): boolean {
  return /[^\x00-\x7f]/.test(text);
}
