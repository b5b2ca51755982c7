// Query statuses across a cluster (docs/decisions/0031, 0036): a background calculation's
// query_status in the KV bucket HEDGEROW_QUERY_STATUSES of the cluster handle, so a poll or a
// cancel that a load balancer sends to another node finds it. Embedded, the same code runs on
// the cluster's twin: the bucket is in this process's memory, as the statuses were before.
// - The node that started a calculation (its runner) holds the status as a lease
//   (src/cluster/leases.ts): written, then rewritten every heartbeat (the timings'
//   statusHeartbeatMs, 2 s) while the calculation runs, each write against the revision it
//   last wrote: a write refused means another node wrote (a cancel) and the runner stops.
// - A cancel from any node rewrites a running status as cancelled (against the revision it
//   read, so it never overwrites an outcome). The runner watches the bucket's keys (headers
//   only) and aborts its calculation when a key it runs is written by someone else.
// - A running status not rewritten for the lease's TTL (the timings' statusLostAfterMs, 10 s:
//   its runner died, or lost NATS) reads as an error on every node, from the write's server
//   timestamp: the same answer everywhere.
// - Expiry is the bucket's max age: a status ends with its last write, so the bucket drops it
//   its keep time (10 minutes, the asset table) after it ended (or after a lost runner's last
//   heartbeat); no node sweeps.
// - A result too large for one NATS message goes to the object store
//   HEDGEROW_QUERY_RESULTS (same max age) before the status naming it is written.
import { createHash, randomUUID } from 'node:crypto';
import type { Cluster, KvAsset, KvEntry, Lease, ObjectsAsset, ObjectsView } from '../../cluster/index.js';
import { CANCELLED_MESSAGE, endedStatus, iso, runningStatus, type Outcome, type QueryStatus, type Statuses } from './statuses.js';

export const LOST_MESSAGE = 'Query calculation lost: the node running it stopped (no heartbeat)';

export interface StatusesOptions {
  onError?(err: Error): void;
  // Tests keep statuses for less time: buckets of their own (a bucket's max age is fixed
  // when it is made), rows made from the table's.
  statuses?: KvAsset;
  results?: ObjectsAsset;
}

// What the bucket holds: the status, with a result too large to inline named instead.
interface Stored {
  status: QueryStatus;
  resultsObject?: string;
  // The runner's start: a write of the same key by another run is not this run's.
  run: string;
}

interface Running {
  run: string;
  // Its writes happen one after another (a heartbeat never overtakes the outcome).
  lease: Lease;
  status: QueryStatus;
  abort: AbortController;
}

const text = new TextEncoder();
const fromText = new TextDecoder();
const encodeStored = (s: Stored) => text.encode(JSON.stringify(s));
const decodeStored = (e: KvEntry): Stored => JSON.parse(fromText.decode(e.value)) as Stored;

// A KV key admits few characters and a client_query_id is anything: a digest of it.
const keyOf = (projectId: number, id: string) => `${projectId}.${createHash('sha256').update(id).digest('hex').slice(0, 40)}`;

