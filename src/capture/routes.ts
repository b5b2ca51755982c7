// Capture endpoints: decode → scan (token, drops) → resolve project → durable append
// of the request as it arrived → 200. The events themselves are built by the log's
// reader, in the consumer thread (src/capture/frames.ts, docs/decisions/0009).
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import { json, noContent } from '../http/reply.js';
import { errors } from '../errors.js';
import type { EventLog } from '../log/types.js';
import { EventTooLargeError } from '../log/errors.js';
import { captureFrame } from './frames.js';
import type { TenancyStore } from '../tenancy/store.js';
import type { Metrics } from '../ops/metrics.js';
import { decodeBody, type DecodedBody } from './decode.js';
import { scanCapture } from './normalize.js';
import { findUnstorableKey } from './storable.js';

export interface CaptureDeps {
  log: EventLog;
  tenancy: TenancyStore;
  metrics: Metrics;
  limits: { maxEventBodyBytes: number; maxBatchBodyBytes: number; maxDecompressedBytes: number };
  // Beyond this many events awaiting a commit, capture answers 503 so SDKs retry.
  maxPendingEvents: number;
}

const OK: HttpResponse = json(200, { status: 1 });
const NO_CONTENT = noContent(204);

export function captureRoutes(deps: CaptureDeps): Route[] {
  const { log, tenancy, metrics } = deps;
  const maxDecompressedBytes = deps.limits.maxDecompressedBytes;

  // Too large for the log is the client's to fix (SDKs halve the batch on 413); anything else is ours and passes.
  const appendFailed = (err: unknown): never => {
    throw err instanceof EventTooLargeError ? errors.tooLarge(err.message) : errors.unavailable();
  };

  function accept(req: HttpRequest, decoded: DecodedBody): HttpResponse | Promise<HttpResponse> {
    const started = performance.now();
    const nowMs = Date.now();
    const scan = scanCapture(decoded.value, req.query);
    if (scan.token === null) throw errors.missingProjectKey();
    const project = tenancy.projectByToken(scan.token);
    if (!project) throw errors.invalidProjectKey();
    if (scan.droppedAt !== null) {
      for (const reason in scan.dropped) metrics.dropped.inc({ reason }, scan.dropped[reason as keyof typeof scan.dropped]);
    }
    const reply = req.query.get('beacon') === '1' ? NO_CONTENT : OK;
    if (scan.kept === 0) return reply;
    const unstorable = findUnstorableKey(decoded.text, scan.rawEvents);
    if (unstorable !== null) throw errors.unstorableKey(unstorable.key, unstorable.event);
    if (log.pending() > deps.maxPendingEvents) throw errors.unavailable();
    const frame = captureFrame({
      projectId: project.id, nowMs, ip: req.ip || null, sentAtMs: scan.sentAtMs, historical: scan.historical,
      droppedAt: scan.droppedAt, kept: scan.kept, missingUuids: scan.missingUuids,
    }, decoded.text);
    const kept = scan.kept;
    return log.appendFrame(frame).then(() => {
      metrics.ingested.inc(kept);
      metrics.ackLatency.observe((performance.now() - started) / 1000);
      return reply;
    }, appendFailed);
  }

  function handle(req: HttpRequest): HttpResponse | Promise<HttpResponse> {
    const decoded = decodeBody({
      body: req.body, query: req.query, contentType: req.headers['content-type'],
      contentEncoding: req.headers['content-encoding'], maxDecompressedBytes,
    });
    return decoded instanceof Promise ? decoded.then((d) => accept(req, d)) : accept(req, decoded);
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
