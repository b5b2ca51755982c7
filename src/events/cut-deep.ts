// JSON values nested deeper than the encoders' stacks allow (the event store's msgpack
// and JSON.stringify recurse) are cut: what lies below `levels` becomes null.
export function cutDeepValues(value: unknown, levels: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (levels === 0) return null;
  if (Array.isArray(value)) return value.map((v) => cutDeepValues(v, levels - 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = cutDeepValues((value as Record<string, unknown>)[key], levels - 1);
  return out;
}
