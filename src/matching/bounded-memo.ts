// Remembers what a parser made of each text, up to `limit` texts (then starts over):
// person properties repeat the same few dates and versions request after request, and
// parsing them costs more than the lookup. Results, undefined included, are remembered.
export function boundedMemo<T>(limit: number, parse: (text: string) => T): (text: string) => T {
  const parsed = new Map<string, T>();
  return (text) => {
    const hit = parsed.get(text);
    if (hit !== undefined || parsed.has(text)) return hit as T;
    if (parsed.size >= limit) parsed.clear();
    const value = parse(text);
    parsed.set(text, value);
    return value;
  };
}
