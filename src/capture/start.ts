// The capture module's start: the decoding pool (a worker over its heap limit fails its
// requests with 503 rather than growing the process), started by the first body large
// enough to need it (most bodies are decoded on the main thread), and the capture routes. Capture is not
// ready while the log holds a million events awaiting their commit.
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import { createLazyWorkerPool } from '../pools/index.js';
import { captureRoutes, expectedDecodeMs, transferDecodeTask } from './routes.js';
import type { CaptureTasks, CaptureWorkerData } from './tasks.js';

const CAPTURE_WORKER_URL = new URL('../../workers/capture.js', import.meta.url);
// Beyond this many events awaiting a commit, capture answers 503 so SDKs retry.
const MAX_PENDING_EVENTS = 1_000_000;

export function startCapture(ctx: NodeContext, use: Use): Started {
  const { config } = ctx;
  const decoder = createLazyWorkerPool<CaptureTasks, CaptureWorkerData>({
    worker: CAPTURE_WORKER_URL, threads: config.capture.workers, maxBatch: 8, transfer: transferDecodeTask, expectedMs: expectedDecodeMs,
    workerData: { maxDecompressedBytes: config.capture.maxDecompressedBytes, maxJsonNodes: config.capture.maxJsonNodes },
    resourceLimits: { maxOldGenerationSizeMb: 768 },
  });
  return {
    routes: captureRoutes({
      log: ctx.eventLog, tenancy: use(accessModule).tenancy, metrics: ctx.metrics, limits: config.capture, maxPendingEvents: MAX_PENDING_EVENTS, decoder,
    }),
    ready: () => ({ log: ctx.eventLog.pending() < MAX_PENDING_EVENTS }),
    close: () => decoder.close(),
  };
}
