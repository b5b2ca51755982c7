// Reading stored events newest first with PostHog's events API filters.
import type { Store, StoredEventValue } from '../store/env.js';

export interface EventQuery {
  projectId: number;
  event?: string;
  distinctId?: string;
  afterMs?: number;
  beforeMs?: number;
  // Resume strictly below this [timestamp, uuid] key (pagination cursor).
  cursor?: { ts: number; uuid: string };
  limit: number;
}

export interface EventRow {
  ts: number;
  value: StoredEventValue;
}

// Scanning stops after this many non-matching rows so a rare filter cannot pin a thread.
const SCAN_BUDGET = 200_000;

export function queryEvents(store: Store, q: EventQuery): { rows: EventRow[]; more: boolean } {
  const start: [number, number, string] = q.cursor
    ? [q.projectId, q.cursor.ts, q.cursor.uuid]
    : [q.projectId, q.beforeMs !== undefined ? q.beforeMs : Number.MAX_SAFE_INTEGER, ''];
  const end: [number, number, string] = [q.projectId, q.afterMs !== undefined ? q.afterMs : -1, '\uffff'];
  const rows: EventRow[] = [];
  let scanned = 0;
  for (const { key, value } of store.events.getRange({ start, end, reverse: true })) {
    const [, ts, uuid] = key as [number, number, string];
    if (q.cursor && ts === q.cursor.ts && uuid === q.cursor.uuid) continue;
    if (q.afterMs !== undefined && ts <= q.afterMs) break;
    if (++scanned > SCAN_BUDGET) break;
    if (q.event !== undefined && value.event !== q.event) continue;
    if (q.distinctId !== undefined && value.distinct_id !== q.distinctId) continue;
    if (rows.length === q.limit) return { rows, more: true };
    rows.push({ ts, value });
  }
  return { rows, more: false };
}

export function eventByUuid(store: Store, projectId: number, uuid: string): StoredEventValue | undefined {
  const ts = store.eventUuids.get([projectId, uuid]);
  if (ts === undefined) return undefined;
  return store.events.get([projectId, ts, uuid]);
}
