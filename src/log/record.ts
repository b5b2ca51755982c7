// How a group of events travels through the log: one JSON document per commit.
// JSON was measured faster than msgpack for these shapes in V8 (bench/log-record.ts).
import type { CapturedEvent } from './types.js';

export function encodeRecord(events: readonly CapturedEvent[]): Buffer {
  return Buffer.from(JSON.stringify(events));
}

export function decodeRecord(data: Uint8Array): CapturedEvent[] {
  return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as CapturedEvent[];
}
