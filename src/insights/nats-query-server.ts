// A `hedgerow aggregate` replica's side of queries over NATS (./nats-protocol.ts): it joins
// the queue group once caught up with the stream, and for each query it is given waits (bounded) until its columnar store
// has loaded the position the query needs, runs it, and streams the answer back. It also
// publishes its loaded position every few seconds, for the serve nodes' metrics.
import type { Msg, Subscription } from 'nats';
import type { JetStream } from '../cluster/index.js';
import type { HogQLParsePool } from '../hogql/index.js';
import type { Columnar } from './columnar/database.js';
import {
  CANCEL_SUBJECT, encodeReplicaMessage, KEEPALIVE_MS, QUERY_QUEUE, QUERY_SUBJECT, responseParts, STATUS_INTERVAL_MS, STATUS_SUBJECT,
  type NatsQueryRequest, type ReplicaMessage, type ReplicaStatus,
} from './nats-protocol.js';
import { failureOf, runQuery, type QueryServer } from './query-server.js';

export interface NatsQueryServerOptions {
  /** Names this replica in answers, logs and metrics. */
  replica: string;
  /** The log position its columnar store has loaded. */
  position(): number;
  /** Where EventsQuery expressions are parsed (src/insights/hogql.ts). */
  hogql?: HogQLParsePool;
}

// How often a query waiting for the replica to catch up looks at its position, and a replica
// not yet in the queue group.
const CATCH_UP_POLL_MS = 20;
const JOIN_POLL_MS = 100;
// Room in each part for the tag and the protocol's headers.
const PART_SLACK_BYTES = 4096;
// How long shutting down waits for running queries to say `gone`.
const CLOSE_WAIT_MS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface NatsQueryServer extends QueryServer {
  /** Queries being waited for or run. */
  inFlight(): number;
}

// Over the control connection of the cluster handle (a consumer thread's one connection).
export async function serveQueriesOverNats(db: Columnar, jetstream: JetStream, opts: NatsQueryServerOptions): Promise<NatsQueryServer> {
  const { nc } = jetstream.control;
  const maxPart = jetstream.control.maxPayload() - PART_SLACK_BYTES;
  // By reply subject: a retried query may reach this replica again under the same id.
  const running = new Map<string, { id: string; controller: AbortController; done: Promise<void> }>();
  let closing = false;

  function answer(msg: Msg): void {
    const reply = msg.reply;
    if (!reply) return;
    const send = (m: ReplicaMessage) => {
      try {
        nc.publish(reply, encodeReplicaMessage(m));
      } catch {
        // The connection is closing: the caller hears nothing more and asks another replica.
      }
    };
    if (closing) return send({ type: 'gone' });
    let request: NatsQueryRequest;
    try {
      request = msg.json<NatsQueryRequest>();
    } catch (err) {
      return send({ type: 'failed', failure: failureOf(err, false) });
    }
    send({ type: 'accepted', replica: opts.replica });
    const controller = new AbortController();
    const keepalive = setInterval(() => send({ type: 'running' }), KEEPALIVE_MS);
    const done = (async () => {
      try {
        const deadline = Date.now() + request.waitMs;
        let at = opts.position();
        while (at < request.atLeast) {
          if (controller.signal.aborted) throw new Error('Query cancelled');
          if (Date.now() >= deadline) return send({ type: 'behind', replica: opts.replica, position: at });
          await sleep(CATCH_UP_POLL_MS);
          at = opts.position();
        }
        const response = await runQuery(db, request.query, request.run, controller.signal, opts.hogql);
        for (const data of responseParts(response, maxPart)) send({ type: 'part', data });
        send({ type: 'done', replica: opts.replica, position: at });
      } catch (err) {
        send(closing ? { type: 'gone' } : { type: 'failed', failure: failureOf(err, controller.signal.aborted) });
      } finally {
        clearInterval(keepalive);
        running.delete(reply);
      }
    })();
    running.set(reply, { id: request.id, controller, done });
  }

  // A replica joins the queue group once it has loaded what the stream held when it started:
  // one far behind (new, or back after a long stop) would otherwise take queries it can only
  // answer `behind` to, each after the wait.
  const streamEnd = async () => (await jetstream.streamInfo('events'))?.state.last_seq ?? 0;
  const joinAt = await streamEnd().catch(() => 0);
  let queries: Subscription | null = null;
  const join = () => {
    if (queries || closing || opts.position() < joinAt) return false;
    queries = nc.subscribe(QUERY_SUBJECT, { queue: QUERY_QUEUE, callback: (err, msg) => { if (!err) answer(msg); } });
    return true;
  };
  const joinTimer = join() ? null : setInterval(() => { if (join()) clearInterval(joinTimer!); }, JOIN_POLL_MS);
  const cancels = nc.subscribe(CANCEL_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      let id: unknown;
      try {
        id = msg.json<{ id: string }>().id;
      } catch {
        return;
      }
      for (const r of running.values()) if (r.id === id) r.controller.abort();
    },
  });

  let lastSeq = joinAt;
  const publishStatus = async () => {
    try {
      lastSeq = await streamEnd();
    } catch {
      // Keep the last one seen: the status still carries the loaded position.
    }
    if (closing || nc.isClosed()) return;
    const status: ReplicaStatus = { replica: opts.replica, position: opts.position(), lastSeq };
    try {
      nc.publish(STATUS_SUBJECT, Buffer.from(JSON.stringify(status)));
    } catch {
      // Disconnected: the next one goes out once it is back.
    }
  };
  void publishStatus();
  const statusTimer = setInterval(() => void publishStatus(), STATUS_INTERVAL_MS);

  return {
    inFlight: () => running.size,
    async close() {
      closing = true;
      clearInterval(statusTimer);
      if (joinTimer) clearInterval(joinTimer);
      queries?.unsubscribe();
      cancels.unsubscribe();
      for (const r of running.values()) r.controller.abort();
      await Promise.race([Promise.all([...running.values()].map((r) => r.done)), sleep(CLOSE_WAIT_MS)]);
      // The answers and `gone`s sent are out before the cluster closes the connection.
      if (!nc.isClosed()) await nc.flush().catch(() => undefined);
    },
  };
}
