// The management write path over NATS (regional ingest nodes, docs/decisions/0031): every
// command is published, msgpack-encoded, to one JetStream stream, and every node — the
// submitter included — reads that stream in order and applies each command with the same
// appliers as the embedded path (./local.ts), recording the stream sequence it applied in
// the same LMDB transaction. A submission resolves once JetStream has acknowledged the
// command (durable) and this node has applied it (read-your-writes), with the applier's
// result or error, matched by the message id the submitter gave it.
import { randomUUID } from 'node:crypto';
import { decode, encode } from '@msgpack/msgpack';
import type { JsMsg } from 'nats';
import { controlStreamAsset, followStream, type Cluster, type FollowerView, type FollowState } from '../cluster/index.js';
import type { Environments } from '../store/index.js';
import type { LogTables } from '../log/tables.js';
import type { AnyCommandSpec, Command, CommandSpec } from './commands.js';
import { ControlGapError, createCommandApplier, UnknownCommandError, type SequencedOutcome } from './local.js';
import type { AppliedListener, StateWrites } from './writes.js';
import { behindMessage, CONTROL_POSITION_PREFIX, controlPositionKey, controlStreamId } from './control-stream.js';
import { AppliedElsewhereError, ControlBehindError, ControlUnavailableError, ForeignStateError } from './errors.js';

export { AppliedElsewhereError, ControlBehindError, ControlUnavailableError, ForeignStateError };

export interface NatsWritesOptions<T> {
  store: T & LogTables & Pick<Environments, 'path'>;
  specs: readonly AnyCommandSpec<T>[];
  // The stream's name (tests use one per case; the table's row under that name); its
  // subject is derived from it.
  stream?: string;
  // Told when applying stops for good (a command this node has no applier for, a gap).
  onHalt?: (err: Error) => void;
  // Told when its consumer failed, or stalled, and is made anew (the cluster away, a server lost).
  onError?: (err: Error) => void;
  onStall?: (state: FollowState) => void;
  // Whether the data dir already holds management state. One that does but has applied
  // nothing of this stream was written elsewhere (embedded, or another cluster's stream):
  // applying the stream on top of it would leave this node unlike the others, so it is
  // refused (ForeignStateError).
  holdsState?: (store: T) => boolean;
}

export interface NatsWrites extends StateWrites {
  // The stream's identity (name and creation time) and this node's applied sequence in it.
  readonly id: string;
  applied(): number;
  // Commands in the stream this node has not applied yet, as far as it knows the stream's end.
  lag(): number;
  // Where its follower stands (src/cluster/follow.ts): the node's readiness and metrics.
  readonly follower: FollowerView;
  // Resolves once this node has applied everything the stream held when it was opened;
  // rejects with the error that halted it before then.
  caughtUp(): Promise<void>;
  // Caught up once, still applying (not halted) and following within the stall bound.
  ready(): boolean;
  // Why it is not ready; null when it is.
  unready(): string | null;
  close(): Promise<void>;
}

const BATCH_MAX = 256;

interface Waiter {
  resolve(outcome: SequencedOutcome): void;
  reject(err: Error): void;
}

