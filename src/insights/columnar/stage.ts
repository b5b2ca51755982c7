// Building a load batch's staging text and the time windows its duplicate check reads.
// Pure: the loader writes the text to a file DuckDB reads with its own JSON parser
// (measured faster than appending row by row through the Node bindings: bench/RESULTS.md).
import { createSink, reserve, writeAscii, type JsonSink } from './json-bytes.js';

/** One event as the columnar store takes it: the event store's row with its resolved person. */
export interface ColumnarEvent {
  project_id: number;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string;
  /** ISO 8601 instant. */
  timestamp: string;
  properties: Record<string, unknown>;
}

export interface ColumnarPerson {
  project_id: number;
  id: string;
  created_at: string;
  properties: Record<string, unknown>;
  /** Absent: not identified. */
  is_identified?: boolean;
}

/** A group as the columnar store takes it: the persons store's record. */
export interface ColumnarGroup {
  project_id: number;
  type_index: number;
  key: string;
  created_at: string;
  properties: Record<string, unknown>;
}

export interface DistinctIdMapping {
  project_id: number;
  distinct_id: string;
  person_id: string;
}

/** DuckDB's JSON reader's default maximum_object_size. */
export const DEFAULT_OBJECT_BYTES = 16 * 1024 * 1024;

/**
 * The UTF-8 bytes of the longest line of `text`, measured exactly only for lines that could
 * pass DEFAULT_OBJECT_BYTES (a UTF-16 unit is at most 3 bytes); the others count as 0.
 */
export function longestLineBytes(text: string): number {
  let longest = 0;
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if ((end - start) * 3 > DEFAULT_OBJECT_BYTES) longest = Math.max(longest, Buffer.byteLength(text.slice(start, end)));
    start = end + 1;
  }
  return longest;
}

/**
 * JSON.stringify writes a lone UTF-16 surrogate as a \udXXX escape, which DuckDB's JSON
 * reader refuses; such escapes become U+FFFD (an escaped backslash is left alone).
 */
export function wellFormedJson(text: string): string {
  if (!text.includes('\\ud')) return text;
  return text.replace(/\\(\\|ud[89a-f][0-9a-f]{2})/g, (m, g: string) => (g === '\\' ? m : '\\ufffd'));
}

/** A batch's events as staged for DuckDB: one JSON line each, the first of each uuid only. */
export interface StagedEvents {
  /** The lines, UTF-8, each ended by a newline. */
  bytes: Buffer;
  count: number;
  /** The UTF-8 bytes of the longest line. */
  longest: number;
  /** The windows of the events' timestamps (timeRanges). */
  ranges: { from: number; to: number }[];
}

/**
 * Collects a batch's event lines as they are read, in one growing buffer of bytes (no object
 * per event, no text of the whole batch), with what the loader needs beside them. An event
 * whose uuid it already holds is left out (the first one wins); a line is written either
 * whole from a decoded event (writeEvent), or piece by piece by a caller between startLine
 * and endLine (src/insights/from-store.ts, from the row's bytes).
 */
export interface EventText {
  readonly sink: JsonSink;
  readonly count: number;
  /** Claims the uuid for this batch: false if an event of it is in already. */
  claim(projectId: number, uuid: string): boolean;
  /** Begins a claimed event's line: `{"project":…,` written. */
  startLine(projectId: number): void;
  /** Ends the line begun last. */
  endLine(timestampMs: number): void;
  /** Drops what was written of the line begun last. */
  dropLine(): void;
  /** A claimed event's whole line, JSON.stringify's text of it. */
  writeEvent(e: ColumnarEvent): void;
  take(): StagedEvents | null;
}

export function createEventText(): EventText {
  const sink = createSink();
  // Claimed uuids by project: the uuid itself is the key, no text made per event.
  const seen = new Map<number, Set<string>>();
  const times: number[] = [];
  let longest = 0;
  let lineAt = 0;
  return {
    sink,
    get count() {
      return times.length;
    },
    claim(projectId, uuid) {
      let uuids = seen.get(projectId);
      if (uuids === undefined) seen.set(projectId, (uuids = new Set()));
      const before = uuids.size;
      uuids.add(uuid);
      return uuids.size > before;
    },
    startLine(projectId) {
      lineAt = sink.at;
      writeAscii(sink, `{"project":${projectId},`);
    },
    endLine(timestampMs) {
      longest = Math.max(longest, sink.at - lineAt);
      writeAscii(sink, '\n');
      times.push(timestampMs);
    },
    dropLine() {
      sink.at = lineAt;
    },
    writeEvent(e) {
      lineAt = sink.at;
      const line = wellFormedJson(JSON.stringify({
        project: e.project_id, uuid: e.uuid, event: e.event, distinct_id: e.distinct_id, person_id: e.person_id, timestamp: e.timestamp, properties: e.properties,
      }));
      reserve(sink, 3 * line.length + 1);
      sink.at += sink.buf.write(line, sink.at, 'utf8');
      this.endLine(Date.parse(e.timestamp));
    },
    take() {
      if (times.length === 0) return null;
      return { bytes: sink.buf.subarray(0, sink.at), count: times.length, longest, ranges: timeRanges(times) };
    },
  };
}

export function personLines(persons: readonly ColumnarPerson[]): string {
  return wellFormedJson(persons.map((p) => JSON.stringify({ project: p.project_id, id: p.id, created_at: p.created_at, properties: p.properties, is_identified: p.is_identified === true })).join('\n'));
}

export function groupLines(groups: readonly ColumnarGroup[]): string {
  return wellFormedJson(groups.map((g) => JSON.stringify({ project: g.project_id, type_index: g.type_index, key: g.key, created_at: g.created_at, properties: g.properties })).join('\n'));
}

export function distinctIdLines(rows: readonly DistinctIdMapping[]): string {
  return wellFormedJson(rows.map((r) => JSON.stringify({ project: r.project_id, distinct_id: r.distinct_id, person_id: r.person_id })).join('\n'));
}

/** The staged text of decoded events (the first of each uuid). */
export function stageEvents(events: readonly ColumnarEvent[]): StagedEvents | null {
  const text = createEventText();
  for (const e of events) if (text.claim(e.project_id, e.uuid)) text.writeEvent(e);
  return text.take();
}

/**
 * At most `max` closed ranges [from, to] (ms) covering every timestamp, cut at the widest
 * gaps: the duplicate check scans only the stored events of these ranges (DuckDB skips the
 * row groups outside them by their min/max), so a batch of live events with a few late ones
 * reads a few narrow slices, not the whole table.
 */
export function timeRanges(timestampsMs: readonly number[], max = 8): { from: number; to: number }[] {
  if (timestampsMs.length === 0) return [];
  const sorted = [...timestampsMs].sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((t, i) => ({ at: i + 1, width: t - sorted[i] })).filter((g) => g.width > 0);
  const cuts = gaps.sort((a, b) => b.width - a.width).slice(0, max - 1).map((g) => g.at).sort((a, b) => a - b);
  const ranges: { from: number; to: number }[] = [];
  let start = 0;
  for (const cut of [...cuts, sorted.length]) {
    ranges.push({ from: sorted[start], to: sorted[cut - 1] });
    start = cut;
  }
  return ranges;
}
