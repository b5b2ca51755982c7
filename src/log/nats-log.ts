// Distributed event log on a NATS JetStream stream. A group commit becomes a few
// publishes (its frames packed in order into messages under the server's
// max_payload), acknowledged by JetStream; the stream sequence is the log sequence. See docs/decisions/0001 for which
// stream and server settings make that acknowledgement durable.
import { type NatsConnection, type JetStreamClient } from 'nats';
import { connectNats } from '../nats/connect.js';
import { followStream } from '../nats/follow.js';
import type { CapturedEvent, EventLog, LogCodec, LogEntry, LogFrame, LogReader } from './types.js';
import { encodeFrames, recordEntry, RECORD_OVERHEAD } from './record.js';
import { createGroupCommitter } from './group-commit.js';
import { EventTooLargeError, LogUnavailableError } from './errors.js';
import { ensureStream, natsLogId, STREAM, SUBJECT } from './nats-stream.js';

export { STREAM, SUBJECT };

export interface NatsLogOptions {
  url: string;
  // How frames are written and records read (capture's codec).
  codec: LogCodec;
  // Replicas of the stream when this creates it (HEDGEROW_NATS_REPLICAS; 1 when omitted).
  replicas?: number;
  // How long an append waits for JetStream's acknowledgement before failing.
  ackTimeoutMs?: number;
}

const DEFAULT_ACK_TIMEOUT_MS = 5000;
// Room left in each message for the protocol's headers.
const HEADER_SLACK_BYTES = 1024;

// Follows the connection's state so appends fail at once while it is down,
// instead of queueing in the client until their acknowledgement times out.
function trackConnected(nc: NatsConnection): () => boolean {
  let connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') connected = false;
      else if (s.type === 'reconnect') connected = true;
    }
  })();
  return () => connected && !nc.isClosed();
}

// Events as frames that each fit in one message, halving while one does not. An
// event that cannot fit in any message fails its own request, before it joins a
// group commit where it would fail everyone else's.
function eventFrames(codec: LogCodec, events: readonly CapturedEvent[], maxBytes: number): LogFrame[] {
  const frame = codec.eventsFrame(events);
  if (frame.bytes + RECORD_OVERHEAD <= maxBytes) return [frame];
  if (events.length === 1) {
    throw new EventTooLargeError(`event of ${frame.bytes} bytes exceeds the log's ${maxBytes}-byte message limit`);
  }
  const mid = events.length >> 1;
  return [...eventFrames(codec, events.slice(0, mid), maxBytes), ...eventFrames(codec, events.slice(mid), maxBytes)];
}

// A frame too large for one message (a capture request past max_payload) becomes its
// normalized events, exactly as a reader would build them, split under the limit.
function fitFrame(codec: LogCodec, frame: LogFrame, maxBytes: number): LogFrame | LogFrame[] {
  if (frame.bytes + RECORD_OVERHEAD <= maxBytes) return frame;
  return eventFrames(codec, codec.decode(encodeFrames([frame])), maxBytes);
}

// Packs a commit's frames, in order, into as few messages as the limit allows; a frame
// that must stand alone (LogFrame.alone) gets a message of its own.
export function pack(frames: readonly LogFrame[], maxBytes: number): Buffer[] {
  const messages: Buffer[] = [];
  let current: LogFrame[] = [];
  let size = RECORD_OVERHEAD;
  const close = () => {
    if (current.length > 0) messages.push(encodeFrames(current));
    current = [];
    size = RECORD_OVERHEAD;
  };
  for (const f of frames) {
    if (f.alone) {
      close();
      messages.push(encodeFrames([f]));
      continue;
    }
    if (size + f.bytes > maxBytes) close();
    current.push(f);
    size += f.bytes;
  }
  close();
  return messages;
}

