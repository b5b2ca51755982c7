// How events travel through the log (docs/decisions/0009): capture's codec, which the
// log is given (LogCodec, src/log/types.ts); the log itself stores and hands out records
// as bytes. A record (one LMDB value, one NATS message) is a version byte and a sequence
// of frames (src/log/record.ts joins them):
//
//   events frame   normalized events as a JSON array: what EventLog.append(events)
//                  writes (tests, tools, and the NATS split of an oversized request)
//   capture frame  one capture request as it arrived: a binary header (project,
//                  clock, client address, sent_at, historical flag, the indices of
//                  the events capture dropped, the uuids it generated, in order) and
//                  the decoded JSON text of the body, byte for byte
//
//   operation    one server-written operation (LogOperation: a person deleted, flag
//   frame        hash keys recorded), msgpack-encoded; docs/decisions/0032. The
//                server alone appends one (EventLog.appendFrame with operationFrame):
//                a capture request's bytes are always inside a capture frame's
//                length, so no request can produce one. Decoded only for a reader
//                that asks for operations (the event store); skipped for the others.
//
// The front end writes a capture frame without building or re-encoding a single
// event; the reader (the consumer thread) parses the text and runs the same
// normalization (buildEvents) with the header as its context, so every read of a
// record gives the same events, uuids and timestamps included.
//
// Records written before frames existed are a bare JSON array (first byte `[`) and
// are still read.
import { endianness } from 'node:os';
import { decode as decodeMsgpack, encode as encodeMsgpack } from '@msgpack/msgpack';
import type { CapturedEvent, EventKey, LogCodec, LogFrame, LogOperation, PlacedOperation, UnreadableEvent } from '../log/types.js';
import { isObject } from '../json.js';
import { encodeFrames, RECORD_OVERHEAD, RECORD_V1 } from '../log/record.js';
import { buildEvents, rawEventsOf, unreadableEvent, type BuildContext } from './normalize.js';
import { formatUuid, writeUuidv7, UUID_BYTES } from './uuid.js';

const LEGACY_JSON = 0x5b; // '['
const FRAME_EVENTS = 0x01;
const FRAME_CAPTURE = 0x02;
const FRAME_OPERATION = 0x03;

const EVENTS_HEAD = 5; // kind u8, JSON length u32
const OPERATION_HEAD = 5; // kind u8, msgpack length u32
// Capture frame header, little-endian:
//   +0 kind u8 · +1 flags u8 · +2 reserved u16 · +4 ip length u32 · +8 dropped count u32
//   +12 generated uuid count u32 · +16 body length u32 · +20 project id f64 · +28 now ms f64
//   +36 sent_at ms f64 · +44 ip (UTF-8) · dropped indices u32 each · uuids 16 bytes each
const CAPTURE_HEAD = 44;
const HISTORICAL = 1;
const HAS_SENT_AT = 2;
const HAS_IP = 4;

export function eventsFrame(events: readonly CapturedEvent[]): LogFrame {
  const json = Buffer.from(JSON.stringify(events));
  const head = Buffer.allocUnsafe(EVENTS_HEAD);
  head[0] = FRAME_EVENTS;
  head.writeUInt32LE(json.length, 1);
  return { chunks: [head, json], bytes: EVENTS_HEAD + json.length, events: events.length };
}

export function operationFrame(op: LogOperation): LogFrame {
  const body = encodeMsgpack({ uuid: op.uuid, project_id: op.project_id, kind: op.kind, payload: op.payload }, { ignoreUndefined: true });
  const head = Buffer.allocUnsafe(OPERATION_HEAD);
  head[0] = FRAME_OPERATION;
  head.writeUInt32LE(body.byteLength, 1);
  return { chunks: [head, Buffer.from(body.buffer, body.byteOffset, body.byteLength)], bytes: OPERATION_HEAD + body.byteLength, events: 0, alone: true };
}

// What buildEvents will need (its uuids come from the frame), plus the counts.
export interface CaptureFrameHeader extends Omit<BuildContext, 'uuid' | 'droppedAt'> {
  // The capture worker's scan hands these over as a Uint32Array.
  droppedAt: ArrayLike<number> | null;
  // Kept events: all of them, and those that need a generated uuid.
  kept: number;
  missingUuids: number;
  // Their uuids' bytes when already drawn (by the capture worker, for many events).
  uuids?: Uint8Array | null;
}

