// A ZIP reader for tests: finds the end record, walks the central directory, checks each
// local header against it, inflates the entry and verifies its CRC and size.
import { inflateRawSync } from 'node:zlib';
import { crc32 } from './crc32.js';

export function unzip(bytes: Uint8Array): Map<string, Buffer> {
  const buf = Buffer.from(bytes);
  let end = buf.length - 22;
  while (end >= 0 && buf.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('no end of central directory record');
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory entry');
    const method = buf.readUInt16LE(at + 10);
    const crc = buf.readUInt32LE(at + 16);
    const packed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const extra = buf.readUInt16LE(at + 30);
    const comment = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLength);
    if (buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`bad local header for ${name}`);
    if (buf.toString('utf8', local + 30, local + 30 + buf.readUInt16LE(local + 26)) !== name) throw new Error(`local name differs for ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const stored = buf.subarray(start, start + packed);
    const data = method === 8 ? inflateRawSync(stored) : method === 0 ? Buffer.from(stored) : null;
    if (!data) throw new Error(`unsupported method ${method}`);
    if (data.length !== size || crc32(data) !== crc) throw new Error(`size or CRC mismatch for ${name}`);
    out.set(name, data);
    at += 46 + nameLength + extra + comment;
  }
  return out;
}
