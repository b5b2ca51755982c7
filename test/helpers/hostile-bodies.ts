// Bodies of issue 13's hostile requests, for tests and bench/hostile.

// An lz64 body (LZ-string's base64 form) that expands to `codes` runs of one character,
// of lengths 1, 2, 3, …: about codes²/2 characters from a few bits per code, the shape of
// the bombs of issue 13. Written here from the format (src/capture/lz64.ts describes
// it); lz-string's own compressor would need the whole expanded text as input.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';

export function lz64Bomb(codes: number, char = 'a'): string {
  let out = '';
  let acc = 0;
  let filled = 0;
  const write = (value: number, width: number) => {
    for (let i = 0; i < width; i++, value >>>= 1) {
      acc = (acc << 1) | (value & 1);
      if (++filled === 6) { out += ALPHABET[acc]; acc = 0; filled = 0; }
    }
  };
  write(0, 2);
  write(char.charCodeAt(0), 8);
  let size = 4;
  let width = 3;
  let enlargeIn = 4;
  for (let k = 0; k < codes; k++) {
    // Always the entry being defined: the previous run plus one more character.
    write(size++, width);
    if (--enlargeIn === 0) { enlargeIn = 2 ** width; width++; }
  }
  write(2, width);
  if (filled > 0) write(0, 6 - filled);
  while (out.length % 4 !== 0) out += '=';
  return out;
}

// Characters the bomb expands to.
export const lz64BombSize = (codes: number) => 1 + ((codes + 1) * (codes + 2)) / 2 - 1;

// A JSON array of empty objects, `[{},{},…,{}]`, of at most `bytes` bytes: millions of
// objects for a parser to build from a few bytes each (and next to nothing gzipped).
export function emptyObjects(bytes: number): Buffer {
  const n = Math.floor((bytes - 1) / 3);
  const b = Buffer.allocUnsafe(3 * n + 1);
  b.fill('{},', 1);
  b[0] = 0x5b;
  b[3 * n] = 0x5d;
  return b;
}