const LITTLE_ENDIAN = endianness() === 'LE';

// A capture request's frame; `body` is the JSON text the payload was parsed from.
// Generates the UUIDv7s of the events that lack one, stamped with `nowMs`, unless given.
export function captureFrame(h: CaptureFrameHeader, body: Buffer): LogFrame {
  const ipBytes = h.ip === null ? 0 : Buffer.byteLength(h.ip);
  const dropped = h.droppedAt === null ? 0 : h.droppedAt.length;
  const size = CAPTURE_HEAD + ipBytes + 4 * dropped + UUID_BYTES * h.missingUuids;
  const head = Buffer.allocUnsafe(size);
  head[0] = FRAME_CAPTURE;
  head[1] = (h.historical ? HISTORICAL : 0) | (h.sentAtMs !== null ? HAS_SENT_AT : 0) | (h.ip !== null ? HAS_IP : 0);
  head.writeUInt16LE(0, 2);
  head.writeUInt32LE(ipBytes, 4);
  head.writeUInt32LE(dropped, 8);
  head.writeUInt32LE(h.missingUuids, 12);
  head.writeUInt32LE(body.length, 16);
  head.writeDoubleLE(h.projectId, 20);
  head.writeDoubleLE(h.nowMs, 28);
  head.writeDoubleLE(h.sentAtMs ?? 0, 36);
  let at = CAPTURE_HEAD;
  if (h.ip !== null) at += head.write(h.ip, at);
  const d = h.droppedAt;
  if (d instanceof Uint32Array && LITTLE_ENDIAN) {
    head.set(new Uint8Array(d.buffer, d.byteOffset, d.byteLength), at);
    at += d.byteLength;
  } else {
    for (let i = 0; i < dropped; i++, at += 4) head.writeUInt32LE(d![i], at);
  }
  if (h.uuids) head.set(h.uuids, at);
  else for (let i = 0; i < h.missingUuids; i++, at += UUID_BYTES) writeUuidv7(head, at, h.nowMs);
  return { chunks: [head, body], bytes: size + body.length, events: h.kept };
}

// A record holding these events (one events frame).
export function encodeRecord(events: readonly CapturedEvent[]): Buffer {
  return encodeFrames([eventsFrame(events)]);
}

// Where the capture frame at `at` ends, from its header's lengths (the header itself must fit).
function captureFrameEnd(buf: Buffer, at: number): number {
  return at + CAPTURE_HEAD + buf.readUInt32LE(at + 4) + 4 * buf.readUInt32LE(at + 8) + UUID_BYTES * buf.readUInt32LE(at + 12)
    + buf.readUInt32LE(at + 16);
}

// Where the parts of the capture frame at `at` lie: its ip's text, the indexes of the dropped
// events, the generated uuids, the body (the request's JSON), and its end; checked to fit.
interface CaptureLayout {
  ipAt: number;
  ipBytes: number;
  dropped: number;
  droppedAt: number;
  uuids: number;
  uuidsAt: number;
  bodyAt: number;
  end: number;
  projectId: number;
}

function captureLayout(buf: Buffer, at: number): CaptureLayout {
  const ipBytes = buf.readUInt32LE(at + 4);
  const dropped = buf.readUInt32LE(at + 8);
  const uuids = buf.readUInt32LE(at + 12);
  const end = captureFrameEnd(buf, at);
  if (end > buf.length) throw new Error('log record: capture frame runs past the end of the record');
  const ipAt = at + CAPTURE_HEAD;
  const droppedAt = ipAt + ipBytes;
  const uuidsAt = droppedAt + 4 * dropped;
  return { ipAt, ipBytes, dropped, droppedAt, uuids, uuidsAt, bodyAt: uuidsAt + UUID_BYTES * uuids, end, projectId: buf.readDoubleLE(at + 20) };
}

