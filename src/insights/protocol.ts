// How the service talks to the aggregation worker that owns the columnar store (one DuckDB
// file has one owner): two BroadcastChannels per data dir, requests one way and answers the
// other. A worker announces itself when it starts, and the service then sends again what it
// still waits for, so a request made while the worker was (re)starting is not lost.
import type { QueryResponse, RunContext } from './run.js';

// The aggregation worker is the log consumer of this name: the service reads its loaded
// position under it (the position a query's freshness is judged by).
export const INSIGHTS_CONSUMER = 'insights';

export interface RunRequest {
  type: 'run';
  id: string;
  query: unknown;
  run: RunContext;
}

export interface CancelRequest {
  type: 'cancel';
  id: string;
}

export type WorkerRequest = RunRequest | CancelRequest;

export type WorkerAnswer =
  | { type: 'ready' }
  | { type: 'done'; id: string; response: QueryResponse; position: number }
  | { type: 'failed'; id: string; message: string; attr: string | null; invalid: boolean; cancelled: boolean };

export function channelNames(dataDir: string): { requests: string; answers: string } {
  return { requests: `hedgerow-insights-requests:${dataDir}`, answers: `hedgerow-insights-answers:${dataDir}` };
}
