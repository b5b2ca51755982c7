// Query statuses across a NATS cluster (docs/decisions/0031): a background calculation's
// query_status in the JetStream KV bucket HEDGEROW_QUERY_STATUSES, so a poll or a cancel
// that a load balancer sends to another node finds it.
// - The node that started a calculation (its runner) writes the status and rewrites it
//   every HEARTBEAT_MS while the calculation runs, each write against the revision it
//   last wrote: a write refused means another node wrote (a cancel) and the runner stops.
// - A cancel from any node rewrites a running status as cancelled (against the revision it
//   read, so it never overwrites an outcome). The runner watches the bucket's keys (headers
//   only) and aborts its calculation when a key it runs is written by someone else.
// - A running status not rewritten for LOST_AFTER_MS (its runner died, or lost NATS) reads
//   as an error on every node, from the write's server timestamp: the same answer everywhere.
// - Expiry is the bucket's max age: a status ends with its last write, so NATS drops it
//   KEEP_MS after it ended (or after a lost runner's last heartbeat); no node sweeps.
// - A result too large for one NATS message goes to the object store
//   HEDGEROW_QUERY_RESULTS (same max age) before the status naming it is written.
import { createHash, randomUUID } from 'node:crypto';
import { KvWatchInclude, nanos, StorageType, type KV, type KvEntry, type NatsConnection, type ObjectStore } from 'nats';
import { connectNats } from '../../nats/connect.js';
import { CANCELLED_MESSAGE, endedStatus, iso, KEEP_MS, runningStatus, type Outcome, type QueryStatus, type Statuses } from './statuses.js';

export const QUERY_STATUSES_BUCKET = 'HEDGEROW_QUERY_STATUSES';
export const QUERY_RESULTS_BUCKET = 'HEDGEROW_QUERY_RESULTS';
export const HEARTBEAT_MS = 2_000;
export const LOST_AFTER_MS = 10_000;
export const LOST_MESSAGE = 'Query calculation lost: the node running it stopped (no heartbeat)';

export interface NatsStatusesOptions {
  url: string;
  // Tests shorten these; the buckets are then their own (a bucket's max age is fixed).
  statusesBucket?: string;
  resultsBucket?: string;
  keepMs?: number;
  heartbeatMs?: number;
  lostAfterMs?: number;
  onError?(err: Error): void;
  // Replicas of what this creates when missing (HEDGEROW_NATS_REPLICAS; 1 when omitted).
  replicas?: number;
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
  revision: number;
  status: QueryStatus;
  abort: AbortController;
  timer: NodeJS.Timeout;
  // Writes of this run happen one after another (a heartbeat never overtakes the outcome).
  writing: Promise<void>;
  // A heartbeat is skipped while one is still in flight (NATS slow): they would only queue.
  beating: boolean;
}

const text = new TextEncoder();
const fromText = new TextDecoder();
const encodeStored = (s: Stored) => text.encode(JSON.stringify(s));
const decodeStored = (e: KvEntry): Stored => JSON.parse(fromText.decode(e.value)) as Stored;

// A KV key admits few characters and a client_query_id is anything: a digest of it.
const keyOf = (projectId: number, id: string) => `${projectId}.${createHash('sha256').update(id).digest('hex').slice(0, 40)}`;

export async function openNatsStatuses(opts: NatsStatusesOptions): Promise<Statuses> {
  const keepMs = opts.keepMs ?? KEEP_MS;
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  const lostAfterMs = opts.lostAfterMs ?? LOST_AFTER_MS;
  const onError = (err: unknown) => opts.onError?.(err instanceof Error ? err : new Error(String(err)));
  const nc: NatsConnection = await connectNats(opts.url, 'hedgerow-query-statuses');
  let kv: KV;
  let objects: ObjectStore;
  try {
    const js = nc.jetstream();
    kv = await js.views.kv(opts.statusesBucket ?? QUERY_STATUSES_BUCKET, { ttl: keepMs, history: 1, storage: StorageType.File, replicas: opts.replicas ?? 1 });
    objects = await js.views.os(opts.resultsBucket ?? QUERY_RESULTS_BUCKET, {
      ttl: nanos(keepMs), storage: StorageType.File, replicas: opts.replicas ?? 1, description: 'hedgerow query results too large for a status',
    });
  } catch (err) {
    await nc.close();
    throw err;
  }
  // Half the server's message limit: the status around the results and the headers fit.
  const inlineLimit = Math.floor((nc.info?.max_payload ?? 1024 * 1024) / 2);

  const running = new Map<string, Running>();

  async function stop(key: string, run: Running, aborted: boolean) {
    if (running.get(key) !== run) return;
    running.delete(key);
    clearInterval(run.timer);
    if (aborted) run.abort.abort();
  }

  // A write of this run against the revision it last wrote. Refused: another node wrote the
  // key (a cancel, or a start of the same id), and this run stops writing it.
  function write(key: string, run: Running, stored: () => Promise<Stored> | Stored): Promise<void> {
    run.writing = run.writing.then(async () => {
      if (running.get(key) !== run) return;
      try {
        run.revision = await kv.update(key, encodeStored(await stored()), run.revision);
      } catch (err) {
        const now = await kv.get(key).catch(() => null);
        if (now && now.revision !== run.revision) await stop(key, run, true);
        else onError(err);
      }
    });
    return run.writing;
  }

  // Every write of the bucket, headers only: one written by another node to a key this node
  // runs is a cancel (or a restart elsewhere), and the calculation here stops at once.
  const watch = await kv.watch({ key: '>', headers_only: true, include: KvWatchInclude.UpdatesOnly });
  void (async () => {
    for await (const e of watch) {
      const run = running.get(e.key);
      if (run && e.revision > run.revision) {
        // A write of this run may be in flight: its revision is known once it returns.
        await run.writing;
        if (running.get(e.key) === run && e.revision > run.revision) await stop(e.key, run, true);
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
    if (!stored.status.complete && now - written > lostAfterMs) {
      const lostAt = written + lostAfterMs;
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
      const revision = await kv.put(key, encodeStored({ status, run: runId }));
      const abort = new AbortController();
      const previous = running.get(key);
      if (previous) await stop(key, previous, false);
      const beat = () => {
        if (run.beating) return;
        run.beating = true;
        void write(key, run, () => ({ status: run.status, run: runId })).finally(() => { run.beating = false; });
      };
      const run: Running = { run: runId, revision, status, abort, writing: Promise.resolve(), beating: false, timer: setInterval(beat, heartbeatMs) };
      run.timer.unref();
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
      await write(key, run, async () => {
        if ('error' in outcome) return { status, run: run.run };
        const results = JSON.stringify(outcome.results);
        if (results.length < inlineLimit / 3 || Buffer.byteLength(results) < inlineLimit) return { status, run: run.run };
        const name = `${key}.${run.run}`;
        await objects.putBlob({ name }, text.encode(results));
        return { status: { ...status, results: null }, resultsObject: name, run: run.run };
      });
      await stop(key, run, false);
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
        if (here) await stop(key, here, true);
        return true;
      }
    },

    async close() {
      for (const [key, run] of [...running]) {
        clearInterval(run.timer);
        await run.writing;
        running.delete(key);
      }
      watch.stop();
      await nc.drain().catch(() => nc.close());
    },
  };
}
