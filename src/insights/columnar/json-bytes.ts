// JSON text written as UTF-8 bytes, straight from msgpack bytes: the insights loader stages
// each event's properties for DuckDB as JSON, and decoding a stored row into objects only to
// JSON.stringify them again was most of its thread's time (bench/RESULTS.md, "Insights
// consumer alone"). The text written is JSON.stringify's, byte for byte, of what the store's
// msgpack decoder (msgpackr, plain maps) gives for the same bytes, after wellFormedJson:
// same escapes, same number forms, same key order. Whatever that equality cannot be promised
// for answers NOT_JSON, and the caller decodes the value as before: bin and ext values, 64-bit
// integers (msgpackr gives a BigInt, which JSON.stringify refuses), a key that is not a string
// or is "__proto__" (msgpackr renames it), integer-like keys after other keys (an object
// would list them first), and bytes that are not well-formed UTF-8 (lone surrogates among
// them: the decoders disagree on those).
// Pure: no I/O.

export const NOT_JSON = -1;

/** A growable byte buffer: `buf[0, at)` is written. */
export interface JsonSink {
  buf: Buffer;
  at: number;
}

export function createSink(bytes = 64 * 1024): JsonSink {
  return { buf: Buffer.allocUnsafe(bytes), at: 0 };
}

/** Room for `n` more bytes. */
export function reserve(sink: JsonSink, n: number): void {
  if (sink.at + n <= sink.buf.length) return;
  let size = sink.buf.length * 2;
  while (size < sink.at + n) size *= 2;
  const grown = Buffer.allocUnsafe(size);
  sink.buf.copy(grown, 0, 0, sink.at);
  sink.buf = grown;
}

/** ASCII text that needs no escaping (field names, digits). */
export function writeAscii(sink: JsonSink, text: string): void {
  reserve(sink, text.length);
  const { buf } = sink;
  let o = sink.at;
  for (let i = 0; i < text.length; i++) buf[o++] = text.charCodeAt(i);
  sink.at = o;
}

/** A JS string as JSON text (JSON.stringify's, then wellFormedJson's lone surrogates). */
export function writeJsonString(sink: JsonSink, text: string): void {
  const json = JSON.stringify(text);
  const well = json.includes('\\ud') ? json.replace(/\\(\\|ud[89a-f][0-9a-f]{2})/g, (m, g: string) => (g === '\\' ? m : '\\ufffd')) : json;
  reserve(sink, 3 * well.length);
  sink.at += sink.buf.write(well, sink.at, 'utf8');
}

/** A uuid's text as JSON (quoted; any other text as writeJsonString writes it). */
export function writeUuidString(sink: JsonSink, text: string): void {
  if (text.length !== 36) return writeJsonString(sink, text);
  reserve(sink, 38);
  const { buf } = sink;
  let o = sink.at;
  buf[o++] = 0x22;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(i);
    // Hex digits and dashes only: nothing to escape.
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46) || c === 0x2d)) return writeJsonString(sink, text);
    buf[o++] = c;
  }
  buf[o++] = 0x22;
  sink.at = o;
}

const HEX = '0123456789abcdef';

// The bytes of the UTF-8 sequence that starts with `c` at `i`, if well-formed (RFC 3629:
// no overlong forms, no surrogates, nothing past U+10FFFF), else 0.
function sequenceLength(b: Uint8Array, i: number, end: number, c: number): number {
  let n: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c === 0xe0) lo = 0xa0;
    else if (c === 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c === 0xf0) lo = 0x90;
    else if (c === 0xf4) hi = 0x8f;
  } else return 0;
  if (i + n > end) return 0;
  const c1 = b[i + 1];
  if (c1 < lo || c1 > hi) return 0;
  for (let k = 2; k < n; k++) if ((b[i + k] & 0xc0) !== 0x80) return 0;
  return n;
}

/** Whether b[start, end) is well-formed UTF-8. */
export function wellFormedUtf8(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end;) {
    const c = b[i];
    if (c < 0x80) i++;
    else {
      const n = sequenceLength(b, i, end, c);
      if (n === 0) return false;
      i += n;
    }
  }
  return true;
}

/**
 * The UTF-8 bytes b[start, end) as a JSON string (quoted, escaped as JSON.stringify escapes);
 * false, with nothing written, when they are not well-formed UTF-8.
 */
