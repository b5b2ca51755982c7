// Distributed event log on a NATS JetStream stream. A group commit becomes a few
// publishes (split under the server's max_payload), acknowledged by JetStream;
// the stream sequence is the log sequence. See docs/decisions/0001 for which
// stream and server settings make that acknowledgement durable.
import { connect, DeliverPolicy, RetentionPolicy, StorageType, type NatsConnection, type JetStreamClient } from 'nats';
import type { CapturedEvent, EventLog, LogEntry, LogReader } from './types.js';
import { encodeRecord, decodeRecord } from './record.js';
import { createGroupCommitter } from './group-commit.js';

export const STREAM = 'HEDGEROW_EVENTS';
export const SUBJECT = 'hedgerow.events';

export class EventTooLargeError extends Error {}

export interface NatsLogOptions {
  url: string;
  replicas?: number;
}

async function ensureStream(nc: NatsConnection, replicas: number): Promise<void> {
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.info(STREAM);
  } catch {
    await jsm.streams.add({
      name: STREAM,
      subjects: [SUBJECT],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      num_replicas: replicas,
      // Consumers keep their own positions; the stream is a bounded buffer.
      max_age: 7 * 24 * 3600 * 1e9,
    });
  }
}

// Splits a commit into records that each fit in one NATS message.
function chunk(events: CapturedEvent[], maxBytes: number): Buffer[] {
  const whole = encodeRecord(events);
  if (whole.length <= maxBytes) return [whole];
  if (events.length === 1) throw new EventTooLargeError(`event of ${whole.length} bytes exceeds the log's ${maxBytes}-byte message limit`);
  const mid = events.length >> 1;
  return [...chunk(events.slice(0, mid), maxBytes), ...chunk(events.slice(mid), maxBytes)];
}

export async function createNatsLog(opts: NatsLogOptions): Promise<EventLog> {
  const nc = await connect({ servers: opts.url, name: 'hedgerow-capture' });
  await ensureStream(nc, opts.replicas ?? 1);
  const js: JetStreamClient = nc.jetstream();
  const maxPayload = nc.info?.max_payload ?? 1024 * 1024;
  let lastAcked = (await (await nc.jetstreamManager()).streams.info(STREAM)).state.last_seq;
  const committer = createGroupCommitter({
    maxInFlight: 8,
    async commit(events) {
      const acks = await Promise.all(chunk(events, maxPayload - 1024).map((data) => js.publish(SUBJECT, data)));
      for (const ack of acks) if (ack.seq > lastAcked) lastAcked = ack.seq;
    },
  });
  return {
    append: (events) => committer.append(events),
    pending: () => committer.pending(),
    lastSeq: () => lastAcked,
    async close() {
      await committer.drain();
      await nc.drain();
    },
  };
}

const FETCH_MAX = 64;
const FETCH_EXPIRES_MS = 1000;

export async function createNatsLogReader(opts: NatsLogOptions): Promise<LogReader> {
  const nc = await connect({ servers: opts.url, name: 'hedgerow-consumer' });
  await ensureStream(nc, opts.replicas ?? 1);
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  return {
    async consume(after, handle, signal) {
      const consumer = await js.consumers.get(STREAM, {
        filterSubjects: [SUBJECT],
        deliver_policy: after > 0 ? DeliverPolicy.StartSequence : DeliverPolicy.All,
        ...(after > 0 ? { opt_start_seq: after + 1 } : {}),
      });
      while (!signal.aborted) {
        const messages = await consumer.fetch({ max_messages: FETCH_MAX, expires: FETCH_EXPIRES_MS });
        const entries: LogEntry[] = [];
        for await (const m of messages) {
          entries.push({ seq: m.seq, events: decodeRecord(m.data) });
          if (entries.length >= FETCH_MAX) break;
        }
        if (entries.length > 0) await handle(entries);
      }
    },
    async lastSeq() {
      const info = await jsm.streams.info(STREAM);
      return info.state.last_seq;
    },
    async close() {
      await nc.drain();
    },
  };
}
