// The capture paths bench/capture-path.ts compares, each as three steps: the main
// thread's work per request (front), the record that lands in the log, and the
// reader's work to turn a record back into events.
import { decodePayload, isPlainJson, parseJson } from '../src/capture/decode.js';
import { normalizeCapture, scanCapture } from '../src/capture/scan.js';
import { uuidv7 } from '../src/capture/uuid.js';
import { encodeFrames } from '../src/log/record.js';
import { captureFrame, encodeRecord, decodeRecord } from '../src/capture/frames.js';
import type { CapturedEvent, LogFrame } from '../src/log/types.js';

export interface PathSubject {
  name: string;
  front(body: Buffer, query: URLSearchParams): unknown;
  record(body: Buffer, query: URLSearchParams, projectId: number): Promise<Buffer>;
  read(record: Buffer): CapturedEvent[];
}

const newUuid = () => uuidv7();
const decodeInput = (body: Buffer, query: URLSearchParams) =>
  ({ body, query, contentType: 'application/json', contentEncoding: undefined, maxDecompressedBytes: 1 << 26 });

async function normalized(body: Buffer, query: URLSearchParams, projectId: number): Promise<CapturedEvent[]> {
  const payload = await decodePayload(decodeInput(body, query));
  const events = normalizeCapture(payload, { now: new Date(), ip: '127.0.0.1', query, newUuid }).events as CapturedEvent[];
  for (const e of events) e.project_id = projectId;
  return events;
}

// Normalize on the main thread, normalized events in the log (what capture did before
// decision 0009; normalization itself is today's).
const normalizedEvents: PathSubject = {
  name: 'normalized events',
  front: async (body, query) => encodeRecord(await normalized(body, query, 1)),
  record: async (body, query, projectId) => encodeRecord(await normalized(body, query, projectId)),
  read: (record) => decodeRecord(record),
};

// What capture does now: parse and scan, frame the request's text; the reader normalizes.
function frame(body: Buffer, query: URLSearchParams, projectId: number): LogFrame {
  if (!isPlainJson(decodeInput(body, query))) throw new Error('bench bodies are plain JSON');
  const scan = scanCapture(parseJson(body), query);
  return captureFrame({
    projectId, nowMs: Date.now(), ip: '127.0.0.1', sentAtMs: scan.sentAtMs, historical: scan.historical,
    droppedAt: scan.droppedAt, kept: scan.kept, missingUuids: scan.missingUuids,
  }, body);
}

const captureFrames: PathSubject = {
  name: 'capture frames',
  // The record copy is the commit's (one per group, not per request), but count it here.
  front: (body, query) => encodeFrames([frame(body, query, 1)]),
  record: async (body, query, projectId) => encodeFrames([frame(body, query, projectId)]),
  read: (record) => decodeRecord(record),
};

export const subjects: PathSubject[] = [normalizedEvents, captureFrames];
