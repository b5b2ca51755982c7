// The flag pool's tasks (src/pools/): what the main thread sends the flag workers and
// what comes back, shared by both sides. Plain data only: it crosses a thread boundary.
import type { Task } from '../pools/index.js';
import type { ResponseProtocol } from './projection.js';

export type FlagTasks = {
  // One /decide or /flags request; the pool batches them.
  evaluate: Task<FlagTask, FlagTaskResult>;
};

export interface FlagTask {
  projectId: number;
  distinctId: string;
  groups: Record<string, string>;
  personProperties: Record<string, unknown>;
  groupProperties: Record<string, Record<string, unknown>>;
  // $geoip_* properties of the client address; the request's own person properties win.
  geo: Record<string, string>;
  flagKeys: string[] | null;
  anonDistinctId: string | null;
  deviceId: string | null;
  protocol: ResponseProtocol;
  now: number;
}

export interface FlagTaskResult {
  // The protocol's flags body as JSON text, ready to splice into the response.
  body: string;
  // Whether any flag could not be computed (also inside `body` where the protocol has it).
  errors: boolean;
  // Continuity flags this person has no stored hash key for yet: the main thread
  // records the request's $anon_distinct_id for them.
  missingOverrides: string[] | null;
}

export interface FlagWorkerData {
  dataDir: string;
}
