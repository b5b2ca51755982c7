// The event store: a log consumer that writes each event under
// [project_id, timestamp_ms, uuid] for time-range scans. Idempotent on uuid, and
// the position is committed in the same transaction as the events it covers, so a
// crash at any point replays from exactly where the store stands.
import type { Store } from '../store/env.js';
import { LMDB_LOG_ID, type CapturedEvent, type LogEntry } from '../log/types.js';
import { cutDeepValues, MAX_VALUE_LEVELS, nestedDeeperThan } from './cut-deep.js';
import { recordProcessingWarning } from './processing-warning.js';

export const EVENT_STORE_CONSUMER = 'event_store';

// The embedded log keeps the plain name (data dirs written before positions were
// per log); any other log's position carries that log's id.
export function positionKey(logId: string): string {
  return logId === LMDB_LOG_ID ? EVENT_STORE_CONSUMER : `${EVENT_STORE_CONSUMER}@${logId}`;
}

// A step that runs on each new event before it is stored, in the same transaction
// (person processing, src/persons/step.ts). One is started per transaction.
export interface EventPreparation {
  // The person the event resolved to, or null to drop the event. May rewrite properties.
  prepare(ev: CapturedEvent): { person_id: string | null } | null;
  // Writes what the step changed; called once, after the last event.
  finish(): void;
}

const unprepared = { person_id: null };
const NO_OVERWRITE = { noOverwrite: true };

// Records the uuid; false when it already was. Inside a write transaction lmdb-js's
// putSync reports whether a noOverwrite put happened (its typings say void).
function recordUuid(store: Store, projectId: number, uuid: string, ts: number): boolean {
  return (store.eventUuids.putSync([projectId, uuid], ts, NO_OVERWRITE) as unknown as boolean) === true;
}

function cutDeepProperties(store: Store, ev: CapturedEvent, nowMs: number): void {
  ev.properties = cutDeepValues(ev.properties, MAX_VALUE_LEVELS) as CapturedEvent['properties'];
  recordProcessingWarning(store, ev, 'stored_with_deep_values_cut', `properties nested deeper than ${MAX_VALUE_LEVELS} levels`, nowMs);
}

export function applyEntries(
  store: Store, entries: LogEntry[], startPreparation?: () => EventPreparation, logId = LMDB_LOG_ID, now: () => number = Date.now,
): Promise<unknown> {
  return commitEvents(store, entries, { startPreparation, position: { key: positionKey(logId), seq: entries[entries.length - 1].seq }, now });
}

// A consumer's position: its key in `positions` and the log sequence it has applied.
export interface Position {
  key: string;
  seq: number;
}

export interface CommitOptions {
  startPreparation?: () => EventPreparation;
  // Moved with the events; null leaves it (a part of an entry, src/events/consumer-loop.ts).
  position: Position | null;
  // More writes of the same transaction.
  also?: () => void;
  // Stamps the warnings this pass records itself.
  now?: () => number;
}

// Stores the events of `groups` in one transaction.
export function commitEvents(store: Store, groups: readonly { readonly events: CapturedEvent[] }[], opts: CommitOptions): Promise<unknown> {
  const { startPreparation, position } = opts;
  // lmdb-js commits what an async transaction wrote even when its callback throws; the
  // child transaction is rolled back instead, so a failed batch leaves nothing behind.
  return store.root.transaction(() => store.root.childTransaction(() => {
    const preparation = startPreparation?.();
    for (const group of groups) {
      for (const ev of group.events) {
        const ts = Date.parse(ev.timestamp);
        // One write is the idempotency check: it fails when the uuid is already recorded
        // (a get first cost a quarter of this loop). A dropped event's uuid is still
        // recorded, so a resend is not processed twice.
        if (!recordUuid(store, ev.project_id, ev.uuid, ts)) continue;
        if (nestedDeeperThan(ev.properties, MAX_VALUE_LEVELS)) cutDeepProperties(store, ev, (opts.now ?? Date.now)());
        const prepared = preparation ? preparation.prepare(ev) : unprepared;
        if (prepared === null) continue;
        store.events.put([ev.project_id, ts, ev.uuid], {
          uuid: ev.uuid, event: ev.event, distinct_id: ev.distinct_id, properties: ev.properties,
          timestamp: ev.timestamp, person_id: prepared.person_id, elements_chain: typeof ev.properties.$elements_chain === 'string' ? ev.properties.$elements_chain : '',
        });
      }
    }
    preparation?.finish();
    opts.also?.();
    if (position) store.positions.put(position.key, position.seq);
  }));
}

export function eventStorePosition(store: Store, logId = LMDB_LOG_ID): number {
  return store.positions.get(positionKey(logId)) ?? 0;
}
