// Captures what destinations' programs captured with postHogCapture (../runtime/captured.ts):
// the deliveries write each batch to the destinations store with the slice's outcome; the
// main thread of the node that delivers reads them every 200 ms and captures each into its
// project through the capture path (src/capture/internal.ts), then removes it. A batch the
// log refuses for good (an unstorable key) is dropped with a warning; one that fails
// otherwise (the log unavailable) stays and is tried again.
import { ApiError } from '../../errors.js';
import type { EventLog } from '../../log/types.js';
import { captureInProject } from '../../capture/internal.js';
import type { DestinationsStore } from '../runtime/env.js';

const EVERY_MS = 200;
const BATCHES_PER_TURN = 100;

export function captureCaptured(ds: DestinationsStore, log: EventLog, now: () => number, onError: (err: Error) => void): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  async function drain(): Promise<void> {
    for (const { key, value } of ds.captures.getRange({ limit: BATCHES_PER_TURN })) {
      try {
        await captureInProject(log, value.projectId, value.events, now());
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        onError(new Error(`the events function ${value.functionId} captured were refused: ${err.message}`));
      }
      await ds.captures.remove(key);
    }
  }
  const timer = setInterval(() => {
    if (running !== null) return;
    running = drain().catch(onError).finally(() => { running = null; });
  }, EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