function decodeCaptureFrame(buf: Buffer, at: number, out: CapturedEvent[], unreadable: UnreadableEvent[] | undefined): number {
  const flags = buf[at + 1];
  const { ipAt, ipBytes, dropped, uuids, uuidsAt, bodyAt, end, projectId } = captureLayout(buf, at);
  const ip = flags & HAS_IP ? buf.toString('utf8', ipAt, ipAt + ipBytes) : null;
  let droppedAt: number[] | null = null;
  if (dropped > 0) {
    droppedAt = new Array<number>(dropped);
    for (let i = 0, p = ipAt + ipBytes; i < dropped; i++, p += 4) droppedAt[i] = buf.readUInt32LE(p);
  }
  let rawEvents: unknown[];
  try {
    rawEvents = rawEventsOf(JSON.parse(buf.toString('utf8', bodyAt, end)));
  } catch (err) {
    // The frame's bounds are sound, so the frames after it still read: this request alone is lost.
    if (!unreadable) throw err;
    unreadable.push(unreadableEvent(projectId, null, null, err));
    return end;
  }
  const events = buildEvents(rawEvents, {
    projectId,
    nowMs: buf.readDoubleLE(at + 28),
    ip,
    sentAtMs: flags & HAS_SENT_AT ? buf.readDoubleLE(at + 36) : null,
    historical: (flags & HISTORICAL) !== 0,
    droppedAt,
    uuid(n) {
      if (n >= uuids) throw new Error('log record: capture frame has fewer uuids than events without one');
      return formatUuid(buf, uuidsAt + UUID_BYTES * n);
    },
  }, unreadable);
  for (let i = 0; i < events.length; i++) out.push(events[i]);
  return end;
}

function decodeFrames(
  buf: Buffer, at: number, end: number, out: CapturedEvent[], unreadable: UnreadableEvent[] | undefined, operations?: PlacedOperation[],
): void {
  while (at < end) {
    const kind = buf[at];
    if (kind === FRAME_CAPTURE) {
      at = decodeCaptureFrame(buf, at, out, unreadable);
    } else if (kind === FRAME_EVENTS) {
      const start = at + EVENTS_HEAD;
      const stop = start + buf.readUInt32LE(at + 1);
      if (stop > end) throw new Error('log record: events frame runs past the end of the record');
      const events = JSON.parse(buf.toString('utf8', start, stop)) as CapturedEvent[];
      for (let i = 0; i < events.length; i++) out.push(events[i]);
      at = stop;
    } else if (kind === FRAME_OPERATION) {
      const start = at + OPERATION_HEAD;
      const stop = start + buf.readUInt32LE(at + 1);
      if (stop > end) throw new Error('log record: operation frame runs past the end of the record');
      if (operations) operations.push({ at: out.length, op: decodeMsgpack(buf.subarray(start, stop)) as LogOperation });
      at = stop;
    } else {
      throw new Error(`log record: unknown frame kind ${kind}`);
    }
  }
}

// The events of a record, in order: what every consumer sees in LogEntry.events. With
// `unreadable`, an event that cannot be rebuilt (or a request whose text cannot be read
// again) costs itself alone and is listed there; without it, it throws. A record whose
// frames themselves are damaged throws either way: nothing in it can be attributed.
// Its operations go onto `operations` when given, each after the events before it.
export function decodeRecord(data: Uint8Array, unreadable?: UnreadableEvent[], operations?: PlacedOperation[]): CapturedEvent[] {
  const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf[0] === LEGACY_JSON) return JSON.parse(buf.toString('utf8')) as CapturedEvent[];
  if (buf[0] !== RECORD_V1) throw new Error(`log record: unknown format ${buf[0]}`);
  const out: CapturedEvent[] = [];
  decodeFrames(buf, RECORD_OVERHEAD, buf.length, out, unreadable, operations);
  return out;
}

