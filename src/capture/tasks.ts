// The capture worker pool's task (workers/capture.ts, docs/decisions/0029): a request
// body of more than 64 KiB, as sent or inflated, is decoded, counted, parsed and
// scanned there, off the HTTP thread. What comes back is what the route and the log frame need, in
// transferable form: the JSON text's bytes (the frame stores them), the scan's verdicts
// with the dropped indices as a Uint32Array, and the generated uuids' bytes; never the
// parsed value, whose structured clone would cost the HTTP thread as much as parsing.
import type { Task } from '../pools/index.js';
import type { ErrorBody } from '../errors.js';
import type { DropReason } from './normalize.js';
import type { UnstorableKey } from './storable.js';

export interface DecodeTask {
  // Moved to the worker when it owns its whole ArrayBuffer (src/capture/routes.ts).
  body: Uint8Array;
  rawQuery: string;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  // The body is the request's JSON text, inflated already (src/capture/routes.ts).
  inflated: boolean;
  // The JSON text's bytes, as far as the route knows: what orders the pool's queue.
  expectedBytes: number;
}

// What the front end learns from a request (normalize.ts's CaptureScan without the
// parsed events), plus the uuids of the kept events without one, drawn at `nowMs`.
export interface ScannedRequest {
  text: Uint8Array;
  token: string | null;
  droppedAt: Uint32Array | null;
  dropped: Partial<Record<DropReason, number>>;
  kept: number;
  missingUuids: number;
  historical: boolean;
  sentAtMs: number | null;
  unstorable: UnstorableKey | null;
  nowMs: number;
  uuids: Uint8Array | null;
}

// A request the client must fix: the ApiError the route throws, as plain data.
export interface RefusedRequest extends ErrorBody {
  status: number;
}

export type DecodeOutcome = { scanned: ScannedRequest } | { refused: RefusedRequest };

export type CaptureTasks = {
  decode: Task<DecodeTask, DecodeOutcome>;
};

export interface CaptureWorkerData {
  maxDecompressedBytes: number;
  maxJsonNodes: number;
}

// The ArrayBuffer under `view` when nothing else shares it (a pooled small Buffer
// does), so moving it between threads takes nothing from anyone.
export function ownedBuffer(view: Uint8Array | Uint32Array | null): ArrayBuffer[] {
  return view !== null && view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && view.buffer instanceof ArrayBuffer ? [view.buffer] : [];
}
