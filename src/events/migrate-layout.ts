// Data directories written before the one-write layout (docs/decisions/0012) keep each
// event under [project, timestamp, uuid] beside a separate uuid index. They are moved to
// the current layout once, at start-up, before anything reads or writes events: a batch per
// transaction, each batch leaving the old layout in the transaction that writes it to
// the new one, so a crash resumes where it stopped.
import type { EventsTables } from './tables.js';
import { createTimeIndexWriter } from './time-index.js';
import { writeEventRow } from './consumer.js';

const BATCH = 10_000;

// Moves what `read` returns, one transaction per batch, until it returns nothing; each
// batch's `move` removes it from the old layout. Returns how many items were moved.
async function drain<T>(store: EventsTables, read: () => T[], move: (item: T) => void, after: () => void = () => undefined): Promise<number> {
  let moved = 0;
  for (let batch = read(); batch.length > 0; batch = read()) {
    await store.root.transaction(() => {
      batch.forEach(move);
      after();
    });
    moved += batch.length;
  }
  return moved;
}

// Returns how many events were moved.
export async function migrateEventLayout(store: EventsTables): Promise<number> {
  // Each batch's chunks are written in its own transaction (write() leaves nothing open).
  const times = createTimeIndexWriter(store);
  const moved = await drain(store, () => [...store.legacyEvents.getRange({ limit: BATCH })], ({ key, value }) => {
    const [projectId, ts, uuid] = key;
    store.eventRows.put([projectId, uuid], value);
    times.add(projectId, ts, uuid, value.event, value.distinct_id);
    store.legacyEvents.remove(key);
    store.legacyEventUuids.remove([projectId, uuid]);
  }, () => times.write());
  // What the old uuid index still holds are uuids seen but never stored (dropped events).
  await drain(store, () => [...store.legacyEventUuids.getKeys({ limit: BATCH })], (key) => {
    writeEventRow(store, key[0], key[1], null);
    store.legacyEventUuids.remove(key);
  });
  return moved;
}
