// The serve node's side of queries over NATS (./nats-protocol.ts): an InsightsEngine whose
// queries go to the queue group of `hedgerow aggregate` replicas. A query is asked again,
// of whichever replica NATS picks next, when the one that took it is behind (has not
// loaded the position the query needs), shutting down, or silent for a while (a dead
// process); no replica at all is asked again until the time limit, then the API answers 503.
import { randomUUID } from 'node:crypto';
import { createInbox, type Msg } from 'nats';
import type { JetStream } from '../cluster/index.js';
import { EngineUnavailableError, QueryCancelledError, type EngineAnswer, type InsightsEngine } from './engine.js';
import {
  CANCEL_SUBJECT, decodeReplicaMessage, joinParts, KEEPALIVE_MS, QUERY_SUBJECT, STATUS_INTERVAL_MS, STATUS_SUBJECT,
  type NatsQueryRequest, type ReplicaMessage, type ReplicaStatus,
} from './nats-protocol.js';
import { QueryError } from './planner/errors.js';

export interface NatsEngineOptions {
  /** How long a query may take in all, retries included (HEDGEROW_QUERY_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long a replica may wait to catch up before it answers `behind`. */
  catchUpMs?: number;
  /** How long a replica may stay silent before the query is asked of another. */
  silenceMs?: number;
}

/** What the serve node knows of a replica: its last status and the answers it gave this node. */
export interface ReplicaState {
  replica: string;
  position: number;
  lagRecords: number;
  answers: number;
  /** Heard from within the last few status intervals. */
  live: boolean;
}

export interface NatsInsightsEngine extends InsightsEngine {
  replicas(): ReplicaState[];
}

const DEFAULT_CATCH_UP_MS = 5000;
// A replica says `running` every second from its event loop; a load of a large batch can hold
// that loop for a second or two.
const DEFAULT_SILENCE_MS = 5 * KEEPALIVE_MS;
// Pause before asking again when no replica listens, or the one asked was behind.
const NO_REPLICA_RETRY_MS = 250;
const BEHIND_RETRY_MS = 20;
// A replica not heard from for this long leaves the metrics.
const FORGET_AFTER_MS = 10 * STATUS_INTERVAL_MS;

interface Attempt {
  onMessage(msg: Msg): void;
}

