// Following a JetStream stream in order, as the control-stream follower, the event-log
// readers and the hog telemetry follower do: an ordered consumer from the last applied
// sequence on, its messages in batches of what has arrived (./available-batches.ts),
// made anew from what is applied whenever it fails (the server went away) or stalls.
//
// After a server of a JetStream cluster was lost and leaders were elected again, an ordered
// consumer was seen to stop delivering for good, or for tens of seconds (docs/decisions/0031,
// issue 27): nothing tells the client, so every follower watches its place in the stream
// (./lag.ts). It reads the stream's end every quarter of the stall bound (the timings' stallMs)
// and learns it also from each delivered message and, through observe(), from what its
// caller publishes. While it waits for a batch and the stream has held a message it has not
// had for half the bound, its consumer is abandoned (whatever it still yields is ignored) and
// made anew, so a stalled consumer is rebuilt within the bound. A follower still behind past
// the whole bound, or that learnt nothing of its stream's end for as long, says so (stale()):
// the node's readiness reads it. Creating a consumer is bounded too (below), as the cluster
// may not answer meanwhile.
import { setTimeout as delay } from 'node:timers/promises';
import type { ConsumerMessages, JsMsg } from 'nats';
import { availableBatches } from './available-batches.js';
import { staleReason, streamLag, type FollowState } from './lag.js';
import type { StreamHandle } from './types.js';

export type { FollowState } from './lag.js';

const RETRY_MS = 250;
const RESTART = Symbol('restart');

export interface FollowOptions {
  // Its subject is followed; a control stream under a test's name has its own.
  stream: StreamHandle;
  // Begins its consumers' names (after a cleaning to what JetStream accepts), so the server's
  // consumer list tells whose each is: what it follows and the process's node name.
  label?: string;
  batchMax: number;
  stallMs: number;
  // The last sequence applied (0: none): a consumer starts after it.
  position(): number;
  // Applies a batch in order; the follower asks position() again afterwards.
  apply(batch: JsMsg[]): Promise<void>;
  // An error that ends the follow (thrown to the caller) rather than restarting it.
  fatal?(err: unknown): boolean;
  onError?(err: unknown): void;
  // Told when a consumer is abandoned as stalled, with where the follower stood.
  onStall?(state: FollowState): void;
  signal: AbortSignal;
}

export interface Follower {
  // Resolves when the signal aborts; rejects with an error `fatal` accepts.
  readonly done: Promise<void>;
  // The stream holds at least through `end` (an acknowledged publish): learnt without asking.
  observe(end: number): void;
  // Where it stands in its stream now.
  state(): FollowState;
  // Why it cannot say it follows its stream within the stall bound; null when it can.
  stale(): string | null;
  // Consumers abandoned as stalled since it started.
  stalls(): number;
}

// What a follower's owner shows of it: the node's readiness and metrics.
export type FollowerView = Pick<Follower, 'state' | 'stale' | 'stalls'>;

// Ends early on a stop, including one that came before it began (node's timer rejects at once
// then; a stop during the await before a linger had waited the linger out: seen in CI).
const sleep = (ms: number, signal: AbortSignal): Promise<void> => delay(ms, undefined, { signal }).catch(() => undefined);

// nats.js's ordered consumer retries making its first server-side consumer by itself, up to
// 30 times with pauses of 15 to 45 s, and goes on once its connection is draining or closed:
// a follower stopped (its handle closed) while a consumer was being made left a timer that
// kept the process alive for minutes. create() below retries on its own terms, so the
// consumer is told to give up at its first failure (a field of the library's
// OrderedPullConsumerImpl, public in its typings).
function retryNone<C extends object>(consumer: C): C {
  if ('maxInitialReset' in consumer) (consumer as { maxInitialReset: number }).maxInitialReset = 0;
  return consumer;
}

