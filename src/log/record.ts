// A log record (one LMDB value, one NATS message): a version byte, then the frames of
// every append a group commit carries, in order. What a frame holds is the codec's
// (LogCodec: capture's, src/capture/frames.ts); the log only joins frames into records
// and hands records to readers, with the codec's decoder.
import type { LogCodec, LogEntry, LogFrame } from './types.js';

export const RECORD_V1 = 0x01;
// Bytes a record adds to the frames it carries.
export const RECORD_OVERHEAD = 1;
const VERSION = Buffer.from([RECORD_V1]);

// One record carrying `frames`, in order.
export function encodeFrames(frames: readonly LogFrame[]): Buffer {
  let bytes = RECORD_OVERHEAD;
  let n = 1;
  for (const f of frames) { bytes += f.bytes; n += f.chunks.length; }
  const chunks = new Array<Buffer>(n);
  chunks[0] = VERSION;
  let i = 1;
  for (const f of frames) for (const c of f.chunks) chunks[i++] = c;
  return Buffer.concat(chunks, bytes);
}

// A log entry that decodes its record when its events are read, every time, and keeps
// nothing. A consumer going through a transaction's entries in order thus holds one
// record's events at a time, which die young; decoded up front, a 50,000-event
// transaction's events all outlived several scavenges, and copying and promoting them
// was most of the consumer's GC time (bench/RESULTS.md).
// `projects` reads the record's projects without decoding it (LogCodec.projects).
// `keys` reads its events' keys without building them (LogCodec.keys).
export function recordEntry(seq: number, data: Uint8Array, decode: LogCodec['decode'], projects?: LogCodec['projects'], keys?: LogCodec['keys']): LogEntry {
  return {
    seq, record: data, get events() { return decode(data); }, readEvents: (unreadable, operations) => decode(data, unreadable, operations),
    projects: () => (projects ? projects(data) : null),
    ...(keys ? { keys: () => keys(data) } : {}),
  };
}
