// The event store: a log consumer that writes each event once, under [project_id, uuid],
// and a time index per chunk of events for reads newest first (src/events/time-index.ts).
// Idempotent on uuid, and the position is committed in the same transaction as the
// events it covers, so a crash at any point replays from exactly where the store stands.
import type { EventsTables, StoredEventValue } from './tables.js';
import { LMDB_LOG_ID, type CapturedEvent, type LogEntry, type LogOperation, type PlacedOperation, type UnreadableEvent } from '../log/types.js';
import { cutDeepValues, MAX_VALUE_LEVELS, nestedDeeperThan } from './cut-deep.js';
import { recordProcessingWarning, recordUnreadableWarning } from './processing-warning.js';
import { createTimeIndexWriter } from './time-index.js';
import { applyPersonOperation, DROPPED, type EventPreparation, type PersonsTables } from '../persons/index.js';
import type { IngestionWarningsTables } from '../ingestion-warnings/index.js';
import type { LogTables } from '../log/tables.js';
import type { DefinitionsPass, DefinitionsTables } from '../definitions/index.js';

// What the event store's transactions write: its events, persons and groups (person
// processing and the log's person operations), ingestion warnings, the definitions its
// events bring, and its position.
export type EventStoreTables = EventsTables & PersonsTables & IngestionWarningsTables & DefinitionsTables & LogTables;

import { positionKey } from './position.js';
import { personOnEventsReader } from './person-on-events.js';
import { isObject } from '../json.js';

export { EVENT_STORE_CONSUMER, eventStorePosition, positionKey } from './position.js';

const NO_OVERWRITE = { noOverwrite: true };

// Writes an event's row unless its uuid has one (a stored event, or null for a uuid seen
// but not stored); false when it had. Inside a write transaction lmdb-js's putSync reports
// whether a noOverwrite put happened (its typings say void), and sees the transaction's
// own writes, so a uuid twice in one batch is caught too.
export function writeEventRow(store: EventsTables, projectId: number, uuid: string, row: StoredEventValue | null): boolean {
  return (store.eventRows.putSync([projectId, uuid], row, NO_OVERWRITE) as unknown as boolean) === true;
}

function toRow(ev: CapturedEvent, personId: string | null): StoredEventValue {
  return {
    uuid: ev.uuid, event: ev.event, distinct_id: ev.distinct_id, properties: ev.properties, timestamp: ev.timestamp,
    person_id: personId, elements_chain: typeof ev.properties.$elements_chain === 'string' ? ev.properties.$elements_chain : '',
  };
}

// The person's properties an event keeps: its person's once the event is applied, with
// the event's own `$set` on top (as PostHog's ingestion writes them: an event shows what it
// set even where the person's rules kept a value out, such as noisy keys).
function personAsOfEvent(ev: CapturedEvent, properties: Record<string, unknown>): Record<string, unknown> {
  const set = ev.properties.$set;
  return isObject(set) ? { ...properties, ...set } : properties;
}

export function applyEntries(
  store: EventStoreTables, entries: LogEntry[], startPreparation?: () => EventPreparation, logId = LMDB_LOG_ID, now: () => number = Date.now,
): Promise<unknown> {
  return commitEvents(store, entries, { startPreparation, position: { key: positionKey(logId), seq: entries[entries.length - 1].seq }, now });
}

// The event store's position: its key in `positions` and the log sequence it has applied.
export interface Position {
  key: string;
  seq: number;
}

export interface CommitOptions {
  startPreparation?: () => EventPreparation;
  // Records what the stored events define (src/definitions/step.ts), one pass per transaction.
  startDefinitions?: () => DefinitionsPass;
  // Moved with the events; null leaves it (a part of an entry, src/log/consumers/ladder.ts).
  position: Position | null;
  // More writes of the same transaction.
  also?: () => void;
  // Stamps the warnings this pass records itself.
  now?: () => number;
  // Per group, what the step before storing made of its events (./pre-store.ts): by
  // index among the events it reads, a new event, null (dropped: its uuid is recorded, so a
  // resend stays a duplicate) or undefined (as it was); null for a group left as it was.
  transformed?: readonly (readonly (CapturedEvent | null | undefined)[] | null)[];
}

