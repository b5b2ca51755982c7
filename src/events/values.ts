// Distinct recent values of one event property (PostHog's events/values): the last
// 7 days, newest first, optional case-insensitive substring and event filters.
import type { EventsTables } from './tables.js';
import { newestFirst } from './time-index.js';

const WINDOW_MS = 7 * 24 * 3600 * 1000;
const MAX_VALUES = 10;
// Bounded scan: a suggestion list must never pin a thread on a huge project.
const SCAN_BUDGET = 100_000;

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
  for (const e of newestFirst(store, q.projectId, { ts: q.nowMs + 1, uuid: '' }, q.nowMs - WINDOW_MS - 1)) {
    if (++scanned > SCAN_BUDGET) break;
    if (q.eventName !== undefined && e.event !== q.eventName) continue;
    const value = store.eventRows.get([q.projectId, e.uuid]);
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
