// What a consumer cannot apply is set aside, never dropped, and the consumer moves past it
// in the same transaction: one bad record must not stop every event behind it, nor keep
// the log from being pruned. `hedgerow dead-letters` lists what was set aside.
//   - A log record that cannot be decoded at all (bytes damaged on disk, a format this
//     version does not know): under [log id, sequence], with the error and its bytes.
//     It is the same for every consumer, so the first to meet it keeps it.
//   - One event a consumer could not apply on its own and has no fallback for
//     (ConsumerHandler.giveUp): under [log id, sequence, consumer, index in the record],
//     with the event as JSON when it can be written as JSON. An operation the event store
//     could not apply (docs/decisions/0032) likewise, its index counted past the events.
import type { LogTables } from '../tables.js';
import type { CapturedEvent, LogEntry, LogOperation } from '../types.js';
import type { ConsumerPosition } from './types.js';

// What the consumer thread tells the supervisor, for the operator's log.
export interface QuarantinedRecord {
  log: string;
  seq: number;
  error: string;
  bytes: number;
}

export interface SetAsideEvent extends QuarantinedRecord {
  consumer: string;
  event: number;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function quarantineRecord(
  store: LogTables, entry: LogEntry, logId: string, position: ConsumerPosition, error: unknown, nowMs: number,
): Promise<QuarantinedRecord> {
  const message = messageOf(error);
  const record = entry.record ?? null;
  await store.root.transaction(() => {
    const key: [string, number] = [logId, entry.seq];
    if (store.deadLetters.get(key) === undefined) {
      store.deadLetters.put(key, { error: message, quarantined_at: new Date(nowMs).toISOString(), record });
    }
    position.write(entry.seq);
  });
  return { log: logId, seq: entry.seq, error: message, bytes: record?.byteLength ?? 0 };
}

function eventBytes(event: CapturedEvent | LogOperation): Buffer | null {
  try {
    return Buffer.from(JSON.stringify(event));
  } catch {
    // Cyclic or otherwise unwritable: the error says what happened to it.
    return null;
  }
}

// Sets aside event `index` of record `seq` for `consumer`, moving the position to `through`.
export async function setAsideEvent(
  store: LogTables, consumer: string, logId: string, seq: number, index: number, event: CapturedEvent | LogOperation, error: unknown,
  through: number | null, position: ConsumerPosition, nowMs: number,
): Promise<SetAsideEvent> {
  const message = messageOf(error);
  const record = eventBytes(event);
  await store.root.transaction(() => {
    store.deadLetters.put([logId, seq, consumer, index], { error: message, quarantined_at: new Date(nowMs).toISOString(), record });
    if (through !== null) position.write(through);
  });
  return { log: logId, seq, consumer, event: index, error: message, bytes: record?.byteLength ?? 0 };
}

export interface DeadLetterListing {
  log: string;
  seq: number;
  // Set for one event a consumer set aside; absent for a whole record.
  consumer?: string;
  event?: number;
  error: string;
  quarantined_at: string;
  bytes: number;
  // The record (or the event's JSON), base64: what an operator needs to inspect or re-send it.
  record: string | null;
}

export function listDeadLetters(store: LogTables): DeadLetterListing[] {
  return [...store.deadLetters.getRange()].map(({ key: [log, seq, consumer, event], value }) => ({
    log, seq, ...(consumer === undefined ? {} : { consumer, event }),
    error: value.error, quarantined_at: value.quarantined_at, bytes: value.record?.byteLength ?? 0,
    record: value.record ? Buffer.from(value.record).toString('base64') : null,
  }));
}
