// Data directories written before the one-write layout (docs/decisions/0012) keep each
// event under [project, timestamp, uuid] beside a separate uuid index. They are moved to the
// current layout once, at start-up, before anything reads or writes events: a batch per
// transaction, each batch leaving the old layout in the transaction that writes it to
// the new one, so a crash resumes where it stopped.
import type { Store } from '../store/env.js';
import { createTimeIndexWriter } from './time-index.js';

const BATCH = 10_000;
const NO_OVERWRITE = { noOverwrite: true };

// Returns how many events were moved.
export async function migrateEventLayout(store: Store): Promise<number> {
  let moved = 0;
  for (let batch = [...store.legacyEvents.getRange({ limit: BATCH })]; batch.length > 0; batch = [...store.legacyEvents.getRange({ limit: BATCH })]) {
    await store.root.transaction(() => {
      const times = createTimeIndexWriter(store);
      for (const { key, value } of batch) {
        const [projectId, ts, uuid] = key;
        store.eventRows.put([projectId, uuid], value);
        times.add(projectId, ts, uuid, value.event, value.distinct_id);
        store.legacyEvents.remove(key);
        store.legacyEventUuids.remove([projectId, uuid]);
      }
      times.write();
    });
    moved += batch.length;
  }
  // What the old uuid index still holds are uuids seen but never stored (dropped events).
  for (let keys = [...store.legacyEventUuids.getKeys({ limit: BATCH })]; keys.length > 0; keys = [...store.legacyEventUuids.getKeys({ limit: BATCH })]) {
    await store.root.transaction(() => {
      for (const key of keys) {
        store.eventRows.putSync(key, null, NO_OVERWRITE);
        store.legacyEventUuids.remove(key);
      }
    });
  }
  return moved;
}