// The project and uuid of every event decodeRecord gives for a record, in order, without
// building the events: each capture frame's text is parsed, but only its events' own uuids
// are read (the generated ones come from the header, as buildEvents takes them). An event
// that decodeRecord would set aside as unreadable may be listed too (a generated uuid past
// the header's is not): for a reader of what the event store stored under these keys, which
// stored nothing under such an event's. Throws where decodeRecord throws without `unreadable`.
export function recordKeys(data: Uint8Array): EventKey[] {
  const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf[0] === LEGACY_JSON) return keysOf(JSON.parse(buf.toString('utf8')) as CapturedEvent[]);
  if (buf[0] !== RECORD_V1) throw new Error(`log record: unknown format ${buf[0]}`);
  const out: EventKey[] = [];
  let at = RECORD_OVERHEAD;
  while (at < buf.length) {
    const kind = buf[at];
    if (kind === FRAME_CAPTURE) {
      at = captureFrameKeys(buf, at, out);
    } else if (kind === FRAME_EVENTS) {
      const start = at + EVENTS_HEAD;
      const stop = start + buf.readUInt32LE(at + 1);
      if (stop > buf.length) throw new Error('log record: events frame runs past the end of the record');
      for (const key of keysOf(JSON.parse(buf.toString('utf8', start, stop)) as CapturedEvent[])) out.push(key);
      at = stop;
    } else if (kind === FRAME_OPERATION) {
      const stop = at + OPERATION_HEAD + buf.readUInt32LE(at + 1);
      if (stop > buf.length) throw new Error('log record: operation frame runs past the end of the record');
      at = stop;
    } else {
      throw new Error(`log record: unknown frame kind ${kind}`);
    }
  }
  return out;
}

const keysOf = (events: readonly CapturedEvent[]): EventKey[] => events.map((e) => ({ project_id: e.project_id, uuid: e.uuid }));

// decodeCaptureFrame's reading of the uuids alone (buildEvents: an event's own uuid string,
// lower-cased, else the next generated one; the dropped events skipped).
function captureFrameKeys(buf: Buffer, at: number, out: EventKey[]): number {
  const { dropped, droppedAt, uuids, uuidsAt, bodyAt, end, projectId } = captureLayout(buf, at);
  const rawEvents = rawEventsOf(JSON.parse(buf.toString('utf8', bodyAt, end)));
  let d = 0;
  let nextDrop = dropped > 0 ? buf.readUInt32LE(droppedAt) : -1;
  let generated = 0;
  for (let i = 0; i < rawEvents.length; i++) {
    if (i === nextDrop) {
      nextDrop = ++d < dropped ? buf.readUInt32LE(droppedAt + 4 * d) : -1;
      continue;
    }
    const raw = rawEvents[i];
    if (isObject(raw) && typeof raw.uuid === 'string') out.push({ project_id: projectId, uuid: raw.uuid.toLowerCase() });
    else if (generated < uuids) out.push({ project_id: projectId, uuid: formatUuid(buf, uuidsAt + UUID_BYTES * generated++) });
  }
  return end;
}

// The projects whose events a record may hold, read from its frames' headers without
// parsing a single event (a consumer with nothing to do for those projects skips the
// record without decoding it): a superset (a capture frame's project is listed even when
// capture dropped all its events), or null when a frame does not say (an events frame, a
// legacy record) or the frames do not hold together (decoding it tells how).
export function recordProjects(data: Uint8Array): number[] | null {
  const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf[0] !== RECORD_V1) return null;
  const projects: number[] = [];
  let at = RECORD_OVERHEAD;
  while (at < buf.length) {
    const kind = buf[at];
    if (kind === FRAME_CAPTURE) {
      if (at + CAPTURE_HEAD > buf.length) return null;
      const end = captureFrameEnd(buf, at);
      if (end > buf.length) return null;
      const project = buf.readDoubleLE(at + 20);
      if (!projects.includes(project)) projects.push(project);
      at = end;
    } else if (kind === FRAME_OPERATION) {
      if (at + OPERATION_HEAD > buf.length) return null;
      at += OPERATION_HEAD + buf.readUInt32LE(at + 1);
      if (at > buf.length) return null;
    } else {
      return null;
    }
  }
  return projects;
}

// The events of one frame, as a reader would see them (the NATS log's fallback for a
// request too large for one message).
export function frameEvents(frame: LogFrame): CapturedEvent[] {
  const buf = Buffer.concat(frame.chunks, frame.bytes);
  const out: CapturedEvent[] = [];
  decodeFrames(buf, 0, buf.length, out, undefined);
  return out;
}

// What the log is given to write events and read records (src/main.ts and the consumer
// threads hand it to the log's writers and readers).
export const captureCodec: LogCodec = { eventsFrame, operationFrame, decode: decodeRecord, projects: recordProjects, keys: recordKeys };
