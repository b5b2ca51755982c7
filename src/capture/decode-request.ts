// A capture request decoded in the capture worker (./tasks.ts): inflated with its cap,
// its objects and arrays counted before parsing, parsed and scanned; the outcome is
// plain data the route turns back into its answer (src/capture/routes.ts).
import { ApiError, errors } from '../errors.js';
import { inflateSync, locatePayload, parseJson } from './decode.js';
import { exceedsJsonNodes } from './json-nodes.js';
import { scanCapture } from './scan.js';
import { findUnstorableKey } from './storable.js';
import { UUID_BYTES, writeUuidv7 } from './uuid.js';
import type { CaptureWorkerData, DecodeOutcome, DecodeTask } from './tasks.js';

export function decodeRequest(task: DecodeTask, limits: CaptureWorkerData, nowMs: number): DecodeOutcome {
  try {
    const query = new URLSearchParams(task.rawQuery);
    const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
    const text = task.inflated ? body : inflateSync(locatePayload({
      body, query, contentType: task.contentType, contentEncoding: task.contentEncoding, maxDecompressedBytes: limits.maxDecompressedBytes,
    }), limits.maxDecompressedBytes);
    if (exceedsJsonNodes(text, limits.maxJsonNodes)) throw errors.tooManyJsonNodes(limits.maxJsonNodes);
    const scan = scanCapture(parseJson(text), query);
    let uuids: Uint8Array | null = null;
    if (scan.missingUuids > 0) {
      uuids = new Uint8Array(UUID_BYTES * scan.missingUuids);
      for (let i = 0; i < scan.missingUuids; i++) writeUuidv7(uuids, UUID_BYTES * i, nowMs);
    }
    return {
      scanned: {
        text, token: scan.token, droppedAt: scan.droppedAt === null ? null : Uint32Array.from(scan.droppedAt), dropped: scan.dropped,
        kept: scan.kept, missingUuids: scan.missingUuids, historical: scan.historical, sentAtMs: scan.sentAtMs,
        unstorable: scan.kept > 0 ? findUnstorableKey(text, scan.rawEvents) : null, nowMs, uuids,
      },
    };
  } catch (err) {
    if (err instanceof ApiError) return { refused: { status: err.status, ...err.body } };
    throw err;
  }
}

// The route's error for a refused request.
export function refusal(r: { status: number; type: ApiError['body']['type']; code: string; detail: string; attr: string | null }): ApiError {
  return new ApiError(r.status, r.type, r.code, r.detail, r.attr);
}
