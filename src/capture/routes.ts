// Capture endpoints: decode → normalize → resolve project → durable append → 200.
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import { json, noContent } from '../http/reply.js';
import { errors } from '../errors.js';
import type { EventLog, CapturedEvent } from '../log/types.js';
import { EventTooLargeError } from '../log/errors.js';
import type { TenancyStore } from '../tenancy/store.js';
import type { Metrics } from '../ops/metrics.js';
import { decodePayload } from './decode.js';
import { normalizeCapture } from './normalize.js';
import { uuidv7 } from './uuid.js';

export interface CaptureDeps {
  log: EventLog;
  tenancy: TenancyStore;
  metrics: Metrics;
  limits: { maxEventBodyBytes: number; maxBatchBodyBytes: number; maxDecompressedBytes: number };
  // Beyond this many events awaiting a commit, capture answers 503 so SDKs retry.
  maxPendingEvents: number;
}

const newUuid = () => uuidv7();
const OK: HttpResponse = json(200, { status: 1 });
const NO_CONTENT = noContent(204);

export function captureRoutes(deps: CaptureDeps): Route[] {
  const { log, tenancy, metrics } = deps;

  async function handle(req: HttpRequest): Promise<HttpResponse> {
    const payload = await decodePayload({
      body: req.body, query: req.query, contentType: req.headers['content-type'],
      contentEncoding: req.headers['content-encoding'], maxDecompressedBytes: deps.limits.maxDecompressedBytes,
    });
    const started = performance.now();
    const normalized = normalizeCapture(payload, { now: new Date(), ip: req.ip || null, query: req.query, newUuid });
    if (normalized.token === null) throw errors.missingProjectKey();
    const project = tenancy.projectByToken(normalized.token);
    if (!project) throw errors.invalidProjectKey();

    for (const reason in normalized.dropped) {
      metrics.dropped.inc({ reason }, normalized.dropped[reason as keyof typeof normalized.dropped]);
    }
    const events = normalized.events as CapturedEvent[];
    if (events.length > 0) {
      if (log.pending() > deps.maxPendingEvents) throw errors.unavailable();
      for (const e of events) e.project_id = project.id;
      try {
        await log.append(events);
      } catch (err) {
        // Too large for the log is the client's to fix (SDKs halve the batch on 413); anything else is ours and passes.
        throw err instanceof EventTooLargeError ? errors.tooLarge(err.message) : errors.unavailable();
      }
      metrics.ingested.inc(events.length);
      metrics.ackLatency.observe((performance.now() - started) / 1000);
    }
    return req.query.get('beacon') === '1' ? NO_CONTENT : OK;
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
