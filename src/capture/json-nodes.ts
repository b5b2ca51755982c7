// The objects and arrays of a JSON text, counted before it is parsed. JSON.parse holds
// 56–80 bytes of heap per object (more with their properties), so 20 MB of `{},` is 7
// million objects and about 700 MB of memory, and takes seconds: capture refuses a
// body with more than its bound before parsing it (docs/decisions/0029). A bracket
// inside a string is not counted; the text need not be valid JSON (JSON.parse judges
// that afterwards).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

// True when `text` opens more than `max` objects and arrays.
export function exceedsJsonNodes(text: Uint8Array, max: number): boolean {
  let nodes = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text[i];
    if (c === QUOTE) {
      // Skip the string: to its closing quote, past escaped characters.
      for (i++; i < n; i++) {
        const s = text[i];
        if (s === QUOTE) break;
        if (s === BACKSLASH) i++;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++nodes > max) return true;
    }
  }
  return false;
}
