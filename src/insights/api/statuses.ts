// Background calculations and their PostHog query_status, kept for ten minutes after they
// end. One interface, two implementations: in this process's memory (here: the embedded
// service, where the node that started a calculation is the only one polled; a restart
// forgets them, the result itself is in the cache), and with NATS in a JetStream KV bucket
// every node reads (./nats-statuses.ts), so a poll or a cancel may reach any node.
export interface QueryStatus {
  id: string;
  query_async: true;
  team_id: number;
  insight_id: number | null;
  complete: boolean;
  error: boolean;
  error_message: string | null;
  results: unknown;
  start_time: string;
  pickup_time: string;
  end_time: string | null;
  expiration_time: string;
}

export type Outcome = { results: unknown } | { error: string };

export interface Statuses {
  /**
   * Records a calculation starting here; `signal` aborts when it is cancelled (through any
   * node, with NATS). Replaces a status of the same id that has ended.
   */
  start(projectId: number, id: string, insightId: number | null, now: number): Promise<{ status: QueryStatus; signal: AbortSignal }>;
  get(projectId: number, id: string, now: number): Promise<QueryStatus | undefined>;
  /** Records how a calculation started here ended; nothing when it was cancelled meanwhile. */
  finish(projectId: number, id: string, now: number, outcome: Outcome): Promise<void>;
  /** Cancels a running calculation; false when there is no such status. */
  cancel(projectId: number, id: string, now: number): Promise<boolean>;
  close(): Promise<void>;
}

export const CANCELLED_MESSAGE = 'Query cancelled';
// How long a status is kept after its calculation ends.
export const KEEP_MS = 10 * 60_000;

export const iso = (ms: number) => new Date(ms).toISOString();

export function runningStatus(projectId: number, id: string, insightId: number | null, now: number, keepMs: number): QueryStatus {
  return {
    id, query_async: true, team_id: projectId, insight_id: insightId, complete: false, error: false, error_message: null,
    results: null, start_time: iso(now), pickup_time: iso(now), end_time: null, expiration_time: iso(now + keepMs),
  };
}

/** `status` ended at `now` with `outcome` (a new object). */
export function endedStatus(status: QueryStatus, now: number, outcome: Outcome, keepMs: number): QueryStatus {
  return {
    ...status, complete: true, end_time: iso(now), expiration_time: iso(now + keepMs),
    ...('error' in outcome ? { error: true, error_message: outcome.error } : { results: outcome.results }),
  };
}

interface Entry {
  status: QueryStatus;
  cancel: AbortController;
  ends: number;
}

export function createStatuses(opts: { keepMs?: number } = {}): Statuses {
  const keepMs = opts.keepMs ?? KEEP_MS;
  const entries = new Map<string, Entry>();
  const key = (projectId: number, id: string) => `${projectId}:${id}`;
  const sweep = (now: number) => {
    for (const [k, e] of entries) if (e.status.complete && e.ends < now) entries.delete(k);
  };
  const end = (e: Entry, now: number, outcome: Outcome) => {
    e.status = endedStatus(e.status, now, outcome, keepMs);
    e.ends = now + keepMs;
  };
  return {
    async start(projectId, id, insightId, now) {
      sweep(now);
      const status = runningStatus(projectId, id, insightId, now, keepMs);
      const cancel = new AbortController();
      entries.set(key(projectId, id), { status, cancel, ends: Infinity });
      return { status, signal: cancel.signal };
    },
    async get(projectId, id, now) {
      sweep(now);
      return entries.get(key(projectId, id))?.status;
    },
    async finish(projectId, id, now, outcome) {
      const e = entries.get(key(projectId, id));
      if (!e || e.status.complete) return;
      end(e, now, outcome);
    },
    async cancel(projectId, id, now) {
      sweep(now);
      const e = entries.get(key(projectId, id));
      if (!e) return false;
      if (!e.status.complete) {
        e.cancel.abort();
        end(e, now, { error: CANCELLED_MESSAGE });
      }
      return true;
    },
    async close() {
      entries.clear();
    },
  };
}
