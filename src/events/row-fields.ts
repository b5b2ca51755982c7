// Where an event row's top-level values lie in its bytes, found by key without decoding the
// row: the insights loader copies the fields it stages straight from them (its properties as
// JSON: src/insights/columnar/json-bytes.ts). The row is a msgpack map with string keys
// (tables.ts: plain maps); anything else (a row written with records before plain maps) is
// not read here, and the caller decodes the row whole.
import { skipValue } from './row-person.js';

function u16(b: Uint8Array, at: number): number {
  return (b[at] << 8) | b[at + 1];
}

function u32(b: Uint8Array, at: number): number {
  return ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];
}

/**
 * For each of `names` (UTF-8 key bytes), the [start, end) of its value in `b` at
 * ranges[2i], ranges[2i + 1], or -1 and -1 when the row has no such key. False when `b` is
 * not a map with string keys whose values end inside it.
 */
export function rowValueRanges(b: Uint8Array, names: readonly Uint8Array[], ranges: Int32Array): boolean {
  ranges.fill(-1);
  const t = b[0];
  let pairs: number;
  let at: number;
  if (t >= 0x80 && t < 0x90) (pairs = t & 0x0f), (at = 1);
  else if (t === 0xde) (pairs = u16(b, 1)), (at = 3);
  else if (t === 0xdf) (pairs = u32(b, 1)), (at = 5);
  else return false;
  for (let i = 0; i < pairs; i++) {
    const k = b[at];
    let length: number;
    if (k >= 0xa0 && k < 0xc0) (length = k & 0x1f), (at += 1);
    else if (k === 0xd9) (length = b[at + 1]), (at += 2);
    else return false;
    let which = -1;
    for (let n = 0; n < names.length && which < 0; n++) {
      const name = names[n];
      if (name.length !== length) continue;
      let same = true;
      for (let j = 0; j < length && same; j++) same = b[at + j] === name[j];
      if (same) which = n;
    }
    at += length;
    const end = skipValue(b, at);
    if (end < 0 || end > b.length) return false;
    if (which >= 0) {
      ranges[2 * which] = at;
      ranges[2 * which + 1] = end;
    }
    at = end;
  }
  return true;
}
