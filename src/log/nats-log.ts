// Distributed event log on a NATS JetStream stream. A group commit becomes a few
// publishes (its frames packed in order into messages under the server's
// max_payload), acknowledged by JetStream; the stream sequence is the log sequence. See docs/decisions/0001 for which
// stream and server settings make that acknowledgement durable. Both the log and its readers
// work over the cluster handle's stream (src/cluster/): the process's `bulk` connection, or a
// consumer thread's own.
import { followStream, type JetStream } from '../cluster/index.js';
import type { CapturedEvent, EventLog, LogCodec, LogEntry, LogFrame, LogReader } from './types.js';
import { encodeFrames, recordEntry, RECORD_OVERHEAD } from './record.js';
import { createGroupCommitter } from './group-commit.js';
import { EventTooLargeError, LogUnavailableError } from './errors.js';
import { natsLogId, STREAM, SUBJECT } from './nats-stream.js';

export { STREAM, SUBJECT };

// Room left in each message for the protocol's headers.
const HEADER_SLACK_BYTES = 1024;

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

// `codec`: how frames are written and records read (capture's). Appends wait for JetStream's
// acknowledgement for the cluster timings' ackTimeoutMs.
export async function createNatsLog(jetstream: JetStream, codec: LogCodec): Promise<EventLog> {
  const handle = await jetstream.stream('events');
  const { js, link } = handle;
  const isConnected = link.connected;
  const stream = await handle.current();
  const maxBytes = link.maxPayload() - HEADER_SLACK_BYTES;
  let lastAcked = stream.state.last_seq;
  // Other nodes append to the same stream: what this process knows of its end is refreshed
  // from the stream's state, so the lag a node reports counts their events too (not only
  // its own appends).
  const refresh = setInterval(() => {
    if (!isConnected()) return;
    handle.current().then((info) => { if (info.state.last_seq > lastAcked) lastAcked = info.state.last_seq; }, () => {});
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
      return committer.append(eventFrames(codec, events, maxBytes));
    },
    async appendFrame(frame) {
      return committer.append(fitFrame(codec, frame, maxBytes));
    },
    pending: () => committer.pending(),
    lastSeq: () => lastAcked,
    // The connection is the cluster's: it closes with the cluster, after every appender.
    async close() {
      clearInterval(refresh);
      await committer.drain();
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

export async function createNatsLogReader(jetstream: JetStream, codec: LogCodec, stallMs: number): Promise<LogReader> {
  const stream = await jetstream.stream('events');

  return {
    id: natsLogId(stream.info),
    async consume(after, handle, signal) {
      let position = after;
      await followStream({
        stream, batchMax: BATCH_MAX, stallMs, signal,
        position: () => position,
        async apply(batch) {
          const entries: LogEntry[] = batch.map((m) => recordEntry(m.seq, m.data, codec.decode, codec.projects, codec.keys));
          await handle(entries).catch((err) => { throw new HandlerFailure(err); });
          position = entries[entries.length - 1].seq;
        },
        fatal: (err) => err instanceof HandlerFailure,
      }).done.catch((err) => { throw err instanceof HandlerFailure ? err.cause : err; });
    },
    async lastSeq() {
      return (await stream.current()).state.last_seq;
    },
    async firstSeq() {
      // Once every message aged out, first_seq is the next sequence: a consumer that
      // applied the last one has lost nothing, one that did not has.
      return (await stream.current()).state.first_seq;
    },
    // The connection is the cluster's, closed with it.
    async close() {},
  };
}
