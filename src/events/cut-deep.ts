// JSON values nested deeper than every reader can take are cut. JSON.parse reads any
// depth, but the encoders and decoders after it recurse: the consumer thread's larger
// stack stored 5,000 levels that then failed every events API read in the main thread.
export const MAX_VALUE_LEVELS = 100;

// Whether `value` has anything below `levels` levels. Allocates nothing: it runs on
// every event.
export function nestedDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestedDeeperThan(value[i], levels - 1)) return true;
    return false;
  }
  for (const key in value) if (nestedDeeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  return false;
}

// A copy of `value` in which what lies below `levels` levels is null.
export function cutDeepValues(value: unknown, levels: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (levels === 0) return null;
  if (Array.isArray(value)) return value.map((v) => cutDeepValues(v, levels - 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = cutDeepValues((value as Record<string, unknown>)[key], levels - 1);
  return out;
}
