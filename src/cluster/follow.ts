// Following a JetStream stream in order, as the control-stream follower, the event-log
// readers and the hog telemetry follower do: an ordered consumer from the last applied
// sequence on, its messages in batches of what has arrived (./available-batches.ts),
// made anew from what is applied whenever it fails (the server went away) or stalls. After a
// server of a JetStream cluster was lost and leaders were elected again, an ordered consumer
// was seen to stop delivering for good (docs/decisions/0031): while the follower waits for
// a batch and its `behind` check says the stream holds what it has not had, for the stall
// bound (the timings' stallMs, 5 s), the consumer is abandoned (whatever it still yields is
// ignored) and made anew. Creating one is bounded by it too, as the cluster may not answer
// meanwhile.
import type { ConsumerMessages, JsMsg } from 'nats';
import { availableBatches } from './available-batches.js';
import type { StreamHandle } from './types.js';

const RETRY_MS = 250;
const RESTART = Symbol('restart');

export interface FollowOptions {
  // Its subject is followed; a control stream under a test's name has its own.
  stream: StreamHandle;
  batchMax: number;
  stallMs: number;
  // The last sequence applied (0: none): a consumer starts after it.
  position(): number;
  // Applies a batch in order; the follower asks position() again afterwards.
  apply(batch: JsMsg[]): Promise<void>;
  // Whether the stream holds messages this follower has not had (asked while it waits).
  behind(): Promise<boolean> | boolean;
  // An error that ends the follow (thrown to the caller) rather than restarting it.
  fatal?(err: unknown): boolean;
  onError?(err: unknown): void;
  signal: AbortSignal;
}

const bounded = <T>(p: Promise<T>, ms: number): Promise<T> => Promise.race([
  p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('JetStream did not answer in time')), ms).unref()),
]);

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); };
  const timer = setTimeout(done, ms);
  signal.addEventListener('abort', done);
});

// Resolves when `signal` aborts; rejects with an error `fatal` accepts.
export async function followStream(opts: FollowOptions): Promise<void> {
  const { signal, stallMs } = opts;
  const { js, name, subject } = opts.stream;
  while (!signal.aborted) {
    // Waiting for a batch since (null while one is applied).
    let waitingSince: number | null = Date.now();
    let restart: () => void = () => undefined;
    const restarted = new Promise<typeof RESTART>((resolve) => { restart = () => resolve(RESTART); });
    const watchdog = setInterval(() => {
      if (waitingSince === null || Date.now() - waitingSince < stallMs) return;
      Promise.resolve(opts.behind()).then((behind) => { if (behind && waitingSince !== null) restart(); }, () => {});
    }, stallMs / 4);
    // The follow itself keeps its caller busy; the check alone must not keep a process alive.
    watchdog.unref();
    let messages: ConsumerMessages | null = null;
    const stop = () => { messages?.stop(); restart(); };
    signal.addEventListener('abort', stop);
    try {
      const at = opts.position();
      const consumer = await bounded(js.consumers.get(name, { filterSubjects: subject, ...(at > 0 ? { opt_start_seq: at + 1 } : {}) }), stallMs);
      messages = await bounded(consumer.consume({ max_messages: opts.batchMax }), stallMs);
      if (signal.aborted) break;
      const batches = availableBatches(messages, opts.batchMax)[Symbol.asyncIterator]();
      for (;;) {
        waitingSince = Date.now();
        const next = batches.next();
        next.catch(() => undefined);
        const r = await Promise.race([next, restarted]);
        if (r === RESTART || r.done) break;
        waitingSince = null;
        await opts.apply(r.value);
      }
    } catch (err) {
      if (opts.fatal?.(err)) throw err;
      if (!signal.aborted) opts.onError?.(err);
    } finally {
      clearInterval(watchdog);
      signal.removeEventListener('abort', stop);
      messages?.stop();
    }
    await sleep(RETRY_MS, signal);
  }
}
