// The consumer loop. A batch that fails is not retried as it is forever: one bad event
// (a value nested too deep to encode, an input the person rules choke on) would stop
// every event after it. Once the store is known to accept writes, the batch is applied
// entry by entry, and the entry that fails event by event; an event that fails on its
// own is stored without its person processing, then with its too-deep values cut, and
// only then given up; each such event leaves an ingestion warning. A failure the store
// itself causes (the probe write fails too) is thrown: the supervisor restarts the
// consumer with backoff, and nothing is skipped.
import type { Store } from '../store/env.js';
import { LMDB_LOG_ID, type CapturedEvent, type LogEntry, type LogReader } from '../log/types.js';
import { warningDetails } from '../persons/warnings.js';
import { applyEntries, commitEvents, eventStorePosition, positionKey, type EventPreparation } from './consumer.js';
import { cutDeepValues } from './cut-deep.js';

// Deeper than any real payload, well within the encoders' stacks.
const MAX_VALUE_LEVELS = 100;

type Position = { key: string; seq: number };
type Outcome = 'stored_without_person' | 'stored_with_deep_values_cut' | 'not_stored';

export async function runEventStore(store: Store, reader: LogReader, signal: AbortSignal, startPreparation?: () => EventPreparation): Promise<void> {
  await reader.consume(eventStorePosition(store, reader.id), (entries) => applyEntriesIsolating(store, entries, startPreparation, reader.id), signal);
}

export async function applyEntriesIsolating(
  store: Store, entries: LogEntry[], startPreparation?: () => EventPreparation, logId = LMDB_LOG_ID, now: () => number = Date.now,
): Promise<void> {
  try {
    await applyEntries(store, entries, startPreparation, logId);
    return;
  } catch (err) {
    await throwUnlessWritable(store, positionKey(logId), err);
  }
  const key = positionKey(logId);
  for (const entry of entries) await applyEntryIsolating(store, entry, startPreparation, key, now);
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

async function applyEntryIsolating(store: Store, entry: LogEntry, startPreparation: (() => EventPreparation) | undefined, key: string, now: () => number) {
  const whole = { key, seq: entry.seq };
  try {
    await commitEvents(store, [entry], { startPreparation, position: whole });
    return;
  } catch (err) {
    await throwUnlessWritable(store, key, err);
  }
  const events = entry.events;
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
    await commitEvents(store, [{ events: [ev] }], { startPreparation, position });
    return;
  } catch (err) {
    await throwUnlessWritable(store, key, err);
    error = err;
  }
  const attempts: [Outcome, () => CapturedEvent][] = [
    ['stored_without_person', fresh],
    ['stored_with_deep_values_cut', () => {
      const e = fresh();
      e.properties = cutDeepValues(e.properties, MAX_VALUE_LEVELS) as CapturedEvent['properties'];
      return e;
    }],
  ];
  for (const [outcome, attempt] of attempts) {
    try {
      const e = attempt();
      await commitEvents(store, [{ events: [e] }], { position, also: () => warn(store, e, outcome, error, now()) });
      return;
    } catch (err) {
      await throwUnlessWritable(store, key, err);
    }
  }
  // Its uuid is still recorded: a resend of it is a duplicate, as for any stored event.
  await store.root.transaction(() => {
    store.eventUuids.put([ev.project_id, ev.uuid], Date.parse(ev.timestamp) || 0);
    warn(store, ev, 'not_stored', error, now());
    if (position) store.positions.put(position.key, position.seq);
  });
}

function warn(store: Store, ev: CapturedEvent, outcome: Outcome, error: unknown, nowMs: number): void {
  const message = error instanceof Error ? error.message : String(error);
  store.ingestionWarnings.put([ev.project_id, nowMs, ev.uuid, 0], {
    type: 'event_processing_failed',
    timestamp: new Date(nowMs).toISOString(),
    details: warningDetails({
      type: 'event_processing_failed',
      details: { eventUuid: ev.uuid, event: ev.event, distinctId: ev.distinct_id, error: message.slice(0, 500), outcome },
    }),
  });
}
