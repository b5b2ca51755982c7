// Groups an async stream into batches of what has already arrived: waits for one
// item, then takes every further item that is ready without waiting, up to `max`.
// A consumer then applies many log entries per transaction when busy and each
// entry at once when idle, and never holds one back waiting for a fuller batch.
// Only one item is ever requested ahead, so a slow consumer slows the source.

const IDLE = Symbol('idle');

function afterPendingCallbacks(): Promise<typeof IDLE> {
  return new Promise((resolve) => setImmediate(resolve, IDLE));
}

export async function* availableBatches<T>(source: AsyncIterable<T>, max: number): AsyncGenerator<T[], void> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  for (;;) {
    const first = await next;
    if (first.done) return;
    const batch = [first.value];
    next = it.next();
    while (batch.length < max) {
      const r = await Promise.race([next, afterPendingCallbacks()]);
      if (r === IDLE) break;
      if (r.done) {
        yield batch;
        return;
      }
      batch.push(r.value);
      next = it.next();
    }
    yield batch;
  }
}