// What commitEvents stores: log entries, or groups of events built in memory.
export interface EventsToCommit {
  readonly events: CapturedEvent[];
  readEvents?(unreadable: UnreadableEvent[], operations?: PlacedOperation[]): CapturedEvent[];
}

// Stores the events of `groups` in one transaction. An event the log could not read back
// (LogEntry.readEvents) leaves an ingestion warning, and its uuid where known, in the same
// transaction. The log's operations (docs/decisions/0032) are applied in their places
// among the events, each once: its uuid is recorded as a dropped event's is, so a replay
// (a crash, the ladder applying a record piece by piece) skips it.
export function commitEvents(store: EventStoreTables, groups: readonly EventsToCommit[], opts: CommitOptions): Promise<unknown> {
  const { startPreparation, position } = opts;
  let definitions: DefinitionsPass | undefined;
  // lmdb-js commits what an async transaction wrote even when its callback throws; the
  // child transaction is rolled back instead, so a failed batch leaves nothing behind.
  const committed = store.root.transaction(() => store.root.childTransaction(() => {
    const preparation = startPreparation?.();
    definitions = opts.startDefinitions?.();
    const times = createTimeIndexWriter(store);
    const keepsPerson = personOnEventsReader(store);
    let unreadable: UnreadableEvent[] | null = null;
    const operations: PlacedOperation[] = [];
    const operate = (op: LogOperation) => {
      if (!writeEventRow(store, op.project_id, op.uuid, null)) return;
      if (preparation) preparation.operate(op);
      else applyPersonOperation(store, op);
    };
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g];
      const replaced = opts.transformed?.[g] ?? null;
      let events: CapturedEvent[];
      operations.length = 0;
      if (group.readEvents) {
        unreadable ??= [];
        const before = unreadable.length;
        events = group.readEvents(unreadable, operations);
        for (let i = before; i < unreadable.length; i++) recordUnreadable(store, unreadable[i], i, (opts.now ?? Date.now)());
      } else {
        events = group.events;
      }
      let op = 0;
      for (let i = 0; i < events.length; i++) {
        for (; op < operations.length && operations[op].at <= i; op++) operate(operations[op].op);
        let ev = events[i];
        if (replaced !== null) {
          const r = replaced[i];
          if (r === null) {
            writeEventRow(store, ev.project_id, ev.uuid, null);
            continue;
          }
          if (r !== undefined) ev = r;
        }
        const cut = nestedDeeperThan(ev.properties, MAX_VALUE_LEVELS);
        if (cut) ev.properties = cutDeepValues(ev.properties, MAX_VALUE_LEVELS) as CapturedEvent['properties'];
        const prepared = preparation ? preparation.prepare(ev) : null;
        // A dropped event's uuid is recorded too, so a resend is not processed twice.
        const stored = prepared !== DROPPED;
        let row: StoredEventValue | null = null;
        if (stored) {
          row = toRow(ev, prepared);
          const person = prepared !== null && keepsPerson(ev.project_id) ? preparation!.personProperties() : null;
          if (person !== null) row.person_properties = personAsOfEvent(ev, person);
        }
        if (!writeEventRow(store, ev.project_id, ev.uuid, row)) continue;
        preparation?.commit();
        if (cut) recordProcessingWarning(store, ev, 'stored_with_deep_values_cut', `properties nested deeper than ${MAX_VALUE_LEVELS} levels`, (opts.now ?? Date.now)());
        if (stored) {
          times.add(ev.project_id, Date.parse(ev.timestamp), ev.uuid, ev.event, ev.distinct_id);
          definitions?.see(ev);
        }
      }
      for (; op < operations.length; op++) operate(operations[op].op);
    }
    times.write();
    preparation?.finish();
    definitions?.finish();
    opts.also?.();
    if (position) store.positions.put(position.key, position.seq);
  }));
  return opts.startDefinitions ? committed.then((done) => { definitions?.committed(); return done; }) : committed;
}

function recordUnreadable(store: EventStoreTables, ev: UnreadableEvent, n: number, nowMs: number): void {
  // Its uuid is recorded, as a dropped event's, so that a resend stays a duplicate.
  if (ev.uuid !== null) writeEventRow(store, ev.project_id, ev.uuid, null);
  recordUnreadableWarning(store, ev, n, nowMs);
}
