// A batch cut into runs of whole records, for a handler that commits each run with the
// position it reaches and looks at ConsumerContext.stopping between runs: a stop then
// waits for one run, not the whole batch (a backlog's batch holds many MiB of log). The
// records a run committed stay applied; the mechanism hands the batch over again at the
// next start, or to the ladder's retry after a failure, and the runs skip what the
// handler's position already covers, so nothing is applied twice or lost.
import type { LogEntry } from '../types.js';
import type { EventGroup } from './types.js';

export interface Run {
  readonly groups: readonly EventGroup[];
  // The log sequence the run reaches: its last record's, or the call's own for the last run.
  readonly through: number | null;
}

// `applied`: the position the handler has committed (records through it are left out).
// Groups built in memory (no record: the ladder's pieces of one) and parts of a record
// (`through` null) are one run, as they came.
export function runsOf(groups: readonly EventGroup[], through: number | null, runBytes: number, applied: number): Run[] {
  if (through === null) return [{ groups, through }];
  let first = 0;
  while (first < groups.length && ((groups[first] as Partial<LogEntry>).seq ?? Number.POSITIVE_INFINITY) <= applied) first++;
  if (first === groups.length) return [];
  const runs: Run[] = [];
  let start = first;
  let bytes = 0;
  for (let i = first; i < groups.length - 1; i++) {
    const { seq, record } = groups[i] as Partial<LogEntry>;
    if (seq === undefined || record === undefined) continue;
    bytes += record.byteLength;
    if (bytes < runBytes) continue;
    runs.push({ groups: groups.slice(start, i + 1), through: seq });
    start = i + 1;
    bytes = 0;
  }
  runs.push({ groups: start === 0 ? groups : groups.slice(start), through });
  return runs;
}
