// Distinct recent values of one event property (PostHog's events/values): the last
// 7 days, newest first, optional case-insensitive substring and event filters.
import type { EventsTables } from './tables.js';
import { newestFirst } from './time-index.js';

const WINDOW_MS = 7 * 24 * 3600 * 1000;
const MAX_VALUES = 10;
// Bounded scan: a suggestion list must never pin a thread on a huge project. Rows are
// counted and so are their bytes: decoding is what a row costs, and a few thousand rows
// of large events (10 KB blobs, one of 17 MiB, one of 65,536 keys) took seconds to decode
// when the property was rare (issue 27: 8.7 s). 16 MiB decode in about 0.1-0.2 s.
const SCAN_BUDGET = 100_000;
const SCAN_BYTES = 16 * 1024 * 1024;

export interface ValuesQuery {
  projectId: number;
  key: string;
  value?: string;
  eventName?: string;
  nowMs: number;
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function propertyValues(store: EventsTables, q: ValuesQuery): string[] {
  const needle = q.value?.toLowerCase();
  const seen = new Set<string>();
  let scanned = 0;
  let bytes = 0;
  for (const e of newestFirst(store, q.projectId, { ts: q.nowMs + 1, uuid: '' }, q.nowMs - WINDOW_MS - 1)) {
    if (++scanned > SCAN_BUDGET || bytes > SCAN_BYTES) break;
    if (q.eventName !== undefined && e.event !== q.eventName) continue;
    const key: [number, string] = [q.projectId, e.uuid];
    // The row's size, without decoding it (a view of the map, valid until the next read).
    bytes += store.eventRows.getBinaryFast(key)?.length ?? 0;
    const value = store.eventRows.get(key);
    if (!value) continue;
    const raw = value.properties[q.key];
    if (raw === undefined || raw === null) continue;
    const text = asText(raw);
    if (needle !== undefined && !text.toLowerCase().includes(needle)) continue;
    seen.add(text);
    if (seen.size === MAX_VALUES) break;
  }
  return [...seen];
}
