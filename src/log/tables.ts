// The event log's tables: the embedded log itself (in the log environment) and, in the
// main environment, where each consumer stands and what consumers set aside.
import { table, type Environments, type Tables } from '../store/index.js';

export type DeadLetterKey = [logId: string, seq: number] | [logId: string, seq: number, consumer: string, index: number];

export interface DeadLetter {
  error: string;
  quarantined_at: string;
  // The record's bytes as the log held them, or one event's JSON (null when there was
  // none to keep).
  record: Uint8Array | null;
}

export const logTables = {
  // Embedded event log: monotonic sequence → one encoded group of events.
  log: table<Buffer, number>('log', { encoding: 'binary' }, 'log'),
  // Beside each log record: [events in it, events appended through it], so a consumer's
  // lag in events is two reads (./lag.ts). Records written before it have none.
  logCounts: table<[number, number], number>('log_counts', {}, 'log'),
  // consumer name → last log sequence it applied (and 'log_pruner' → the sequence the
  // embedded log is pruned through; retention takes the minimum over the others).
  positions: table<number, string>('positions'),
  // [log id, sequence] → a log record no consumer could decode, and [log id, sequence,
  // consumer, index] → one event a consumer could not apply: set aside (./consumers/).
  deadLetters: table<DeadLetter, DeadLetterKey>('dead_letters'),
};

// The log's tables, and its environment (the embedded log is written and pruned in
// transactions of its own).
export type LogTables = Tables<typeof logTables> & Pick<Environments, 'logRoot' | 'logPath'>;
