// Capture frames for log tests, made the way capture makes them: scan the payload,
// then frame its JSON text with the request's context.
import { scanCapture } from '../../src/capture/scan.js';
import { captureFrame } from '../../src/capture/frames.js';
import type { LogFrame } from '../../src/log/types.js';

export interface FrameContext {
  projectId?: number;
  nowMs?: number;
  ip?: string | null;
  query?: string;
}

export function requestFrame(payload: unknown, ctx: FrameContext = {}): LogFrame {
  const text = Buffer.from(JSON.stringify(payload));
  const scan = scanCapture(JSON.parse(text.toString()), new URLSearchParams(ctx.query ?? ''));
  return captureFrame({
    projectId: ctx.projectId ?? 1, nowMs: ctx.nowMs ?? Date.now(), ip: ctx.ip === undefined ? '127.0.0.1' : ctx.ip,
    sentAtMs: scan.sentAtMs, historical: scan.historical, droppedAt: scan.droppedAt, kept: scan.kept, missingUuids: scan.missingUuids,
  }, text);
}

let counter = 0;

// A batch request of `n` events without uuids (capture generates them), each padded to about `pad` bytes.
export function batchRequest(n: number, pad = 0, distinctId = `frame-${process.pid}-${++counter}`) {
  return {
    api_key: 'phc_test',
    batch: Array.from({ length: n }, (_, i) => ({
      event: 'framed', distinct_id: distinctId, properties: pad > 0 ? { i, pad: 'x'.repeat(pad) } : { i },
    })),
  };
}