// Request/reply over the control connection of the cluster handle.
export async function connectNatsEngine(jetstream: JetStream, opts: NatsEngineOptions): Promise<NatsInsightsEngine> {
  const { nc } = jetstream.control;
  const catchUpMs = opts.catchUpMs ?? DEFAULT_CATCH_UP_MS;
  const silenceMs = opts.silenceMs ?? DEFAULT_SILENCE_MS;
  const inbox = createInbox();
  // By the attempt's reply subject; an attempt given up is removed, so late messages of a
  // replica taken for dead are dropped.
  const attempts = new Map<string, Attempt>();
  const replies = nc.subscribe(`${inbox}.*`, {
    callback: (err, msg) => {
      if (err) return;
      try {
        attempts.get(msg.subject)?.onMessage(msg);
      } catch {
        // A message this version cannot read: the attempt's silence timer asks another replica.
      }
    },
  });

  const known = new Map<string, { status: ReplicaStatus; seenAt: number; answers: number }>();
  const replicaEntry = (replica: string) => {
    let e = known.get(replica);
    if (!e) known.set(replica, e = { status: { replica, position: 0, lastSeq: 0 }, seenAt: Date.now(), answers: 0 });
    return e;
  };
  const statuses = nc.subscribe(STATUS_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      try {
        const status = msg.json<ReplicaStatus>();
        const e = replicaEntry(String(status.replica));
        e.status = status;
        e.seenAt = Date.now();
      } catch {
        // Not a status this version reads.
      }
    },
  });

  let lastSeq = 0;
  const pending = new Set<() => void>();
  const streamEnd = async () => {
    try {
      lastSeq = Math.max(lastSeq, (await jetstream.streamInfo('events'))?.state.last_seq ?? 0);
    } catch {
      // NATS unreachable: what was last seen (a calculation then fails on its own).
    }
    return lastSeq;
  };
  // Callers arriving while a look at the stream is in flight share the next one, never the one
  // in flight: it may have started before their events were acknowledged.
  let inFlight: Promise<number> | null = null;
  let next: Promise<number> | null = null;
  const look = (): Promise<number> => {
    const p: Promise<number> = streamEnd().finally(() => { if (inFlight === p) inFlight = null; });
    inFlight = p;
    return p;
  };

  return {
    position() {
      if (!inFlight) return look();
      next ??= inFlight.then(() => {
        next = null;
        return look();
      });
      return next;
    },

    run(query, context, signal, atLeast = 0) {
      return new Promise<EngineAnswer>((resolve, reject) => {
        if (signal?.aborted) return reject(new QueryCancelledError('Query cancelled'));
        const id = randomUUID();
        const deadline = Date.now() + opts.timeoutMs;
        let attempt = 0;
        let current: string | null = null;
        let timer: NodeJS.Timeout | null = null;
        let settled = false;

        const cancelRemote = () => {
          try {
            nc.publish(CANCEL_SUBJECT, Buffer.from(JSON.stringify({ id })));
          } catch {
            // Closed or disconnected: the replica's query ends on its own.
          }
        };
        const arm = (ms: number, then: () => void) => {
          if (timer) clearTimeout(timer);
          timer = setTimeout(then, ms);
          timer.unref();
        };
        const finish = (outcome: () => void) => {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          if (current) attempts.delete(current);
          clearTimeout(overall);
          signal?.removeEventListener('abort', onAbort);
          pending.delete(onClose);
          outcome();
        };
        const onAbort = () => { cancelRemote(); finish(() => reject(new QueryCancelledError('Query cancelled'))); };
        const onClose = () => finish(() => reject(new EngineUnavailableError('closed')));
        const overall = setTimeout(() => {
          cancelRemote();
          finish(() => reject(new EngineUnavailableError(`no aggregation replica answered within ${opts.timeoutMs} ms`)));
        }, opts.timeoutMs);
        overall.unref();
        signal?.addEventListener('abort', onAbort, { once: true });
        pending.add(onClose);

        const retry = (afterMs: number) => {
          if (current) attempts.delete(current);
          current = null;
          arm(afterMs, ask);
        };
        function ask(): void {
          if (settled) return;
          const subject = `${inbox}.${id.replace(/-/g, '')}-${++attempt}`;
          current = subject;
          const parts: Uint8Array[] = [];
          let replica = '';
          attempts.set(subject, {
            onMessage(msg) {
              if (msg.headers?.code === 503 && msg.data.length === 0) return retry(NO_REPLICA_RETRY_MS);
              const m: ReplicaMessage | null = decodeReplicaMessage(msg.data);
              if (!m) return;
              arm(silenceMs, silent);
              switch (m.type) {
                case 'accepted': replica = m.replica; return;
                case 'running': return;
                case 'part': parts.push(m.data.slice()); return;
                case 'behind': return retry(BEHIND_RETRY_MS);
                case 'gone': return retry(0);
                case 'done': {
                  let response;
                  try {
                    response = joinParts(parts);
                  } catch {
                    return retry(0);
                  }
                  replicaEntry(m.replica).answers++;
                  return finish(() => resolve({ response, position: m.position }));
                }
                case 'failed': {
                  const f = m.failure;
                  return finish(() => reject(
                    f.cancelled ? new QueryCancelledError('Query cancelled') : f.invalid ? new QueryError(f.message, f.attr) : new Error(f.message),
                  ));
                }
              }
            },
          });
          // Silence: the replica died (or none took it); the cancel reaches it if it did not.
          function silent() {
            if (replica) cancelRemote();
            retry(0);
          }
          const request: NatsQueryRequest = {
            id, query, run: context, atLeast, waitMs: Math.max(0, Math.min(catchUpMs, deadline - Date.now() - silenceMs)),
          };
          try {
            nc.publish(QUERY_SUBJECT, Buffer.from(JSON.stringify(request)), { reply: subject });
          } catch {
            return retry(NO_REPLICA_RETRY_MS);
          }
          arm(silenceMs, silent);
        }
        ask();
      });
    },

    replicas() {
      const now = Date.now();
      const out: ReplicaState[] = [];
      for (const [name, e] of known) {
        const live = now - e.seenAt <= FORGET_AFTER_MS;
        if (!live && e.answers === 0) {
          known.delete(name);
          continue;
        }
        out.push({ replica: name, position: e.status.position, lagRecords: Math.max(0, e.status.lastSeq - e.status.position), answers: e.answers, live });
      }
      return out;
    },

    close() {
      for (const close of [...pending]) close();
      replies.unsubscribe();
      statuses.unsubscribe();
    },
  };
}
