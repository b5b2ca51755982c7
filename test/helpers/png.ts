// A PNG reader for tests (8-bit RGB/RGBA, non-interlaced, as resvg writes them): checks
// the signature and every chunk's CRC, inflates IDAT and undoes the row filters, so a
// test can look at pixels.
import { inflateSync } from 'node:zlib';
import { crc32 } from './crc32.js';

export interface DecodedPng {
  width: number;
  height: number;
  channels: number;
  pixels: Buffer;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

export function decodePng(bytes: Uint8Array): DecodedPng {
  const buf = Buffer.from(bytes);
  if (!buf.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG signature');
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  let ended = false;
  while (at < buf.length) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + length);
    if (crc32(buf.subarray(at + 4, at + 8 + length)) !== buf.readUInt32BE(at + 8 + length)) throw new Error(`bad CRC in ${type}`);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      const colour = data[9];
      if (depth !== 8 || (colour !== 2 && colour !== 6) || data[12] !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour ${colour}`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') ended = true;
    at += 12 + length;
  }
  if (!ended || width === 0) throw new Error('PNG without IHDR or IEND');
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const up = row - stride;
    if (filter > 4) throw new Error(`bad filter ${filter}`);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[row + x - channels] : 0;
      const b = y > 0 ? pixels[up + x] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) predictor = paeth(a, b, x >= channels && y > 0 ? pixels[up + x - channels] : 0);
      pixels[row + x] = (raw[src + x] + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

// Share of pixels in the band of rows [y0, y1) that are not near white.
export function inked(img: DecodedPng, y0 = 0, y1 = img.height): number {
  const { pixels, channels, width } = img;
  let n = 0;
  for (let i = y0 * width * channels; i < y1 * width * channels; i += channels) {
    if (pixels[i] < 235 || pixels[i + 1] < 235 || pixels[i + 2] < 235) n++;
  }
  return n / ((y1 - y0) * width);
}

export function differingPixels(a: DecodedPng, b: DecodedPng, y0 = 0, y1 = a.height): number {
  const { channels, width } = a;
  let n = 0;
  for (let i = y0 * width * channels; i < y1 * width * channels; i += channels) {
    if (a.pixels[i] !== b.pixels[i] || a.pixels[i + 1] !== b.pixels[i + 1] || a.pixels[i + 2] !== b.pixels[i + 2]) n++;
  }
  return n;
}