export async function createNatsLog(opts: NatsLogOptions): Promise<EventLog> {
  const nc = await connectNats(opts.url, 'hedgerow-capture');
  const isConnected = trackConnected(nc);
  const stream = await ensureStream(nc, opts.replicas ?? 1);
  const state = stream.state;
  const js: JetStreamClient = nc.jetstream({ timeout: opts.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS });
  const maxBytes = (nc.info?.max_payload ?? 1024 * 1024) - HEADER_SLACK_BYTES;
  let lastAcked = state.last_seq;
  // Other nodes append to the same stream: what this process knows of its end is refreshed
  // from the stream's state, so the lag a node reports counts their events too (not only
  // its own appends).
  const jsm = await nc.jetstreamManager();
  const refresh = setInterval(() => {
    if (!isConnected()) return;
    jsm.streams.info(STREAM).then((info) => { if (info.state.last_seq > lastAcked) lastAcked = info.state.last_seq; }, () => {});
  }, STREAM_STATE_REFRESH_MS);
  refresh.unref();
  const committer = createGroupCommitter({
    maxInFlight: 8,
    async commit(frames) {
      if (!isConnected()) throw new LogUnavailableError('not connected to NATS');
      try {
        // One connection delivers these in order, so the stream keeps the append order.
        const acks = await Promise.all(pack(frames, maxBytes).map((data) => js.publish(SUBJECT, data)));
        for (const ack of acks) if (ack.seq > lastAcked) lastAcked = ack.seq;
      } catch (err) {
        throw new LogUnavailableError(`JetStream did not acknowledge: ${(err as Error).message}`);
      }
    },
  });
  return {
    id: natsLogId(stream),
    async append(events) {
      return committer.append(eventFrames(opts.codec, events, maxBytes));
    },
    async appendFrame(frame) {
      return committer.append(fitFrame(opts.codec, frame, maxBytes));
    },
    pending: () => committer.pending(),
    lastSeq: () => lastAcked,
    async close() {
      clearInterval(refresh);
      await committer.drain();
      // Draining waits for the server; with none there is nothing left to flush.
      if (isConnected()) await nc.drain();
      else await nc.close();
    },
  };
}

// How often a node reads the stream's end for its lag metrics (other nodes append too).
const STREAM_STATE_REFRESH_MS = 1000;

// Most entries handed to a consumer at once; also how many the server sends ahead.
const BATCH_MAX = 64;
// Marks an error thrown by the consumer's handler, which must reach the caller
// rather than be taken for a connection problem and retried.
class HandlerFailure {
  constructor(readonly cause: unknown) {}
}

export async function createNatsLogReader(opts: NatsLogOptions): Promise<LogReader> {
  const nc = await connectNats(opts.url, 'hedgerow-consumer');
  const stream = await ensureStream(nc, opts.replicas ?? 1);
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();

  return {
    id: natsLogId(stream),
    async consume(after, handle, signal) {
      let position = after;
      await followStream({
        js, stream: STREAM, subject: SUBJECT, batchMax: BATCH_MAX, signal,
        position: () => position,
        async apply(batch) {
          const entries: LogEntry[] = batch.map((m) => recordEntry(m.seq, m.data, opts.codec.decode));
          await handle(entries).catch((err) => { throw new HandlerFailure(err); });
          position = entries[entries.length - 1].seq;
        },
        behind: async () => (await jsm.streams.info(STREAM)).state.last_seq > position,
        fatal: (err) => err instanceof HandlerFailure,
      }).catch((err) => { throw err instanceof HandlerFailure ? err.cause : err; });
    },
    async lastSeq() {
      const info = await jsm.streams.info(STREAM);
      return info.state.last_seq;
    },
    async firstSeq() {
      // Once every message aged out, first_seq is the next sequence: a consumer that
      // applied the last one has lost nothing, one that did not has.
      return (await jsm.streams.info(STREAM)).state.first_seq;
    },
    async close() {
      if (nc.isClosed()) return;
      await nc.drain().catch(() => nc.close());
    },
  };
}
