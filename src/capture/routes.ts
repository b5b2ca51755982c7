// Capture endpoints: decode → scan (token, drops) → resolve project → durable append
// of the request as it arrived → 200. The events themselves are built by the log's
// reader, in the consumer thread (src/capture/frames.ts, docs/decisions/0009). A body
// whose JSON text is small is parsed and scanned here; a large one, or one that
// inflates to more, in the capture worker pool (docs/decisions/0029), so that no
// request holds up the others.
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import { json, noContent } from '../http/reply.js';
import { ApiError, errors } from '../errors.js';
import type { EventLog } from '../log/types.js';
import { EventTooLargeError } from '../log/errors.js';
import type { TaskRunner } from '../pools/index.js';
import { captureFrame } from './frames.js';
import type { TenancyStore } from '../access/index.js';
import type { Metrics } from '../metrics.js';
import { gunzipCapped, isGzip, isPlainJson, locatePayload, parseJson, type DecodeInput, type Payload } from './decode.js';
import { decompressLz64 } from './lz64.js';
import type { CaptureScan } from './normalize.js';
import { scanCapture } from './scan.js';
import { findUnstorableKey, type UnstorableKey } from './storable.js';
import { ownedBuffer, type CaptureTasks, type DecodeTask } from './tasks.js';
import { refusal } from './decode-request.js';

export interface CaptureDeps {
  log: EventLog;
  tenancy: TenancyStore;
  metrics: Metrics;
  limits: { maxEventBodyBytes: number; maxBatchBodyBytes: number; maxDecompressedBytes: number };
  // Beyond this many events awaiting a commit, capture answers 503 so SDKs retry.
  maxPendingEvents: number;
  // The capture worker pool (workers/capture.ts).
  decoder: TaskRunner<CaptureTasks>;
}

// JSON texts up to this size are parsed on the HTTP thread: at most about 0.5 ms for
// real events, 1.3 ms for `{},{},…` and 4 ms for `[[[…` (docs/decisions/0029), less
// than a trip to the worker costs for SDK-sized batches. The capture worker's bound on
// objects and arrays (config maxJsonNodes) is at least this many, so such a body never
// needs it counted.
export const MAIN_THREAD_BYTES = 64 * 1024;

// What the route needs of a scan, from this thread's scanCapture or the worker's.
type FrontScan = Omit<CaptureScan, 'rawEvents' | 'droppedAt'> & { droppedAt: ArrayLike<number> | null };

// The pool moves a request's body to the worker rather than copying it.
export const transferDecodeTask = (input: unknown): ArrayBuffer[] => ownedBuffer((input as DecodeTask).body);

// What a request costs the capture worker is about its JSON text's size (inflating, counting
// and parsing are linear), some 20 KB a millisecond. The pool's queue is ordered by arrival
// plus that (src/pools/create.ts expectedMs), so a bomb queued ahead of an SDK's batch
// does not hold it up, and neither does a hundred of them (issue 27).
const WORKER_BYTES_PER_MS = 20_000;
export const expectedDecodeMs = (input: unknown): number => (input as DecodeTask).expectedBytes / WORKER_BYTES_PER_MS;
// A compressed body is inflated off the event loop (libuv's pool) up to this many bytes
// before it is queued, so its cost is known; one that inflates past it is queued as if
// it inflated to the cap, behind whatever costs less.
const KNOWN_COST_BYTES = 4 * 1024 * 1024;

const OK: HttpResponse = json(200, { status: 1 });
const NO_CONTENT = noContent(204);

