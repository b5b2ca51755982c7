// Management reads that scan run in a query worker (workers/queries.ts), off the HTTP
// thread: the persons list reads every person a filter rejects (about 17 µs each,
// 1.6–1.9 s per 100,000), the groups list every group of its type, the ingestion
// warnings summary every warning of 30 days, and event listings and values scans up to
// 200,000 events. On the HTTP thread, capture's acks and /decide would wait for them
// (docs/decisions/0013).
import { Piscina } from 'piscina';
import type { GroupScanTask, PersonScan, PersonScanTask, WarningsTask } from '../persons/list.js';
import type { WindowScan } from '../persons/page.js';
import type { PersonScans } from '../persons/routes.js';
import type { Group, WarningSummary } from '../persons/schemas.js';
import type { EventQuery, EventRow } from '../events/query.js';
import type { EventScans } from '../events/routes.js';
import type { ValuesQuery } from '../events/values.js';

export type QueryTask =
  | { kind: 'persons'; task: PersonScanTask }
  | { kind: 'groups'; task: GroupScanTask }
  | { kind: 'warnings'; task: WarningsTask }
  | { kind: 'events'; query: EventQuery }
  | { kind: 'values'; query: ValuesQuery };

// What the persons and events routes ask of the pool.
export interface QueryRunner extends PersonScans, EventScans {
  close(): Promise<void>;
}

const QUERY_WORKER_URL = new URL('../../workers/queries.js', import.meta.url);

// One thread: these reads are rare, and the flag workers keep the other cores.
export function createQueryPool(dataDir: string): QueryRunner {
  const pool = new Piscina<QueryTask, unknown>({
    filename: QUERY_WORKER_URL.href, minThreads: 1, maxThreads: 1, workerData: { dataDir }, idleTimeout: Number.MAX_SAFE_INTEGER,
    // A worker blocked in Atomics.wait never runs lmdb-js's timer that ends its read
    // snapshot, and would go on reading the store as it was.
    atomics: 'async',
  });
  return {
    persons: (task) => pool.run({ kind: 'persons', task }) as Promise<PersonScan>,
    groups: (task) => pool.run({ kind: 'groups', task }) as Promise<WindowScan<Group>>,
    warnings: (task) => pool.run({ kind: 'warnings', task }) as Promise<WarningSummary[]>,
    events: (query) => pool.run({ kind: 'events', query }) as Promise<{ rows: EventRow[]; more: boolean }>,
    values: (query) => pool.run({ kind: 'values', query }) as Promise<string[]>,
    close: () => pool.destroy(),
  };
}
