// How the functions' log lines lie in the destinations store (docs/decisions/0062). A line's
// key is [function id, timestamp ms, sequence]. The lines a transaction of this node writes
// for one function in one millisecond are one record, under the first one's key, instead
// of one record each: a short delivery logs one line, and its put was one of the writes
// each delivery paid. All of a record's lines share its millisecond, so a range of times
// reads whole records; within a millisecond lines are read in sequence order, whichever
// record holds them. A line applied from another node (./telemetry-stream.ts) stays a
// record of its own, as every line was before: applied twice it is still one line.
import type { DestinationsStore, FunctionLogEntry } from './env.js';
import type { TelemetryBatch } from './telemetry.js';

// A record of several lines: their sequences and the lines, in the order they were logged.
export interface LogLines {
  seqs: number[];
  lines: FunctionLogEntry[];
}

export interface LogLine {
  at: number;
  sequence: number;
  entry: FunctionLogEntry;
}

const isLines = (value: FunctionLogEntry | LogLines): value is LogLines => (value as LogLines).seqs !== undefined;

/** Inside a write transaction: each line under its own key (a line applied twice is one line). */
export function putLines(store: DestinationsStore, lines: TelemetryBatch['logs']): void {
  for (const [functionId, at, sequence, entry] of lines) store.logs.put([functionId, at, sequence], entry);
}

/** Inside a write transaction: lines this node logged, one record per function and millisecond. */
export function putLinesGrouped(store: DestinationsStore, lines: TelemetryBatch['logs']): void {
  // Function id → the index in `lines` of its record's first line, and the record once it has a second.
  let open: Map<string, { first: number; group: LogLines | null }> | null = null;
  for (let i = 0; i < lines.length; i++) {
    const [functionId, at, sequence, entry] = lines[i];
    open ??= new Map();
    const current = open.get(functionId);
    if (current !== undefined && lines[current.first][1] === at) {
      const group = (current.group ??= { seqs: [lines[current.first][2]], lines: [lines[current.first][3]] });
      group.seqs.push(sequence);
      group.lines.push(entry);
      continue;
    }
    if (current !== undefined) putRecord(store, lines, current.first, current.group);
    open.set(functionId, { first: i, group: null });
  }
  if (open !== null) for (const { first, group } of open.values()) putRecord(store, lines, first, group);
}

function putRecord(store: DestinationsStore, lines: TelemetryBatch['logs'], first: number, group: LogLines | null): void {
  const [functionId, at, sequence, entry] = lines[first];
  store.logs.put([functionId, at, sequence], group ?? entry);
}

/**
 * A function's lines with `after` < timestamp < `before` (either null: unbounded), newest
 * first or oldest first; within a millisecond in sequence order (reversed, newest first).
 */
export function* readLines(store: DestinationsStore, functionId: string, newestFirst: boolean, before: number | null, after: number | null): Generator<LogLine> {
  const high: [string, number, number] = before !== null ? [functionId, before, -1] : [functionId, Number.MAX_SAFE_INTEGER, 0];
  const low: [string, number, number] = [functionId, after ?? -1, Number.MAX_SAFE_INTEGER];
  const range = newestFirst ? { start: high, end: low, reverse: true } : { start: low, end: high };
  // The lines of the millisecond being read, sorted once it ends.
  let ms: LogLine[] = [];
  for (const { key, value } of store.logs.getRange(range)) {
    const at = key[1];
    if (ms.length > 0 && ms[0].at !== at) {
      yield* inOrder(ms, newestFirst);
      ms = [];
    }
    if (!isLines(value)) ms.push({ at, sequence: key[2], entry: value });
    else for (let i = 0; i < value.lines.length; i++) ms.push({ at, sequence: value.seqs[i], entry: value.lines[i] });
  }
  yield* inOrder(ms, newestFirst);
}

function inOrder(ms: LogLine[], newestFirst: boolean): LogLine[] {
  if (ms.length > 1) ms.sort(newestFirst ? (a, b) => b.sequence - a.sequence : (a, b) => a.sequence - b.sequence);
  return ms;
}
