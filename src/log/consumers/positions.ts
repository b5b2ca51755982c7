// Consumer positions in LMDB (`positions`: key → last applied log sequence). The embedded
// log's positions keep the consumer's plain name (data dirs written before positions
// were per log); a position in any other log's sequence carries that log's id.
import type { LogTables } from '../tables.js';
import { LMDB_LOG_ID } from '../types.js';
import type { ConsumerPosition } from './types.js';

export function positionKey(consumer: string, logId: string): string {
  return logId === LMDB_LOG_ID ? consumer : `${consumer}@${logId}`;
}

export function consumerPosition(store: LogTables, consumer: string, logId: string): ConsumerPosition {
  const key = positionKey(consumer, logId);
  return {
    key,
    read: () => store.positions.get(key),
    write(seq) { store.positions.put(key, seq); },
    async commit(seq) { await store.root.transaction(() => store.positions.put(key, seq)); },
  };
}

// The store takes a write that changes nothing (the position, rewritten as it is), or
// the error was the store's and is thrown again.
export async function rethrowUnlessWritable(store: LogTables, key: string, err: unknown): Promise<void> {
  try {
    await store.root.transaction(() => store.positions.put(key, store.positions.get(key) ?? 0));
  } catch {
    throw err;
  }
}
