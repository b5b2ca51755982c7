// Background calculations and their PostHog query_status, kept for ten minutes after they
// end (the asset table's QUERY_STATUS_KEEP_MS). One implementation over the cluster handle
// (./kv-statuses.ts): with NATS a JetStream KV bucket every node reads, so a poll or a cancel
// may reach any node; embedded the cluster's twin keeps them in this process's memory (the
// node that started a calculation is the only one polled; a restart forgets them, the
// result itself is in the cache).
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
