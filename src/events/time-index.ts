// Events are kept once, under [project, uuid] (./tables.ts eventRows): the uuid
// check and the row are one write (docs/decisions/0012). Reads newest first go through
// this time index, written once per chunk of a transaction's events rather than once per
// event (lmdb-js costs 1–2 µs per operation before any B-tree work; bench/RESULTS.md). A
// chunk lists up to CHUNK_EVENTS events (timestamp, uuid, name, distinct id), newest
// first, spanning at most CHUNK_SPAN_MS, under [project, its newest timestamp, its newest
// uuid]. So a chunk filed under m holds nothing older than m − CHUNK_SPAN_MS: a read
// below t starts at the chunks filed under t + CHUNK_SPAN_MS and merges chunks in
// (timestamp, uuid) order.
import type { EventsTables, TimeChunk } from './tables.js';

export const CHUNK_EVENTS = 512;
export const CHUNK_SPAN_MS = 3600 * 1000;

export interface TimedUuid {
  ts: number;
  uuid: string;
}

// An event as the index knows it.
export interface IndexedEvent extends TimedUuid {
  event: string;
  distinct_id: string;
}

const newerFirst = (a: TimedUuid, b: TimedUuid) => (b.ts - a.ts) || (a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0);

// One chunk's events, newest first. Pure.
export function toChunk(events: IndexedEvent[]): TimeChunk {
  const sorted = events.sort(newerFirst);
  return { ts: sorted.map((e) => e.ts), uuids: sorted.map((e) => e.uuid), names: sorted.map((e) => e.event), distinctIds: sorted.map((e) => e.distinct_id) };
}

// Writes a transaction's stored events into chunks as they come, one open chunk per
// project, so that no more than a chunk's worth of them is held: holding a whole
// transaction's (50,000 events) until its end had them all survive into the old
// generation, and GC went from 1% to 9% of the pass. An event outside the open chunk's
// span closes it; live traffic arrives in time order, so its chunks stay full.
export function createTimeIndexWriter(store: EventsTables) {
  const open = new Map<number, { events: IndexedEvent[]; oldest: number; newest: number }>();
  const close = (projectId: number, events: IndexedEvent[]) => {
    const chunk = toChunk(events);
    store.eventTimes.put([projectId, chunk.ts[0], chunk.uuids[0]], chunk);
  };
  return {
    add(projectId: number, ts: number, uuid: string, event: string, distinctId: string): void {
      // A timestamp capture did not normalize (an old log's) sorts as the epoch.
      if (Number.isNaN(ts)) ts = 0;
      let chunk = open.get(projectId);
      if (chunk && (chunk.events.length === CHUNK_EVENTS || ts > chunk.oldest + CHUNK_SPAN_MS || ts < chunk.newest - CHUNK_SPAN_MS)) {
        close(projectId, chunk.events);
        chunk = undefined;
      }
      if (!chunk) open.set(projectId, (chunk = { events: [], oldest: ts, newest: ts }));
      chunk.events.push({ ts, uuid, event, distinct_id: distinctId });
      if (ts < chunk.oldest) chunk.oldest = ts;
      if (ts > chunk.newest) chunk.newest = ts;
    },
    write(): void {
      for (const [projectId, chunk] of open) close(projectId, chunk.events);
      open.clear();
    },
  };
}

// A (ts, uuid) strictly below `below` in the newest-first order.
const isBelow = (ts: number, uuid: string, below: TimedUuid) => ts < below.ts || (ts === below.ts && uuid < below.uuid);

// Merges two newest-first lists.
function merge(a: IndexedEvent[], b: IndexedEvent[]): IndexedEvent[] {
  const out: IndexedEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(newerFirst(a[i], b[j]) <= 0 ? a[i++] : b[j++]);
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

// A project's events newest first, strictly below `below` (every event when null) and
// newer than `afterMs`.
export function* newestFirst(store: EventsTables, projectId: number, below: TimedUuid | null, afterMs = -Infinity): Generator<IndexedEvent> {
  const from = below === null ? Number.MAX_SAFE_INTEGER : below.ts + CHUNK_SPAN_MS;
  const to = Number.isFinite(afterMs) ? afterMs : -Number.MAX_SAFE_INTEGER;
  let pending: IndexedEvent[] = [];
  let next = 0;
  for (const { key, value } of store.eventTimes.getRange({ start: [projectId, from, '\uffff'], end: [projectId, to, ''], reverse: true })) {
    // Everything pending that is newer than this chunk's newest event is final.
    const newest = key[1];
    while (next < pending.length && pending[next].ts > newest) yield pending[next++];
    const fresh: IndexedEvent[] = [];
    for (let i = 0; i < value.ts.length; i++) {
      const ts = value.ts[i];
      if (ts <= afterMs) break;
      if (below !== null && !isBelow(ts, value.uuids[i], below)) continue;
      fresh.push({ ts, uuid: value.uuids[i], event: value.names[i], distinct_id: value.distinctIds[i] });
    }
    pending = merge(pending.slice(next), fresh);
    next = 0;
  }
  while (next < pending.length) yield pending[next++];
}