// Over the cluster's control connection: publishes wait for JetStream's acknowledgement for
// the timings' ackTimeoutMs, and the follower's stall bound is theirs too.
export async function createNatsWrites<T>(cluster: Cluster, opts: NatsWritesOptions<T>): Promise<NatsWrites> {
  const { store } = opts;
  if (!cluster.jetstream) throw new Error('the NATS write path needs a cluster over NATS');
  const stream = await cluster.jetstream.stream(opts.stream ? controlStreamAsset(opts.stream) : 'control');
  const { js, subject, name: streamName } = stream;
  const info = await stream.current();
  const id = controlStreamId(info);
  const positionKey = controlPositionKey(id);
  if ((store.positions.get(positionKey) ?? 0) === 0) {
    let other: string | null = null;
    for (const key of store.positions.getKeys({ start: CONTROL_POSITION_PREFIX, end: `${CONTROL_POSITION_PREFIX}\uffff` })) if (key !== positionKey) other = key;
    if (other !== null || opts.holdsState?.(store)) {
      throw new ForeignStateError(`${store.path} holds management state that is not from control stream ${id} ` +
        `(${other ? `it applied ${other.slice(CONTROL_POSITION_PREFIX.length)}` : 'written without NATS'}); ` +
        'a node joins a cluster with an empty data dir, or with one it ran in that cluster');
    }
  }
  const applier = createCommandApplier(store, opts.specs);
  const listeners: AppliedListener[] = [];
  // Message ids are `${node}.${n}`: the node part is new for every process, so a
  // restarted node never takes an old command for its own.
  const node = randomUUID();
  let submitted = 0;
  const waiting = new Map<string, Waiter>();

  let applied = store.positions.get(positionKey) ?? 0;
  // Compacted past what this data dir needs next: replaying would apply a gap.
  if (info.state.first_seq > applied + 1) {
    throw new ControlBehindError(behindMessage(id, applied, info.state.first_seq));
  }
  const target = info.state.last_seq;
  let halted: Error | null = null;
  let closed = false;
  let reachedTarget = applied >= target;
  let onCaughtUp: (() => void) | null = null;
  let onHaltedBefore: ((err: Error) => void) | null = null;
  const caughtUp = new Promise<void>((resolve, reject) => {
    if (reachedTarget) resolve();
    else { onCaughtUp = resolve; onHaltedBefore = reject; }
  });
  // Whoever waits for it sees a halt during catch-up; nobody waiting is no crash.
  caughtUp.catch(() => undefined);

  function halt(err: Error) {
    halted = err;
    if (!reachedTarget) onHaltedBefore?.(err);
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
    opts.onHalt?.(err);
  }

  // Applies one batch of messages in stream order. Transactions are issued back to back
  // (lmdb-js runs them in order and shares commits), each writing its sequence; the batch
  // stops before a command this node cannot apply.
  async function applyBatch(batch: JsMsg[]): Promise<void> {
    // The stream was compacted past this node while it followed (it fell that far behind).
    if (batch.length > 0 && batch[0].seq > applied + 1) throw new ControlGapError(behindMessage(id, applied, batch[0].seq));
    const known = batch.findIndex((m) => !applier.knows((decode(m.data) as Command).kind));
    const runnable = known < 0 ? batch : batch.slice(0, known);
    const outcomes = await Promise.all(runnable.map((m) => applier.applyAt(decode(m.data) as Command, positionKey, m.seq)));
    runnable.forEach((m, i) => {
      const command = decode(m.data) as Command;
      const msgId = m.headers?.get('Nats-Msg-Id') ?? '';
      const waiter = waiting.get(msgId);
      if (waiter) waiting.delete(msgId);
      if (outcomes[i].status !== 'skipped' || applied < m.seq) applied = m.seq;
      for (const listener of listeners) listener(command.kind, waiter ? 'here' : 'elsewhere');
      waiter?.resolve(outcomes[i]);
    });
    if (!reachedTarget && applied >= target) {
      reachedTarget = true;
      onCaughtUp?.();
    }
    if (known >= 0) {
      const kind = (decode(batch[known].data) as Command).kind;
      throw new UnknownCommandError(`control stream ${streamName} sequence ${batch[known].seq}: no applier for command ${kind} ` +
        '(a node of a newer version wrote it); this node stops applying until it is upgraded');
    }
  }

  // The follower (src/cluster/follow.ts): the stream from the applied sequence on, its
  // consumer made anew when the server went away, or when it stalled: the stream's end (read
  // by the follower, and known from each acknowledgement of this node's own submissions)
  // holds a command it has not delivered. A node that submits nothing is no exception: a
  // command another node submitted is seen at the stream's end all the same.
  const stopping = new AbortController();
  const following = followStream({
    stream, batchMax: BATCH_MAX, stallMs: cluster.timings.stallMs, signal: stopping.signal, label: `control_${cluster.node}`,
    position: () => applied,
    apply: applyBatch,
    fatal: (err) => err instanceof UnknownCommandError || err instanceof ControlGapError,
    onError: (err) => opts.onError?.(err as Error),
    onStall: (state) => opts.onStall?.(state),
  });
  following.observe(info.state.last_seq);
  const running = following.done.catch((err: unknown) => halt(err as Error));
  const unready = (): string | null => {
    if (closed) return 'the control stream follower is closed';
    if (halted) return `the control stream follower halted: ${halted.message}`;
    if (!reachedTarget) return `catching up with the control stream (applied ${applied} of ${target})`;
    const stale = following.stale();
    return stale === null ? null : `control stream ${streamName}: ${stale}`;
  };

  const writes: NatsWrites = {
    id,
    applied: () => applied,
    lag: () => following.state().lag,
    follower: following,
    caughtUp: () => caughtUp,
    ready: () => unready() === null,
    unready,
    onApplied(listener) {
      listeners.push(listener);
    },
    async submit<P, R>(spec: CommandSpec<P, R>, payload: P): Promise<R> {
      if (!applier.has(spec)) throw new UnknownCommandError(`command ${spec.kind} is not registered here`);
      if (halted) throw halted;
      if (closed) throw new ControlUnavailableError('the control stream is closed');
      const msgId = `${node}.${++submitted}`;
      const data = encode({ kind: spec.kind, payload } satisfies Command, { ignoreUndefined: true });
      const outcome = new Promise<SequencedOutcome>((resolve, reject) => waiting.set(msgId, { resolve, reject }));
      // Rejections before the publish settled are taken below, not left unhandled.
      outcome.catch(() => undefined);
      try {
        // One connection keeps the publication order, so the stream keeps the submission order.
        const ack = await js.publish(subject, data, { msgID: msgId });
        following.observe(ack.seq);
      } catch (err) {
        waiting.delete(msgId);
        throw new ControlUnavailableError(`the control stream did not acknowledge ${spec.kind}: ${(err as Error).message}`);
      }
      const o = await outcome;
      if (o.status === 'error') throw o.error;
      if (o.status === 'skipped') throw new AppliedElsewhereError(`${spec.kind} was applied to this data dir by another process`);
      return o.value as R;
    },
    async close() {
      if (closed) return;
      closed = true;
      stopping.abort();
      for (const w of waiting.values()) w.reject(new ControlUnavailableError('the control stream was closed'));
      waiting.clear();
      await running;
    },
  };
  return writes;
}