export function captureRoutes(deps: CaptureDeps): Route[] {
  const { log, tenancy, metrics, decoder } = deps;
  const maxDecompressedBytes = deps.limits.maxDecompressedBytes;

  // Too large for the log is the client's to fix (SDKs halve the batch on 413); anything else is ours and passes.
  const appendFailed = (err: unknown): never => {
    throw err instanceof EventTooLargeError ? errors.tooLarge(err.message) : errors.unavailable();
  };
  // The worker could not answer (its queue is full, or it stopped): ours, the SDK retries.
  const decoderFailed = (): never => { throw errors.unavailable(); };

  function accept(req: HttpRequest, text: Buffer, scan: FrontScan, unstorable: UnstorableKey | null, nowMs: number,
    uuids: Uint8Array | null, started: number): HttpResponse | Promise<HttpResponse> {
    if (scan.token === null) throw errors.missingProjectKey();
    const project = tenancy.projectByToken(scan.token);
    if (!project) throw errors.invalidProjectKey();
    if (scan.droppedAt !== null) {
      for (const reason in scan.dropped) metrics.dropped.inc({ reason }, scan.dropped[reason as keyof typeof scan.dropped]);
    }
    const reply = req.query.get('beacon') === '1' ? NO_CONTENT : OK;
    if (scan.kept === 0) return reply;
    if (unstorable !== null) throw errors.unstorableKey(unstorable.key, unstorable.event);
    if (log.pending() > deps.maxPendingEvents) throw errors.unavailable();
    const frame = captureFrame({
      projectId: project.id, nowMs, ip: req.ip || null, sentAtMs: scan.sentAtMs, historical: scan.historical,
      droppedAt: scan.droppedAt, kept: scan.kept, missingUuids: scan.missingUuids, uuids,
    }, text);
    const kept = scan.kept;
    return log.appendFrame(frame).then(() => {
      metrics.ingested.inc(kept);
      metrics.ackLatency.observe((performance.now() - started) / 1000);
      return reply;
    }, appendFailed);
  }

  function onThisThread(req: HttpRequest, text: Buffer, started: number): HttpResponse | Promise<HttpResponse> {
    const scan = scanCapture(parseJson(text), req.query);
    const unstorable = scan.kept > 0 ? findUnstorableKey(text, scan.rawEvents) : null;
    return accept(req, text, scan, unstorable, Date.now(), null, started);
  }

  // `inflated`: the request's JSON text, inflated here already; else the body as sent,
  // `expectedBytes` the JSON it is thought to hold.
  function inWorker(req: HttpRequest, started: number, inflated: Buffer | null, expectedBytes: number): Promise<HttpResponse> {
    return decoder.run('decode', {
      body: inflated ?? req.body, rawQuery: req.rawQuery, contentType: req.headers['content-type'], contentEncoding: req.headers['content-encoding'],
      inflated: inflated !== null, expectedBytes: inflated?.length ?? expectedBytes,
    }).then((outcome) => {
      if ('refused' in outcome) throw refusal(outcome.refused);
      const s = outcome.scanned;
      return accept(req, Buffer.from(s.text.buffer, s.text.byteOffset, s.text.byteLength), s, s.unstorable, s.nowMs, s.uuids, started);
    }, decoderFailed);
  }

  // A small compressed body is inflated here up to MAIN_THREAD_BYTES (gzip on libuv's
  // pool, lz64 in at most about a millisecond), as SDKs' gzipped batches are; only one
  // that inflates past that goes to the worker, which applies the real cap. The trip
  // through the pool cost twice the process CPU per gzipped event (bench/RESULTS.md).
  const hereCap = Math.min(MAIN_THREAD_BYTES, maxDecompressedBytes);
  const knownCap = Math.min(KNOWN_COST_BYTES, maxDecompressedBytes);
  function inflateHere(req: HttpRequest, payload: Payload, started: number): HttpResponse | Promise<HttpResponse> {
    if ('text' in payload) return payload.text.length <= MAIN_THREAD_BYTES ? onThisThread(req, payload.text, started) : inWorker(req, started, null, payload.text.length);
    if ('lz64' in payload) {
      let text: Buffer;
      try {
        text = decompressLz64(payload.lz64, hereCap);
      } catch (err) {
        if (err instanceof ApiError && err.status === 413) return inWorker(req, started, null, maxDecompressedBytes);
        throw err;
      }
      return onThisThread(req, text, started);
    }
    return gunzipKnown(req, payload.gzip, started);
  }

  // Inflated on libuv's pool up to knownCap: small enough, decoded here; larger, queued
  // for the worker at its known cost; past knownCap, queued as if at the cap.
  function gunzipKnown(req: HttpRequest, gzip: Buffer, started: number): Promise<HttpResponse> {
    return gunzipCapped(gzip, knownCap).then((text) => {
      if (text === null) return inWorker(req, started, null, maxDecompressedBytes);
      return text.length <= MAIN_THREAD_BYTES ? onThisThread(req, text, started) : inWorker(req, started, text, text.length);
    });
  }

  function handle(req: HttpRequest): HttpResponse | Promise<HttpResponse> {
    const started = performance.now();
    if (req.body.length > MAIN_THREAD_BYTES) {
      // Not located here (base64 and forms take a pass over the whole body): a gzip body
      // as sent is inflated on libuv's pool; plain JSON costs its length; anything else the
      // cap, as far as the queue knows.
      if (isGzip(req.body)) return gunzipKnown(req, req.body, started);
      const plainJson = isPlainJson({ body: req.body, query: req.query, contentType: req.headers['content-type'], contentEncoding: req.headers['content-encoding'], maxDecompressedBytes });
      return inWorker(req, started, null, plainJson ? req.body.length : maxDecompressedBytes);
    }
    const input: DecodeInput = {
      body: req.body, query: req.query, contentType: req.headers['content-type'],
      contentEncoding: req.headers['content-encoding'], maxDecompressedBytes,
    };
    if (isPlainJson(input)) return onThisThread(req, req.body, started);
    return inflateHere(req, locatePayload(input), started);
  }

  const single = deps.limits.maxEventBodyBytes;
  const methods = ['GET', 'POST'] as const;
  return [
    { methods, pattern: '/i/v0/e', bodyLimit: single, handler: handle },
    { methods, pattern: '/e', bodyLimit: single, handler: handle },
    { methods, pattern: '/capture', bodyLimit: single, handler: handle },
    { methods, pattern: '/track', bodyLimit: single, handler: handle },
    { methods, pattern: '/engage', bodyLimit: single, handler: handle },
    // SPEC §8: a batch body must be strictly smaller than the limit.
    { methods, pattern: '/batch', bodyLimit: deps.limits.maxBatchBodyBytes - 1, handler: handle },
  ];
}