export function followStream(opts: FollowOptions): Follower {
  const { signal, stallMs } = opts;
  const { js, name, subject } = opts.stream;
  const prefix = opts.label ? { name_prefix: `${opts.label.replace(/[^A-Za-z0-9_-]/g, '-')}_` } : {};
  const lag = streamLag(Date.now());
  const state = () => lag.state(opts.position(), Date.now());
  let stalls = 0;
  // The consumer in use: since when it waits for a batch (null while one is applied), and how
  // to abandon it.
  let waitingSince: number | null = null;
  let restart: () => void = () => undefined;

  // Reads the stream's end, then abandons a consumer that waited for half the bound while the
  // stream held a message it has not had for as long. One read at a time: a cluster that does
  // not answer must not pile them up.
  let reading = false;
  const watchdog = setInterval(() => {
    if (reading) return;
    reading = true;
    opts.stream.current().then((info) => lag.observe(info.state.last_seq, Date.now()), () => undefined).finally(() => {
      reading = false;
      const now = Date.now();
      if (waitingSince === null || now - waitingSince < stallMs / 2) return;
      const st = lag.state(opts.position(), now);
      if (st.behindMs < stallMs / 2) return;
      stalls++;
      opts.onStall?.(st);
      restart();
    });
  }, stallMs / 4);
  // The follow itself keeps its caller busy; the watch alone must not keep a process alive.
  watchdog.unref();

  // Makes a consumer from position `at` on. Right after a server is lost JetStream may never
  // answer a request (its meta leader being elected, the consumer placed on the lost server),
  // while on a loaded machine an answer may take seconds: so an attempt is started every
  // quarter of the stall bound while none has answered, the first consumer made is used and any
  // made later stopped, and after the whole bound it gives up (the caller tries again).
  function create(at: number): Promise<ConsumerMessages> {
    return new Promise((resolve, reject) => {
      let made = false;
      let started = 0;
      let failure: unknown = null;
      const end = (err: unknown) => {
        made = true;
        clearInterval(again);
        signal.removeEventListener('abort', aborted);
        reject(err);
      };
      const aborted = () => end(new Error('the follow was stopped'));
      const attempt = () => {
        started++;
        js.consumers.get(name, { filterSubjects: subject, ...prefix, ...(at > 0 ? { opt_start_seq: at + 1 } : {}) })
          .then((consumer) => retryNone(consumer).consume({ max_messages: opts.batchMax }))
          .then((m) => {
            if (made) return m.stop();
            made = true;
            clearInterval(again);
            signal.removeEventListener('abort', aborted);
            resolve(m);
          }, (err: unknown) => { failure = err; });
      };
      const again = setInterval(() => {
        if (started < 4) attempt();
        else end(failure ?? new Error('JetStream did not answer in time'));
      }, stallMs / 4);
      signal.addEventListener('abort', aborted);
      attempt();
    });
  }

  async function follow(): Promise<void> {
    while (!signal.aborted) {
      const restarted = new Promise<typeof RESTART>((resolve) => { restart = () => resolve(RESTART); });
      let messages: ConsumerMessages | null = null;
      const stop = () => { messages?.stop(); restart(); };
      signal.addEventListener('abort', stop);
      try {
        messages = await create(opts.position());
        if (signal.aborted) break;
        const batches = availableBatches(messages, opts.batchMax)[Symbol.asyncIterator]();
        for (;;) {
          waitingSince = Date.now();
          const next = batches.next();
          next.catch(() => undefined);
          const r = await Promise.race([next, restarted]);
          if (r === RESTART || r.done) break;
          waitingSince = null;
          const last = r.value[r.value.length - 1];
          // What the server still had for this consumer when it sent the batch's last message.
          lag.observe(last.seq + last.info.pending, Date.now());
          await opts.apply(r.value);
        }
      } catch (err) {
        if (opts.fatal?.(err)) throw err;
        if (!signal.aborted) opts.onError?.(err);
      } finally {
        waitingSince = null;
        restart = () => undefined;
        signal.removeEventListener('abort', stop);
        messages?.stop();
      }
      await sleep(RETRY_MS, signal);
    }
  }
  const done = follow().finally(() => clearInterval(watchdog));
  return {
    done,
    observe: (end) => lag.observe(end, Date.now()),
    state,
    stale: () => staleReason(state(), stallMs),
    stalls: () => stalls,
  };
}
