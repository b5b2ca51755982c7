// An invocation's inputs often hold the event's shared globals themselves: the webhook
// template's default body is `{'event': '{event}', 'person': '{person}'}`, and a template
// input reads a global by reference (src/hog/evaluate-inputs.ts). Packed as they are, the
// event and person went into an event's pack twice, once in its context and once in each
// such invocation's inputs: for a webhook of every event, half of the pack's bytes and of
// its serialization. Here the inputs are packed with those values left out and a path to
// each, which the reader fills from the globals it rebuilds from the context.

type Path = (string | number)[];
// Where in the inputs (from their root), and which shared global (a path into the globals).
export type SharedRef = [at: Path, global: Path];

// The globals an input may hold by reference, as paths into the invocation globals.
const SHARED: readonly Path[] = [['event'], ['event', 'properties'], ['person'], ['person', 'properties'], ['groups'], ['project']];
// Deeper values are packed as they are (no template nests a global deeper than this).
const MAX_DEPTH = 8;

const read = (root: unknown, path: Path): unknown => {
  let v = root;
  for (const step of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[step];
  }
  return v;
};

function plain(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * `value` without the shared globals it holds by reference (each left as null), and where
 * they were; null when it holds none (pack it as it is). `value` itself is not changed: the
 * objects on the way to a shared global are copied, the rest kept.
 */
export function withoutShared(value: unknown, globals: Record<string, unknown>): { skeleton: unknown; refs: SharedRef[] } | null {
  const shared = new Map<unknown, Path>();
  for (const path of SHARED) {
    const v = read(globals, path);
    if (typeof v === 'object' && v !== null && !shared.has(v)) shared.set(v, path);
  }
  if (shared.size === 0) return null;
  const refs: SharedRef[] = [];
  const at: Path = [];
  const strip = (v: unknown, depth: number): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const global = shared.get(v);
    if (global !== undefined) {
      refs.push([[...at], global]);
      return null;
    }
    if (depth >= MAX_DEPTH || !plain(v)) return v;
    let copy: Record<string | number, unknown> | unknown[] | null = null;
    const source = v as Record<string | number, unknown>;
    const keys: (string | number)[] = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
    for (const key of keys) {
      const child = source[key];
      at.push(key);
      const out = strip(child, depth + 1);
      at.pop();
      if (out !== child) {
        copy ??= Array.isArray(v) ? [...v] : { ...source };
        (copy as Record<string | number, unknown>)[key] = out;
      }
    }
    return copy ?? v;
  };
  const skeleton = strip(value, 0);
  return refs.length === 0 ? null : { skeleton, refs };
}

/** Puts the shared globals back where withoutShared took them from (in place; `skeleton` is a fresh unpack). */
export function withShared(skeleton: unknown, refs: readonly SharedRef[], globals: Record<string, unknown>): unknown {
  let root = skeleton;
  for (const [at, global] of refs) {
    const value = read(globals, global);
    if (at.length === 0) {
      root = value;
      continue;
    }
    const parent = read(root, at.slice(0, -1)) as Record<string | number, unknown>;
    parent[at[at.length - 1]] = value;
  }
  return root;
}