export function writeUtf8String(sink: JsonSink, b: Uint8Array, start: number, end: number): boolean {
  // An escape takes at most 6 bytes for 1.
  reserve(sink, 6 * (end - start) + 2);
  const { buf } = sink;
  let o = sink.at;
  buf[o++] = 0x22;
  for (let i = start; i < end;) {
    const c = b[i];
    if (c >= 0x20 && c < 0x80) {
      if (c === 0x22 || c === 0x5c) buf[o++] = 0x5c;
      buf[o++] = c;
      i++;
    } else if (c < 0x20) {
      buf[o++] = 0x5c;
      if (c === 0x08) buf[o++] = 0x62; // b
      else if (c === 0x09) buf[o++] = 0x74; // t
      else if (c === 0x0a) buf[o++] = 0x6e; // n
      else if (c === 0x0c) buf[o++] = 0x66; // f
      else if (c === 0x0d) buf[o++] = 0x72; // r
      else {
        buf[o++] = 0x75; // u00XX, lower-case hex
        buf[o++] = 0x30;
        buf[o++] = 0x30;
        buf[o++] = HEX.charCodeAt(c >> 4);
        buf[o++] = HEX.charCodeAt(c & 0x0f);
      }
      i++;
    } else {
      const n = sequenceLength(b, i, end, c);
      if (n === 0) return false;
      for (let k = 0; k < n; k++) buf[o++] = b[i + k];
      i += n;
    }
  }
  buf[o++] = 0x22;
  sink.at = o;
  return true;
}

function u16(b: Uint8Array, at: number): number {
  return (b[at] << 8) | b[at + 1];
}

function u32(b: Uint8Array, at: number): number {
  return ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];
}

// Big-endian floats of msgpack, read through a scratch (no DataView per value).
const scratch = new Uint8Array(8);
const scratch64 = new Float64Array(scratch.buffer);
const scratch32 = new Float32Array(scratch.buffer, 0, 1);
const LITTLE = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

function float(b: Uint8Array, at: number, bytes: 4 | 8): number {
  for (let k = 0; k < bytes; k++) scratch[LITTLE ? bytes - 1 - k : k] = b[at + k];
  return bytes === 8 ? scratch64[0] : scratch32[0];
}

function writeNumber(sink: JsonSink, n: number): void {
  // JSON.stringify: a finite number's shortest form (String), otherwise null.
  writeAscii(sink, Number.isFinite(n) ? String(n) : 'null');
}

function writeInteger(sink: JsonSink, n: number): void {
  if (n >= 0 && n < 10) {
    reserve(sink, 1);
    sink.buf[sink.at++] = 0x30 + n;
  } else writeAscii(sink, String(n));
}

const PROTO = Buffer.from('__proto__');

function isProto(b: Uint8Array, at: number, length: number): boolean {
  if (length !== PROTO.length) return false;
  for (let i = 0; i < length; i++) if (b[at + i] !== PROTO[i]) return false;
  return true;
}

