// A thread that goes quiet after a burst keeps the garbage the burst left in its heap and
// the buffers that garbage still points to (request bodies, decoded batches) until V8's
// next full collection, and V8 starts one only when the thread allocates again: an idle
// server held 330 MB of such garbage 30 s after a burst of large bodies, spread over its
// threads (bench/RESULTS.md, "burst of large bodies"). So each thread looks at its own
// heap every few seconds and, when it has been quiet since the last look and has grown by
// more than a bound since its last full collection, collects once. A busy thread is left
// to V8; a quiet one pays one collection per burst (tens of milliseconds on a heap of
// tens of megabytes), and one more a few seconds later: V8 gives back the young generation
// it grew for the burst (32 MB a thread) only in a collection made once its measure of the
// allocation rate (over the last 5 s) has fallen, which the first one comes too early for.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleCollectOptions {
  // How often the thread looks (ms).
  everyMs?: number;
  // Growth of heap and external memory (ArrayBuffers among it) since the last full
  // collection, beyond which a quiet thread collects.
  growthBytes?: number;
}

const EVERY_MS = 2_000;
const GROWTH_BYTES = 16 * 1024 * 1024;
// After a collection, the second one comes this much later (ms), if the thread is quiet
// then and its heap still has more room committed than the growth bound.
const FOLLOW_UP_MS = 8_000;
// Share of the last interval the thread's event loop spent working, under which it is quiet.
const QUIET_UTILIZATION = 0.1;

// V8's own full collection. Node exposes it only with --expose-gc, which a server should
// not need to be started with; the flag is read when a context is made, so it is set for
// one new context, which hands out its gc function, and unset again.
function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

const size = () => {
  const h = getHeapStatistics();
  return h.total_heap_size + h.external_memory;
};

let started = false;

// Started once per thread (the main thread, each consumer thread, each pool worker);
// the timer does not keep the thread alive.
export function collectWhenIdle({ everyMs = EVERY_MS, growthBytes = GROWTH_BYTES }: IdleCollectOptions = {}): void {
  if (started) return;
  started = true;
  let collect: (() => void) | null = null;
  let floor = size();
  let last = performance.eventLoopUtilization();
  // When the second collection is due (0: none is).
  let followUpAt = 0;
  const collectNow = () => {
    (collect ??= fullCollection())();
    floor = size();
    // The collection's own time is not the thread's work.
    last = performance.eventLoopUtilization();
  };
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    const quiet = performance.eventLoopUtilization(now, last).utilization < QUIET_UTILIZATION;
    last = now;
    const h = getHeapStatistics();
    const current = h.total_heap_size + h.external_memory;
    floor = Math.min(floor, current);
    if (!quiet) return;
    if (current - floor > growthBytes) {
      collectNow();
      followUpAt = Date.now() + FOLLOW_UP_MS;
    } else if (followUpAt !== 0 && Date.now() >= followUpAt) {
      followUpAt = 0;
      if (h.total_heap_size - h.used_heap_size > growthBytes) collectNow();
    }
  }, everyMs).unref();
}