export async function openStatuses(cluster: Cluster, opts: StatusesOptions = {}): Promise<Statuses> {
  const onError = (err: unknown) => opts.onError?.(err instanceof Error ? err : new Error(String(err)));
  const kv = await cluster.kv(opts.statuses ?? 'queryStatuses');
  const store = await cluster.objects(opts.results ?? 'queryResults');
  if (!store) throw new Error('query statuses need the query results store');
  const objects: ObjectsView = store;
  // The bucket's max age as it exists: a status ends with its last write and is kept this long.
  const keepMs = kv.ttlMs || cluster.assets.kv.queryStatuses.ttlMs;
  const leases = await cluster.leases(opts.statuses ?? 'queryStatuses', {
    ttlMs: cluster.timings.statusLostAfterMs, renewMs: cluster.timings.statusHeartbeatMs,
  });
  // Half the server's message limit: the status around the results and the headers fit.
  const inlineLimit = Math.floor((cluster.jetstream?.control.maxPayload() ?? 1024 * 1024) / 2);

  const running = new Map<string, Running>();

  // Stops this run's writes; `aborted`: its calculation too (cancelled, or restarted elsewhere).
  function stop(key: string, run: Running, aborted: boolean) {
    if (running.get(key) !== run) return;
    running.delete(key);
    run.lease.abandon();
    if (aborted) run.abort.abort();
  }

  // Every write of the bucket, headers only: one written by another node to a key this node
  // runs is a cancel (or a restart elsewhere), and the calculation here stops at once.
  const watch = await kv.watch({ headersOnly: true, updatesOnly: true });
  void (async () => {
    for await (const e of watch) {
      const run = running.get(e.key);
      if (run && e.revision > run.lease.revision()) {
        // A write of this run may be in flight: its revision is known once it returns.
        await run.lease.idle();
        if (running.get(e.key) === run && e.revision > run.lease.revision()) stop(e.key, run, true);
      }
    }
  })().catch(onError);

  async function read(projectId: number, id: string): Promise<{ entry: KvEntry; stored: Stored } | null> {
    const entry = await kv.get(keyOf(projectId, id));
    if (!entry || entry.operation !== 'PUT') return null;
    const stored = decodeStored(entry);
    // A digest collision is as good as impossible; a foreign value is not this id's.
    return stored.status.id === id && stored.status.team_id === projectId ? { entry, stored } : null;
  }

  // The status as every node reads it: a running one whose runner went silent is lost.
  async function view({ entry, stored }: { entry: KvEntry; stored: Stored }, now: number): Promise<QueryStatus> {
    const written = entry.created.getTime();
    if (!stored.status.complete && !leases.live(entry, now)) {
      const lostAt = written + leases.ttlMs;
      return { ...endedStatus(stored.status, lostAt, { error: LOST_MESSAGE }, keepMs), expiration_time: iso(written + keepMs) };
    }
    if (stored.resultsObject) {
      const bytes = await objects.getBlob(stored.resultsObject);
      return { ...stored.status, results: bytes ? JSON.parse(fromText.decode(bytes)) : null };
    }
    return stored.status;
  }

  return {
    async start(projectId, id, insightId, now) {
      const key = keyOf(projectId, id);
      const status = runningStatus(projectId, id, insightId, now, keepMs);
      const runId = randomUUID();
      const abort = new AbortController();
      const previous = running.get(key);
      // Renewed with the running status; a renewal refused is another node's write: a cancel.
      const lease = await leases.hold(key, {
        value: () => encodeStored({ status, run: runId }),
        lost: () => stop(key, run, true),
        failed: onError,
      });
      if (previous) stop(key, previous, false);
      const run: Running = { run: runId, lease, status, abort };
      running.set(key, run);
      return { status, signal: abort.signal };
    },

    async get(projectId, id, now) {
      const found = await read(projectId, id);
      return found ? view(found, now) : undefined;
    },

    async finish(projectId, id, now, outcome: Outcome) {
      const key = keyOf(projectId, id);
      const run = running.get(key);
      if (!run) return;
      const status = endedStatus(run.status, now, outcome, keepMs);
      // The outcome, against the revision last written; refused: cancelled meanwhile.
      const written = await run.lease.end(async () => {
        if ('error' in outcome) return encodeStored({ status, run: run.run });
        const results = JSON.stringify(outcome.results);
        if (results.length < inlineLimit / 3 || Buffer.byteLength(results) < inlineLimit) return encodeStored({ status, run: run.run });
        const name = `${key}.${run.run}`;
        await objects.putBlob({ name }, text.encode(results));
        return encodeStored({ status: { ...status, results: null }, resultsObject: name, run: run.run });
      }).catch((err: unknown) => { onError(err); return true; });
      stop(key, run, !written);
    },

    async cancel(projectId, id, now) {
      const key = keyOf(projectId, id);
      // Against the revision read: a heartbeat or an outcome written meanwhile is read again.
      for (;;) {
        const found = await read(projectId, id);
        if (!found) return false;
        const current = await view(found, now);
        if (current.complete) return true;
        const cancelled = endedStatus(found.stored.status, now, { error: CANCELLED_MESSAGE }, keepMs);
        try {
          await kv.update(key, encodeStored({ status: cancelled, run: found.stored.run }), found.entry.revision);
        } catch {
          continue;
        }
        const here = running.get(key);
        if (here) stop(key, here, true);
        return true;
      }
    },

    // Running calculations' statuses are left to lapse: read as lost once their TTL passed.
    async close() {
      for (const [key, run] of [...running]) {
        run.lease.abandon();
        await run.lease.idle();
        running.delete(key);
      }
      watch.stop();
      await leases.close();
    },
  };
}
