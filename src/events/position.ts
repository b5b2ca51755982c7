// Where the event store stands in a log: its consumer's name and stored position, read by
// what must wait for it (readiness, snapshots, the insights loader following it) without
// loading the event store itself.
import { positionKey as consumerPositionKey } from '../log/consumers/positions.js';
import type { LogTables } from '../log/tables.js';
import { LMDB_LOG_ID } from '../log/types.js';

export const EVENT_STORE_CONSUMER = 'event_store';

export const positionKey = (logId: string): string => consumerPositionKey(EVENT_STORE_CONSUMER, logId);

export function eventStorePosition(store: LogTables, logId = LMDB_LOG_ID): number {
  return store.positions.get(positionKey(logId)) ?? 0;
}
