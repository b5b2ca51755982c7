// The event log contract. Two implementations (LMDB embedded, NATS JetStream) pass
// the same contract suite (test/log/contract.ts).

// One event as capture accepted it: normalized, validated, owned by one project.
export interface CapturedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  // ISO 8601, already corrected for client clock skew.
  timestamp: string;
  project_id: number;
  ip: string | null;
  now: string;
  sent_at: string | null;
  historical: boolean;
}

// An event a record holds that could not be read back (its capture frame could not
// rebuild it: an input the capture checks did not foresee). It costs that event alone:
// consumers see the record's other events, and the event store records an ingestion
// warning for it (src/events/consumer.ts). What is known of it, which may be little.
export interface UnreadableEvent {
  project_id: number;
  uuid: string | null;
  event: string | null;
  distinct_id: string | null;
  error: string;
}

// An operation the server writes into the log among the events (docs/decisions/0032):
// a change to state the event store builds (a person deleted), which must be applied at
// the same place relative to the events on every node. Never an event: only a reader
// that asks for operations (the event store) sees it. `uuid` makes it applied once, as an
// event's uuid does; everything the applier needs is in it, chosen by the node that took
// the request (nothing from the clock or randomness where it is applied).
export interface LogOperation {
  uuid: string;
  project_id: number;
  kind: string;
  payload: unknown;
}

// An operation and its place in its record: after the first `at` events read from it.
export interface PlacedOperation {
  at: number;
  op: LogOperation;
}

export interface LogEntry {
  seq: number;
  // Readers hand out entries that decode their record on each read of `events`, with
  // the codec they were given (src/log/record.ts recordEntry): read it once.
  readonly events: CapturedEvent[];
  // The same read, also pushing onto `unreadable` the events that could not be read
  // (`events` leaves them out silently), and, when `operations` is given, the record's
  // operations onto it in their places. Absent on groups built in memory.
  readEvents?(unreadable: UnreadableEvent[], operations?: PlacedOperation[]): CapturedEvent[];
  // The projects whose events the record may hold, without decoding it (LogCodec.projects);
  // null when it cannot tell. Absent on groups built in memory.
  projects?(): readonly number[] | null;
  // The project and uuid of each of its events, without building them (LogCodec.keys).
  // Absent on groups built in memory.
  keys?(): EventKey[];
  // The record as stored, kept aside when it cannot be decoded (src/log/consumers/dead-letters.ts).
  readonly record?: Uint8Array;
}

// What one append puts in the log, already encoded as a frame by the log's codec
// (capture writes one per request): the frame's bytes in pieces, their total, and
// how many events a reader will get from it.
export interface LogFrame {
  chunks: Buffer[];
  bytes: number;
  events: number;
  // Written in a record of its own (a NATS message; the embedded log is one process, so one
  // version, and ignores it): a node of an older version that cannot read the frame sets
  // aside that record alone, not the events appended beside it (docs/decisions/0032).
  alone?: true;
}

// How events become frames and records become events again: the capture domain's codec
// (src/capture/frames.ts captureCodec). The log is given it rather than knowing it, so it
// stores and hands out records as bytes.
export interface LogCodec {
  // One frame holding these events: what EventLog.append writes.
  eventsFrame(events: readonly CapturedEvent[]): LogFrame;
  // One frame holding an operation, appended with EventLog.appendFrame. Only the server
  // builds one: no event, and nothing a capture request sends, decodes as an operation.
  operationFrame(op: LogOperation): LogFrame;
  // Every readable event of a record, in order, each event that cannot be read pushed
  // onto `unreadable` instead (left out when it is not given); throws when the record
  // itself cannot be decoded (damaged, or a format this version does not know). The
  // record's operations go onto `operations`, in their places, and are otherwise skipped:
  // a reader that does not ask for them never sees one.
  decode(record: Uint8Array, unreadable?: UnreadableEvent[], operations?: PlacedOperation[]): CapturedEvent[];
  // The projects whose events the record may hold (a superset), read without decoding any
  // event; null when the record does not say without decoding.
  projects(record: Uint8Array): readonly number[] | null;
  // The project and uuid of every event `decode` gives, in order, read without building the
  // events; it may also list an event `decode` finds unreadable. For a reader that only looks
  // up what the event store stored under them (insights).
  keys(record: Uint8Array): EventKey[];
}

// Where the event store keeps an event: its project and uuid.
export interface EventKey {
  project_id: number;
  uuid: string;
}

// Which sequence a log's numbers belong to. Positions are stored per log, so moving a
// data dir from one log to another (or recreating a stream) never applies one log's
// position to another's sequence.
export const LMDB_LOG_ID = 'lmdb';

export interface EventLog {
  id: string;
  // Resolves once every event is durable; many concurrent calls share one commit.
  append(events: CapturedEvent[]): Promise<void>;
  // The same for an encoded frame (capture's request frames); readers get its events.
  appendFrame(frame: LogFrame): Promise<void>;
  // Events accepted but not yet confirmed durable (for metrics and readiness).
  pending(): number;
  // Highest sequence this process knows to be durable (0 when none): its own appends and,
  // with a shared stream, the stream's end as last read (within a second).
  lastSeq(): number;
  close(): Promise<void>;
}

export interface LogReader {
  id: string;
  // Calls `handle` with entries whose seq is greater than `after`, in order, one
  // call at a time, until `signal` aborts. The handler persists its own position.
  consume(after: number, handle: (entries: LogEntry[]) => Promise<void>, signal: AbortSignal): Promise<void>;
  // Highest sequence appended so far (0 when empty).
  lastSeq(): Promise<number>;
  // Lowest sequence the log still holds (0 for a log never written; a NATS stream whose
  // messages all aged out gives the next one): retention or a stream's age limit drop
  // older ones. A consumer whose position is below firstSeq() - 1 has lost records
  // (src/log/consumers/run.ts).
  firstSeq(): Promise<number>;
  close(): Promise<void>;
}
