// The event store: a log consumer that writes each event under
// [project_id, timestamp_ms, uuid] for time-range scans. Idempotent on uuid, and
// the position is committed in the same transaction as the events it covers, so a
// crash at any point replays from exactly where the store stands.
import type { Store } from '../store/env.js';
import type { LogEntry, LogReader } from '../log/types.js';

export const EVENT_STORE_CONSUMER = 'event_store';

export function applyEntries(store: Store, entries: LogEntry[]): Promise<unknown> {
  const last = entries[entries.length - 1].seq;
  return store.root.transaction(() => {
    for (const entry of entries) {
      for (const ev of entry.events) {
        const idKey: [number, string] = [ev.project_id, ev.uuid];
        if (store.eventUuids.get(idKey) !== undefined) continue;
        const ts = Date.parse(ev.timestamp);
        store.events.put([ev.project_id, ts, ev.uuid], {
          uuid: ev.uuid, event: ev.event, distinct_id: ev.distinct_id, properties: ev.properties,
          timestamp: ev.timestamp, person_id: null, elements_chain: typeof ev.properties.$elements_chain === 'string' ? ev.properties.$elements_chain : '',
        });
        store.eventUuids.put(idKey, ts);
      }
    }
    store.positions.put(EVENT_STORE_CONSUMER, last);
  });
}

export function eventStorePosition(store: Store): number {
  return store.positions.get(EVENT_STORE_CONSUMER) ?? 0;
}

export async function runEventStore(store: Store, reader: LogReader, signal: AbortSignal): Promise<void> {
  await reader.consume(eventStorePosition(store), (entries) => applyEntries(store, entries).then(() => undefined), signal);
}
