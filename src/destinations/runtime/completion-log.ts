// The log line of a run that ended, written where the run's outcome arrives (the consumer's
// deliveries, the API's test invocation): apart from ./run-slice.ts, which loads the Hog VM.
import type { ExecutionTiming } from '../../hog/index.js';

/** PostHog's line for a run that ended without an error. */
export function completionLog(timings: readonly ExecutionTiming[], ops: number, maxMemoryBytes: number, eventUrl: unknown): string {
  const total = timings.reduce((sum, t) => sum + t.durationMs, 0);
  const sync = timings.filter((t) => t.kind === 'hog').reduce((sum, t) => sum + t.durationMs, 0);
  return completionLine(total, sync, ops, maxMemoryBytes, eventUrl);
}

/**
 * The same line from the run's times summed as they came (all of them, and the synchronous
 * ones): what the deliveries keep of a run in flight instead of its timings.
 */
export function completionLine(totalMs: number, syncMs: number, ops: number, maxMemoryBytes: number, eventUrl: unknown): string {
  return `Function completed in ${totalMs.toFixed(2)}ms. Sync: ${syncMs.toFixed(2)}ms. Mem: ${(maxMemoryBytes / 1024).toFixed(2)}kb. ` +
    `Ops: ${ops}. Event: '${String(eventUrl)}'`;
}
