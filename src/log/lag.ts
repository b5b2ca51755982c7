// How far a consumer is behind the embedded log, in records and in events. Events per
// record are counted as they are appended (logCounts, ./tables.ts), so neither takes decoding.
import type { LogTables } from './tables.js';

// Events in the records after `position`; null when a record there was written before
// counts were kept (they are pruned soon after an upgrade).
export function eventsAfter(store: LogTables, position: number): number | null {
  let last: [number, number] | undefined;
  for (const { value } of store.logCounts.getRange({ reverse: true, limit: 1 })) last = value;
  let next: { key: number; value: [number, number] } | undefined;
  for (const entry of store.log.getKeys({ start: position + 1, limit: 1 })) {
    const counts = store.logCounts.get(entry as number);
    if (counts === undefined) return null;
    next = { key: entry as number, value: counts };
  }
  if (next === undefined) return 0;
  if (last === undefined) return null;
  // Events through the last record, less those before the first record not applied.
  return last[1] - (next.value[1] - next.value[0]);
}