// Whether the key is an array index ("0" to "4294967294", no leading zero): an object lists
// such keys first, in numeric order, whatever order they were set in. -1 if not one.
function arrayIndex(b: Uint8Array, at: number, length: number): number {
  if (length === 0 || length > 10) return -1;
  if (length > 1 && b[at] === 0x30) return -1;
  let n = 0;
  for (let i = 0; i < length; i++) {
    const d = b[at + i] - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n <= 4294967294 ? n : -1;
}

// A string's [start, end) from its tag at `at`, into `range`; false if `at` holds no string.
function stringAt(b: Uint8Array, at: number, range: Int32Array): boolean {
  const t = b[at];
  let start: number;
  let length: number;
  if (t >= 0xa0 && t < 0xc0) (start = at + 1), (length = t & 0x1f);
  else if (t === 0xd9) (start = at + 2), (length = b[at + 1]);
  else if (t === 0xda) (start = at + 3), (length = u16(b, at + 1));
  else if (t === 0xdb) (start = at + 5), (length = u32(b, at + 1));
  else return false;
  range[0] = start;
  range[1] = start + length;
  return true;
}

const keyRange = new Int32Array(2);

/**
 * The msgpack value at b[at] written as JSON; the offset just past it, or NOT_JSON (then
 * `sink.at` is where it was, though bytes past it may have changed).
 */
export function writeMsgpackAsJson(sink: JsonSink, b: Uint8Array, at: number, end: number): number {
  const mark = sink.at;
  let next: number;
  try {
    next = value(sink, b, at, end);
  } catch (err) {
    // Nesting deeper than this thread's stack: the caller's decoder is the judge of it.
    if (!(err instanceof RangeError)) throw err;
    next = NOT_JSON;
  }
  if (next === NOT_JSON) sink.at = mark;
  return next;
}

function value(sink: JsonSink, b: Uint8Array, at: number, end: number): number {
  if (at >= end) return NOT_JSON;
  const t = b[at];
  if (t < 0x80) {
    writeInteger(sink, t);
    return at + 1;
  }
  if (t >= 0xe0) {
    writeInteger(sink, t - 0x100);
    return at + 1;
  }
  if (t < 0x90) return map(sink, b, at + 1, end, t & 0x0f);
  if (t < 0xa0) return array(sink, b, at + 1, end, t & 0x0f);
  if (t < 0xc0) return string(sink, b, at + 1, end, t & 0x1f);
  switch (t) {
    case 0xc0: writeAscii(sink, 'null'); return at + 1;
    case 0xc2: writeAscii(sink, 'false'); return at + 1;
    case 0xc3: writeAscii(sink, 'true'); return at + 1;
    case 0xca: if (at + 5 > end) return NOT_JSON; writeNumber(sink, float(b, at + 1, 4)); return at + 5;
    case 0xcb: if (at + 9 > end) return NOT_JSON; writeNumber(sink, float(b, at + 1, 8)); return at + 9;
    case 0xcc: if (at + 2 > end) return NOT_JSON; writeInteger(sink, b[at + 1]); return at + 2;
    case 0xcd: if (at + 3 > end) return NOT_JSON; writeInteger(sink, u16(b, at + 1)); return at + 3;
    case 0xce: if (at + 5 > end) return NOT_JSON; writeInteger(sink, u32(b, at + 1)); return at + 5;
    case 0xd0: if (at + 2 > end) return NOT_JSON; writeInteger(sink, (b[at + 1] << 24) >> 24); return at + 2;
    case 0xd1: if (at + 3 > end) return NOT_JSON; writeInteger(sink, (u16(b, at + 1) << 16) >> 16); return at + 3;
    case 0xd2: if (at + 5 > end) return NOT_JSON; writeInteger(sink, u32(b, at + 1) | 0); return at + 5;
    case 0xd9: if (at + 2 > end) return NOT_JSON; return string(sink, b, at + 2, end, b[at + 1]);
    case 0xda: if (at + 3 > end) return NOT_JSON; return string(sink, b, at + 3, end, u16(b, at + 1));
    case 0xdb: if (at + 5 > end) return NOT_JSON; return string(sink, b, at + 5, end, u32(b, at + 1));
    case 0xdc: if (at + 3 > end) return NOT_JSON; return array(sink, b, at + 3, end, u16(b, at + 1));
    case 0xdd: if (at + 5 > end) return NOT_JSON; return array(sink, b, at + 5, end, u32(b, at + 1));
    case 0xde: if (at + 3 > end) return NOT_JSON; return map(sink, b, at + 3, end, u16(b, at + 1));
    case 0xdf: if (at + 5 > end) return NOT_JSON; return map(sink, b, at + 5, end, u32(b, at + 1));
    // bin, ext, 64-bit integers, 0xc1
    default: return NOT_JSON;
  }
}

function string(sink: JsonSink, b: Uint8Array, at: number, end: number, length: number): number {
  const stop = at + length;
  if (stop > end || !writeUtf8String(sink, b, at, stop)) return NOT_JSON;
  return stop;
}

function array(sink: JsonSink, b: Uint8Array, at: number, end: number, count: number): number {
  reserve(sink, 1);
  sink.buf[sink.at++] = 0x5b; // [
  for (let i = 0; i < count; i++) {
    if (i > 0) {
      reserve(sink, 1);
      sink.buf[sink.at++] = 0x2c;
    }
    at = value(sink, b, at, end);
    if (at === NOT_JSON) return NOT_JSON;
  }
  reserve(sink, 1);
  sink.buf[sink.at++] = 0x5d; // ]
  return at;
}

function map(sink: JsonSink, b: Uint8Array, at: number, end: number, count: number): number {
  reserve(sink, 1);
  sink.buf[sink.at++] = 0x7b; // {
  let lastIndex = -1;
  let named = false;
  for (let i = 0; i < count; i++) {
    if (at >= end || !stringAt(b, at, keyRange)) return NOT_JSON;
    const start = keyRange[0];
    const stop = keyRange[1];
    if (stop > end || isProto(b, start, stop - start)) return NOT_JSON;
    if (b[start] >= 0x30 && b[start] <= 0x39) {
      const index = arrayIndex(b, start, stop - start);
      if (index >= 0) {
        if (named || index <= lastIndex) return NOT_JSON;
        lastIndex = index;
      } else named = true;
    } else named = true;
    if (i > 0) {
      reserve(sink, 1);
      sink.buf[sink.at++] = 0x2c;
    }
    if (!writeUtf8String(sink, b, start, stop)) return NOT_JSON;
    reserve(sink, 1);
    sink.buf[sink.at++] = 0x3a; // :
    at = value(sink, b, stop, end);
    if (at === NOT_JSON) return NOT_JSON;
  }
  reserve(sink, 1);
  sink.buf[sink.at++] = 0x7d; // }
  return at;
}
