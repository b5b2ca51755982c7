// A pool's threads are not terminated while they load. In Node 20, terminating a worker
// inside its module loading can abort the whole process; seen when a server closed right
// after it started: V8's "IsGraphAsync must be used on an instantiated module" while
// Piscina required a worker's ES module, and lmdb-js throwing into a dying isolate inside
// the store's open at a worker's top level. So each worker counts itself loaded, in one
// Int32 it shares with its pool (handed over in workerData), once its module has run;
// closing waits until the threads the pool started have loaded (a fraction of a second
// each; bounded, for a worker that never will), then terminates them.
export const LOADED_COUNTER = 'hedgerowLoadedCounter';
// How long closing waits for threads still loading.
const LOAD_WAIT_MS = 30_000;

export function newLoadedCounter(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

// How often closing looks at the counter meanwhile.
const POLL_MS = 10;

// Worker side, once its module has run (./serve.ts serveTasks).
export function countLoaded(counter: Int32Array | undefined): void {
  if (counter !== undefined) Atomics.add(counter, 0, 1);
}

// Pool side: whether `started` workers (the pool's first ones and each replacement since) are
// not all loaded yet, the last of them started less than LOAD_WAIT_MS ago (`sinceMs`, from
// performance.now()): past that a worker that never loads is waited for no longer.
export function stillLoading(counter: Int32Array, started: number, sinceMs: number): boolean {
  return Atomics.load(counter, 0) < started && performance.now() - sinceMs < LOAD_WAIT_MS;
}

// Pool side: resolves once `threads` workers have counted themselves loaded, or after
// LOAD_WAIT_MS.
export async function allLoaded(counter: Int32Array, threads: number): Promise<void> {
  const deadline = Date.now() + LOAD_WAIT_MS;
  while (Atomics.load(counter, 0) < threads && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
}
