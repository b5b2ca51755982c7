// The consumer loop. A batch that fails is not retried as it is forever: one bad event
// (a value nested too deep to encode, an input the person rules choke on) would stop
// every event after it. Once the store is known to accept writes, the batch is applied
// entry by entry, and the entry that fails event by event; an event that fails on its
// own is stored without its person processing, and only then given up; each such event
// leaves an ingestion warning. An entry whose record cannot be decoded at all is set
// aside whole (src/events/dead-letters.ts). A failure the store itself causes (the
// probe write fails too) is thrown: the supervisor restarts the consumer with backoff,
// and nothing is skipped.
import type { Store } from '../store/env.js';
import { LMDB_LOG_ID, type CapturedEvent, type LogEntry, type LogReader } from '../log/types.js';
import {
  applyEntries, commitEvents, eventStorePosition, positionKey, writeEventRow, type EventPreparation, type Position,
} from './consumer.js';
import { recordProcessingWarning } from './processing-warning.js';
import { quarantineRecord, type QuarantinedRecord } from './dead-letters.js';

export interface LoopOptions {
  // The step run on each new event (person processing).
  startPreparation?: () => EventPreparation;
  now?: () => number;
  // Told of each record set aside, for the operator's log.
  onQuarantined?: (record: QuarantinedRecord) => void;
}

export async function runEventStore(store: Store, reader: LogReader, signal: AbortSignal, opts: LoopOptions = {}): Promise<void> {
  await reader.consume(eventStorePosition(store, reader.id), (entries) => applyEntriesIsolating(store, entries, opts, reader.id), signal);
}

export async function applyEntriesIsolating(store: Store, entries: LogEntry[], opts: LoopOptions = {}, logId = LMDB_LOG_ID): Promise<void> {
  const key = positionKey(logId);
  try {
    await applyEntries(store, entries, opts.startPreparation, logId, opts.now);
    return;
  } catch (err) {
    await throwUnlessWritable(store, key, err);
  }
  for (const entry of entries) await applyEntryIsolating(store, entry, opts, logId, key);
}

// The store takes a write that changes nothing (the position, rewritten as it is), or
// the error was the store's.
async function throwUnlessWritable(store: Store, key: string, err: unknown): Promise<void> {
  try {
    await store.root.transaction(() => store.positions.put(key, store.positions.get(key) ?? 0));
  } catch {
    throw err;
  }
}

async function applyEntryIsolating(store: Store, entry: LogEntry, opts: LoopOptions, logId: string, key: string) {
  const { startPreparation, now = Date.now } = opts;
  const whole: Position = { key, seq: entry.seq };
  try {
    await commitEvents(store, [entry], { startPreparation, position: whole, now });
    return;
  } catch (err) {
    await throwUnlessWritable(store, key, err);
  }
  let events: CapturedEvent[];
  try {
    events = entry.events;
  } catch (err) {
    const set = await quarantineRecord(store, entry, logId, whole, err, now());
    opts.onQuarantined?.(set);
    return;
  }
  for (let i = 0; i < events.length; i++) {
    const position = i === events.length - 1 ? whole : null;
    // Each attempt gets the event as decoded afresh: a failed one may have changed it.
    await applyEventIsolating(store, events[i], () => entry.events[i], startPreparation, key, position, now);
  }
}

async function applyEventIsolating(
  store: Store, ev: CapturedEvent, fresh: () => CapturedEvent, startPreparation: (() => EventPreparation) | undefined,
  key: string, position: Position | null, now: () => number,
) {
  let error: unknown;
  try {
    await commitEvents(store, [{ events: [ev] }], { startPreparation, position, now });
    return;
  } catch (err) {
    await throwUnlessWritable(store, key, err);
    error = err;
  }
  const message = error instanceof Error ? error.message : String(error);
  try {
    const e = fresh();
    await commitEvents(store, [{ events: [e] }], { position, now, also: () => recordProcessingWarning(store, e, 'stored_without_person', message, now()) });
    return;
  } catch (err) {
    await throwUnlessWritable(store, key, err);
  }
  // Given up. Its uuid is still recorded where it can be, so a resend stays a duplicate
  // as for any stored event; a write refused for its key (thrown before anything is
  // written) must not stop the position from moving on.
  await store.root.transaction(() => {
    attempt(() => writeEventRow(store, ev.project_id, ev.uuid, null));
    attempt(() => recordProcessingWarning(store, ev, 'not_stored', message, now()));
    if (position) store.positions.put(position.key, position.seq);
  });
}

function attempt(write: () => void): void {
  try {
    write();
  } catch {
    // The warning, or the error that brought us here, already says what was lost.
  }
}
