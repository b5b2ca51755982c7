// Background calculations and their PostHog query_status, kept in memory per project for
// ten minutes after they end (a restart forgets them: the result itself is in the cache).
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

interface Entry {
  status: QueryStatus;
  cancel: AbortController;
  ends: number;
}

const KEEP_MS = 10 * 60_000;

export interface Statuses {
  start(projectId: number, id: string, insightId: number | null, now: number): { status: QueryStatus; signal: AbortSignal };
  get(projectId: number, id: string, now: number): QueryStatus | undefined;
  finish(projectId: number, id: string, now: number, outcome: { results: unknown } | { error: string }): void;
  cancel(projectId: number, id: string, now: number): boolean;
}

export function createStatuses(): Statuses {
  const entries = new Map<string, Entry>();
  const key = (projectId: number, id: string) => `${projectId}:${id}`;
  const sweep = (now: number) => {
    for (const [k, e] of entries) if (e.status.complete && e.ends < now) entries.delete(k);
  };
  const iso = (ms: number) => new Date(ms).toISOString();
  const end = (e: Entry, now: number) => {
    e.status.complete = true;
    e.status.end_time = iso(now);
    e.ends = now + KEEP_MS;
    e.status.expiration_time = iso(e.ends);
  };
  return {
    start(projectId, id, insightId, now) {
      sweep(now);
      const status: QueryStatus = {
        id, query_async: true, team_id: projectId, insight_id: insightId, complete: false, error: false, error_message: null,
        results: null, start_time: iso(now), pickup_time: iso(now), end_time: null, expiration_time: iso(now + KEEP_MS),
      };
      const cancel = new AbortController();
      entries.set(key(projectId, id), { status, cancel, ends: Infinity });
      return { status, signal: cancel.signal };
    },
    get(projectId, id, now) {
      sweep(now);
      return entries.get(key(projectId, id))?.status;
    },
    finish(projectId, id, now, outcome) {
      const e = entries.get(key(projectId, id));
      if (!e || e.status.complete) return;
      if ('error' in outcome) {
        e.status.error = true;
        e.status.error_message = outcome.error;
      } else {
        e.status.results = outcome.results;
      }
      end(e, now);
    },
    cancel(projectId, id, now) {
      const e = entries.get(key(projectId, id));
      if (!e) return false;
      if (!e.status.complete) {
        e.cancel.abort();
        e.status.error = true;
        e.status.error_message = 'Query cancelled';
        end(e, now);
      }
      return true;
    },
  };
}
