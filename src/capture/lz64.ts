// posthog-js's `lz64` bodies: LZ-string's base64 form (what lz-string's
// compressToBase64 writes), decompressed with a cap. lz-string's own decompressor
// builds every dictionary entry as a string and the whole output before anyone can
// check its size, and its output grows with the square of its input: a 75 KB body
// expanded to hundreds of megabytes on the main thread. This one stops as soon as the
// output passes the cap, and holds no string per entry: every entry's text is already
// in the output (LZW's property), so an entry is a start and a length there, and
// writing one is a copy within the output.
//
// The format: 6 bits per base64 character, most significant first; codes of a width
// that grows by one bit each time the dictionary doubles, read least significant bit
// first. Code 0 and 1 bring a literal UTF-16 unit (8 or 16 bits), 2 ends the stream;
// any other code names a dictionary entry, the previous entry plus the first unit of
// the current one is added after each, and a code one past the dictionary is the
// previous entry plus its own first unit.
import { errors } from '../errors.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
const SIX_BITS = new Uint8Array(128);
for (let i = 0; i < ALPHABET.length; i++) SIX_BITS[ALPHABET.charCodeAt(i)] = i;

// Any unit lz-string does not know reads as 0, as in lz-string.
const unitValue = (input: string, i: number) => {
  const c = input.charCodeAt(i);
  return c < 128 ? SIX_BITS[c] : 0;
};

const tooLarge = () => errors.tooLarge('Decompressed request body is too large.');

// The dictionary and the output. Entry i is units[start[i] .. start[i] + length[i]),
// the place it was defined at; a literal (length 1) keeps its unit apart.
class Decoder {
  start = new Uint32Array(1024);
  length = new Uint32Array(1024);
  literal = new Uint16Array(1024);
  size = 3; // codes 0–2 are the stream's controls
  units = new Uint16Array(4096);
  written = 0;
  constructor(private readonly max: number) {}

  addLiteral(unit: number): void {
    const i = this.slot();
    this.literal[i] = unit;
    this.length[i] = 1;
  }

  // The entry written at `start` and the unit after it.
  addEntry(start: number, length: number): void {
    const i = this.slot();
    this.start[i] = start;
    this.length[i] = length;
  }

  // Appends entry `code`; returns where it starts.
  write(code: number): number {
    const n = this.length[code];
    const at = this.written;
    this.reserve(at + n);
    if (n === 1) {
      this.units[at] = this.literal[code];
    } else {
      // An entry defined by this very code ends with its own first unit, which is not yet
      // written when the copy starts; every other entry lies wholly behind `at`.
      const from = this.start[code];
      this.units.copyWithin(at, from, from + n - 1);
      this.units[at + n - 1] = this.units[from + n - 1 < at ? from + n - 1 : from];
    }
    this.written = at + n;
    return at;
  }

  private reserve(end: number): void {
    if (end > this.max) throw tooLarge();
    if (end <= this.units.length) return;
    const grown = new Uint16Array(Math.min(this.max, Math.max(end, this.units.length * 2)));
    grown.set(this.units.subarray(0, this.written));
    this.units = grown;
  }

  private slot(): number {
    if (this.size === this.start.length) {
      const n = this.start.length * 2;
      const start = new Uint32Array(n); start.set(this.start); this.start = start;
      const length = new Uint32Array(n); length.set(this.length); this.length = length;
      const literal = new Uint16Array(n); literal.set(this.literal); this.literal = literal;
    }
    return this.size++;
  }
}

// The UTF-8 bytes of `units` (lone surrogates as U+FFFD, as Buffer.from(string) does),
// or a 413 when they are more than `max`; counted first, so nothing is allocated then.
function utf8(units: Uint16Array, n: number, max: number): Buffer {
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const u = units[i];
    if (u < 0x80) bytes += 1;
    else if (u < 0x800) bytes += 2;
    else if (u >= 0xd800 && u <= 0xdbff && i + 1 < n && units[i + 1] >= 0xdc00 && units[i + 1] <= 0xdfff) { bytes += 4; i++; }
    else bytes += 3;
  }
  if (bytes > max) throw errors.tooLarge('Decompressed request body is too large.');
  const out = Buffer.allocUnsafe(bytes);
  let o = 0;
  for (let i = 0; i < n; i++) {
    let u = units[i];
    if (u < 0x80) { out[o++] = u; continue; }
    if (u < 0x800) { out[o++] = 0xc0 | (u >> 6); out[o++] = 0x80 | (u & 0x3f); continue; }
    if (u >= 0xd800 && u <= 0xdbff && i + 1 < n && units[i + 1] >= 0xdc00 && units[i + 1] <= 0xdfff) {
      const cp = 0x10000 + ((u - 0xd800) << 10) + (units[++i] - 0xdc00);
      out[o++] = 0xf0 | (cp >> 18); out[o++] = 0x80 | ((cp >> 12) & 0x3f); out[o++] = 0x80 | ((cp >> 6) & 0x3f); out[o++] = 0x80 | (cp & 0x3f);
      continue;
    }
    if (u >= 0xd800 && u <= 0xdfff) u = 0xfffd;
    out[o++] = 0xe0 | (u >> 12); out[o++] = 0x80 | ((u >> 6) & 0x3f); out[o++] = 0x80 | (u & 0x3f);
  }
  return out;
}

const invalid = () => errors.invalidPayload('Failed to decompress lz64 data.');

// The UTF-8 text of an lz64 payload. 413 once the text passes `max` bytes (or UTF-16
// units, while decompressing), 400 for anything lz-string would not decompress to a
// non-empty string.
export function decompressLz64(input: string, max: number): Buffer {
  const length = input.length;
  if (length === 0) throw invalid();
  let value = unitValue(input, 0);
  let position = 32;
  let index = 1;
  const bits = (count: number): number => {
    let result = 0;
    for (let power = 1; power !== 1 << count; power <<= 1) {
      if (value & position) result |= power;
      position >>= 1;
      if (position === 0) {
        position = 32;
        value = index < length ? unitValue(input, index) : 0;
        index++;
      }
    }
    return result;
  };

  const d = new Decoder(max);
  let enlargeIn = 4;
  let width = 3;
  switch (bits(2)) {
    case 0: d.addLiteral(bits(8)); break;
    case 1: d.addLiteral(bits(16)); break;
    default: throw invalid();
  }
  // lz-string starts its count at 4 with code 3 the first literal. `w` is the entry
  // written last, at `wAt`.
  let w = 3;
  let wAt = d.write(w);
  for (;;) {
    if (index > length) throw invalid();
    let c = bits(width);
    if (c === 0 || c === 1) {
      d.addLiteral(bits(c === 0 ? 8 : 16));
      c = d.size - 1;
      if (--enlargeIn === 0) { enlargeIn = 2 ** width; width++; }
    } else if (c === 2) {
      break;
    }
    let at: number;
    if (c === d.size) {
      // The entry being defined: the previous one plus its own first unit.
      d.addEntry(wAt, d.length[w] + 1);
      at = d.write(c);
    } else if (c < d.size) {
      at = d.write(c);
      d.addEntry(wAt, d.length[w] + 1);
    } else {
      throw invalid();
    }
    w = c;
    wAt = at;
    if (--enlargeIn === 0) { enlargeIn = 2 ** width; width++; }
  }
  return utf8(d.units, d.written, max);
}
