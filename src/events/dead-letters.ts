// Log records the consumer cannot decode at all (bytes damaged on disk, a format this
// version does not know) are set aside under [log id, sequence] with the error and the
// bytes, and the consumer moves past them in the same transaction: one such record must
// not stop every event behind it, nor keep the log from being pruned. Nothing is thrown
// away; `hedgerow dead-letters` lists what was set aside.
import type { Store } from '../store/env.js';
import type { LogEntry } from '../log/types.js';
import type { Position } from './consumer.js';

export interface QuarantinedRecord {
  log: string;
  seq: number;
  error: string;
  bytes: number;
}

export async function quarantineRecord(
  store: Store, entry: LogEntry, logId: string, position: Position, error: unknown, nowMs: number,
): Promise<QuarantinedRecord> {
  const message = error instanceof Error ? error.message : String(error);
  const record = entry.record ?? null;
  await store.root.transaction(() => {
    store.deadLetters.put([logId, entry.seq], { error: message, quarantined_at: new Date(nowMs).toISOString(), record });
    store.positions.put(position.key, position.seq);
  });
  return { log: logId, seq: entry.seq, error: message, bytes: record?.byteLength ?? 0 };
}

export interface DeadLetterListing {
  log: string;
  seq: number;
  error: string;
  quarantined_at: string;
  bytes: number;
  // The record, base64: what an operator needs to inspect or re-send it.
  record: string | null;
}

export function listDeadLetters(store: Store): DeadLetterListing[] {
  return [...store.deadLetters.getRange()].map(({ key: [log, seq], value }) => ({
    log, seq, error: value.error, quarantined_at: value.quarantined_at, bytes: value.record?.byteLength ?? 0,
    record: value.record ? Buffer.from(value.record).toString('base64') : null,
  }));
}
