// Where an event row's top-level values lie in its bytes, found by key without decoding the
// row (msgpack's framing walked over the values): the insights loader copies the fields it
// stages straight from them (its properties as JSON: src/insights/columnar/json-bytes.ts),
// and the destinations decode just the row's person (./row-person.ts). The row is a msgpack map with string keys
// (tables.ts: plain maps); anything else (a row written with records before plain maps) is
// not read here, and the caller decodes the row whole.
// The offset just past the value that starts at `at`; -1 for a byte no msgpack value starts
// with (0xc1).
export function skipValue(b: Uint8Array, at: number): number {
  let pending = 1;
  while (pending > 0) {
    pending--;
    const t = b[at];
    if (t < 0x80 || t >= 0xe0) at += 1;
    else if (t < 0x90) (pending += 2 * (t & 0x0f)), (at += 1);
    else if (t < 0xa0) (pending += t & 0x0f), (at += 1);
    else if (t < 0xc0) at += 1 + (t & 0x1f);
    else {
      switch (t) {
        case 0xc0: case 0xc2: case 0xc3: at += 1; break;
        case 0xc4: case 0xd9: at += 2 + b[at + 1]; break;
        case 0xc5: case 0xda: at += 3 + u16(b, at + 1); break;
        case 0xc6: case 0xdb: at += 5 + u32(b, at + 1); break;
        case 0xc7: at += 3 + b[at + 1]; break;
        case 0xc8: at += 4 + u16(b, at + 1); break;
        case 0xc9: at += 6 + u32(b, at + 1); break;
        case 0xca: case 0xce: case 0xd2: at += 5; break;
        case 0xcb: case 0xcf: case 0xd3: at += 9; break;
        case 0xcc: case 0xd0: at += 2; break;
        case 0xcd: case 0xd1: at += 3; break;
        case 0xd4: at += 3; break;
        case 0xd5: at += 4; break;
        case 0xd6: at += 6; break;
        case 0xd7: at += 10; break;
        case 0xd8: at += 18; break;
        case 0xdc: pending += u16(b, at + 1); at += 3; break;
        case 0xdd: pending += u32(b, at + 1); at += 5; break;
        case 0xde: pending += 2 * u16(b, at + 1); at += 3; break;
        case 0xdf: pending += 2 * u32(b, at + 1); at += 5; break;
        default: return -1;
      }
    }
  }
  return at;
}

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
