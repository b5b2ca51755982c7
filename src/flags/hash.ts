// PostHog's sha1_60_v1 bucketing: SHA-1 of prefix + identifier + salt, the first 60 bits
// as an integer, divided by 0xFFFFFFFFFFFFFFF. SHA-1 is written out here rather than taken
// from node:crypto because the inputs are tiny and a one-shot JS digest into preallocated
// buffers is about twice as fast as crossing into OpenSSL, on the hottest path we have.

const W = new Int32Array(80);
let block = new Uint8Array(512);
const utf8 = new TextEncoder();

// binary64(0xFFFFFFFFFFFFFFF) is exactly 2^60; dividing by it is the contract's one rounding.
const SCALE = 0xfffffffffffffff;

/** Identifiers are cut to their first 200 Unicode scalar values before hashing. */
export const MAX_IDENTIFIER_CODE_POINTS = 200;

function truncateIdentifier(id: string): string {
  // 200 UTF-16 units can never hold more than 200 code points.
  if (id.length <= MAX_IDENTIFIER_CODE_POINTS) return id;
  let units = 0;
  let points = 0;
  while (units < id.length && points < MAX_IDENTIFIER_CODE_POINTS) {
    const c = id.charCodeAt(units);
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < id.length ? 2 : 1;
    points++;
  }
  return id.slice(0, units);
}

function encode(text: string): number {
  const n = text.length;
  if (n * 3 + 72 > block.length) block = new Uint8Array(n * 3 + 72);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) return utf8.encodeInto(text, block).written;
    block[i] = c;
  }
  return n;
}

/** The first 60 bits of SHA-1(UTF-8 of `text`), as a binary64 (rounded once). */
export function sha1First60Bits(text: string): number {
  const n = encode(text);
  const total = (((n + 8) >> 6) + 1) << 6;
  block[n] = 0x80;
  for (let i = n + 1; i < total - 4; i++) block[i] = 0;
  const bits = n * 8;
  block[total - 4] = bits >>> 24;
  block[total - 3] = (bits >>> 16) & 255;
  block[total - 2] = (bits >>> 8) & 255;
  block[total - 1] = bits & 255;

  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let off = 0; off < total; off += 64) {
    for (let i = 0, j = off; i < 16; i++, j += 4) {
      W[i] = (block[j] << 24) | (block[j + 1] << 16) | (block[j + 2] << 8) | block[j + 3];
    }
    for (let i = 16; i < 80; i++) {
      const x = W[i - 3] ^ W[i - 8] ^ W[i - 14] ^ W[i - 16];
      W[i] = (x << 1) | (x >>> 31);
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, t = 0, i = 0;
    for (; i < 20; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + W[i]) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t;
    }
    for (; i < 40; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + W[i]) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t;
    }
    for (; i < 60; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e - 0x70e44324 + W[i]) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t;
    }
    for (; i < 80; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e - 0x359d3e2a + W[i]) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  // 32 + 28 bits: the multiplication is exact, so the addition is the single rounding to binary64.
  return (h0 >>> 0) * 268435456 + ((h1 >>> 0) >>> 4);
}

/** hash01 in [0, 1] of prefix + identifier (truncated to 200 code points) + salt. */
export function hash01(prefix: string, identifier: string, salt: string): number {
  return sha1First60Bits(prefix + truncateIdentifier(identifier) + salt) / SCALE;
}
