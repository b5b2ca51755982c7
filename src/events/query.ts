// Reading stored events newest first with PostHog's events API filters.
import type { EventsTables, StoredEventValue } from './tables.js';
import { newestFirst } from './time-index.js';

export interface EventQuery {
  projectId: number;
  event?: string;
  distinctId?: string;
  afterMs?: number;
  beforeMs?: number;
  // Resume strictly below this [timestamp, uuid] (pagination cursor).
  cursor?: { ts: number; uuid: string };
  limit: number;
}

export interface EventRow {
  ts: number;
  value: StoredEventValue;
}

// Scanning stops after this many non-matching events so a rare filter cannot pin a thread.
const SCAN_BUDGET = 200_000;

export function queryEvents(store: EventsTables, q: EventQuery): { rows: EventRow[]; more: boolean } {
  const below = q.cursor ?? (q.beforeMs !== undefined ? { ts: q.beforeMs, uuid: '' } : null);
  const rows: EventRow[] = [];
  let scanned = 0;
  for (const e of newestFirst(store, q.projectId, below, q.afterMs)) {
    if (++scanned > SCAN_BUDGET) break;
    if (q.event !== undefined && e.event !== q.event) continue;
    if (q.distinctId !== undefined && e.distinct_id !== q.distinctId) continue;
    const value = store.eventRows.get([q.projectId, e.uuid]);
    if (!value) continue;
    if (rows.length === q.limit) return { rows, more: true };
    rows.push({ ts: e.ts, value });
  }
  return { rows, more: false };
}

// Whether the event store has recorded `uuid`: an event stored or dropped, or a person
// operation applied (./consumer.ts records each one's uuid alike).
export function uuidRecorded(store: EventsTables, projectId: number, uuid: string): boolean {
  return store.eventRows.doesExist([projectId, uuid]);
}

export function eventByUuid(store: EventsTables, projectId: number, uuid: string): StoredEventValue | undefined {
  return store.eventRows.get([projectId, uuid]) ?? undefined;
}
