// The destinations' runtime state: an LMDB environment of its own beside the main one
// (docs/decisions/0021). LMDB has one writer per environment; the event store's
// transactions last up to a second, and the destinations write small things often
// (queued invocations, their results, logs, metrics), so each would wait on the other in
// one environment. What the destinations write here is node-local working state, not
// management state: the hog functions themselves live in the main environment, written
// through the management write path.
import { open, type Database, type RootDatabase } from 'lmdb';
import { join } from 'node:path';
import type { FetchRequest } from '../fetch/http-fetch.js';
import type { CapturedRequest } from './captured.js';


export interface FailedDelivery {
  id: string;
  function_id: string;
  event_uuid: string;
  instance_id: string;
  mapping_index: number;
  failed_at: string;
  attempts: number;
  // The last answer's status, null when none came.
  status: number | null;
  error: string;
  request: FetchRequest;
  // Sends again so far, and how the last one went.
  resent: number;
  last_resent_at: string | null;
}

// An invocation waiting to run, for a fetch, or for a retry (src/destinations/runtime/queue.ts).
export interface QueuedInvocation {
  // The hog function and its version (updated_at) when the invocation was made.
  functionId: string;
  projectId: number;
  eventUuid: string;
  mappingIndex: number;
  // PostHog's invocation id (a uuid): the logs' instance_id.
  instanceId: string;
  // The invocation's globals with its inputs evaluated (project, event, person, groups, source, inputs):
  // bytes (src/destinations/runtime/bytes.ts), or the object in invocations queued before; null when
  // they are in `packs` under `pack`.
  globals: Uint8Array | Record<string, unknown> | null;
  // Where its event's pack is kept, shared with the event's other invocations of the same
  // chunk (src/destinations/runtime/queue.ts): the key of the first of them. Absent on
  // invocations that carry their globals.
  pack?: [string, string, number];
  // The suspended program (the VM's state as plain data) once it has run to a fetch, and
  // the fetch's response once it came: the invocation resumes there after a restart,
  // never repeating a fetch that answered.
  state: unknown | null;
  response: { status: number; body: unknown } | null;
  // A fetch waiting for its next attempt: the request the program made and attempts so far.
  pendingFetch: { url: string; options: unknown; attempts: number } | null;
  // Epoch ms at which it may run again (retries wait their backoff).
  dueAt: number;
  queuedAt: number;
  // Whether the invocation failed already (a fetch that finally failed): the program runs
  // on with the failing response, and the invocation counts as failed whatever it does.
  failed: boolean;
  // The consumer's log position when the batch that queued it began: its event lies after
  // it. Counted in `pendingCounts`, so the oldest position still counted tells from where a
  // node taking the consumer over must replay for none of them to be lost
  // (src/destinations/runtime/queue.ts). Absent on invocations queued before it was kept.
  after?: number;
}

// Events a function's program captured with postHogCapture, waiting for the main thread
// to capture them (src/destinations/internal/captured-events.ts).
export interface CapturedBatch {
  projectId: number;
  functionId: string;
  instanceId: string;
  events: readonly CapturedRequest[];
}

// Invocation keys one after another: function id, event uuid, mapping index, function id, …
export type DoneKeys = (string | number)[];

// What was delivered, per (function, event, mapping): kept for the done-marks retention.
export interface DoneMark {
  at: number;
  outcome: 'succeeded' | 'failed';
}

export interface FunctionLogEntry {
  instance_id: string;
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  message: string;
}

export interface MaskCounter {
  count: number;
  expiresAt: number;
}

export interface WatcherRecord {
  tokens: number;
  // Epoch seconds of the last refill (PostHog's bucket keeps seconds).
  at: number;
  state: number;
  // Epoch ms until which the state may not change on its own.
  lockedUntil: number;
  // The function's watcher_epoch this record has seen.
  epoch: number;
}

export interface DestinationsStore {
  root: RootDatabase;
  // [function id, event uuid, mapping index] → the invocation waiting.
  queue: Database<QueuedInvocation, [string, string, number]>;
  // after → how many queued invocations have it (> 0; the key goes with the last): the queue
  // by `after`, one record per log position rather than one per invocation (a batch's
  // invocations share it). Stores written before it kept an index entry per invocation
  // instead, turned into these counts when the node and its consumer start (./old-forms.ts).
  pendingCounts: Database<number, number>;
  // [function id, event uuid, mapping index] → delivered (or given up) at.
  done: Database<DoneMark, [string, string, number]>;
  // [at ms, function id, event uuid, mapping index] → the keys of the other done marks
  // written at `at` in the same transaction, flat (function id, event uuid, mapping index,
  // …), or null: done marks in time order, to prune; one record per transaction rather than
  // one per mark. Stores written before it hold only null values (one record per mark).
  doneByTime: Database<DoneKeys | null, [number, string, string, number]>;
  // [function id, event uuid, mapping index] of an event's first invocation queued with a pack →
  // the pack (the event's invocations' globals, src/destinations/runtime/steps.ts eventPack),
  // written once for the invocations of a chunk that share it; and how many queued ones
  // refer to it (the pack goes with the last).
  packs: Database<Uint8Array, [string, string, number]>;
  packRefs: Database<number, [string, string, number]>;
  // [function id, timestamp ms, sequence] → one log line.
  logs: Database<FunctionLogEntry, [string, number, number]>;
  // [function id, hour start ms, kind, name] → count.
  metrics: Database<number, [string, number, string, string]>;
  // [function id, hash] → masking counter.
  masks: Database<MaskCounter, [string, string]>;
  // function id → watcher state.
  watcher: Database<WatcherRecord, string>;
  // 'applied:<log id>' → the last log sequence the destinations consumer applied (its own
  // record, written with the invocations it queued).
  meta: Database<number, string>;
  // [function id, failed at ms, id] → a delivery that failed for good (./failed-deliveries.ts).
  failed: Database<FailedDelivery, [string, number, string]>;
  // [at ms, function id] → a function the watcher disabled, for the main thread to tell
  // the project's internal destinations (src/destinations/internal/watcher-events.ts).
  outbox: Database<{ projectId: number; functionId: string }, [number, string]>;
  // [at ms, function id, instance id] → events a program captured, for the main thread.
  captures: Database<CapturedBatch, [number, string, string]>;
  close(): Promise<void>;
}

export function openDestinationsStore(dataDir: string): DestinationsStore {
  const root = open({ path: join(dataDir, 'destinations.lmdb'), maxDbs: 16 });
  const plainMaps: object = { useRecords: false };
  return {
    root,
    queue: root.openDB({ name: 'queue', ...plainMaps }),
    pendingCounts: root.openDB({ name: 'pending_counts' }),
    done: root.openDB({ name: 'done' }),
    doneByTime: root.openDB({ name: 'done_by_time' }),
    packs: root.openDB({ name: 'packs', encoding: 'binary' }),
    packRefs: root.openDB({ name: 'pack_refs' }),
    logs: root.openDB({ name: 'logs', ...plainMaps }),
    metrics: root.openDB({ name: 'metrics' }),
    masks: root.openDB({ name: 'masks' }),
    watcher: root.openDB({ name: 'watcher' }),
    meta: root.openDB({ name: 'meta' }),
    failed: root.openDB({ name: 'failed_deliveries', ...plainMaps }),
    outbox: root.openDB({ name: 'internal_outbox', ...plainMaps }),
    captures: root.openDB({ name: 'captured_events', ...plainMaps }),
    close: () => root.close(),
  };
}
