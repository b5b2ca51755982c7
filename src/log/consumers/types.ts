// A consumer of the event log, as the consumer mechanism (this folder) runs it. A domain
// defines one with defineConsumer and says what it does with a batch of entries; the
// mechanism owns the rest: the stored position (per log), where it starts, the
// isolate-and-retry ladder (./ladder.ts), setting aside what it cannot apply
// (./dead-letters.ts), the worker thread and its supervision (./supervise.ts), metrics,
// and holding back log retention until it has applied a record (docs/decisions/0014).
import type { Cluster } from '../../cluster/index.js';
import type { LogTables } from '../tables.js';
import type { CapturedEvent, EventKey, PlacedOperation, UnreadableEvent } from '../types.js';

// Where a consumer that has no stored position starts: at the log's first record, or at
// its current end (a consumer that must not act on history, such as hog destinations
// firing webhooks, records the end as its position when it is first registered).
export type StartAt = 'beginning' | 'end';

// What a consumer applies: log entries (each decodes its record again on every read of
// `events`: read it once), or, while isolating a failure, one event alone.
export interface EventGroup {
  readonly events: CapturedEvent[];
  // The events and, pushed onto `unreadable`, those the record holds but that could not
  // be read back (LogEntry.readEvents): a consumer that must account for every event (the
  // event store) reads this instead of `events`; the others skip them with `events`.
  // The server's operations among the events (docs/decisions/0032) go onto `operations`
  // when it is given: only the event store asks; no other consumer ever sees one.
  readEvents?(unreadable: UnreadableEvent[], operations?: PlacedOperation[]): CapturedEvent[];
  // The projects whose events the group may hold, without decoding it (LogEntry.projects);
  // null, or absent, when it cannot tell: a consumer with nothing to do for any of them may
  // pass the group over undecoded.
  projects?(): readonly number[] | null;
  // The project and uuid of each of `events` without building them, perhaps with some that
  // `events` leaves out as unreadable (LogEntry.keys); absent on groups built in memory. For a
  // consumer that reads what the event store stored under them (insights).
  keys?(): EventKey[];
}

// What the service's main thread needs of a consumer to register and supervise it (name,
// start, order, heap), apart from its code: a domain's module.ts registers this, so the main
// thread never loads what only the consumer's thread runs (DuckDB, the Hog runtime). The
// definition spreads its declaration, so the two cannot disagree.
export type ConsumerDeclaration<S = undefined> = Pick<ConsumerDefinition<S>, 'module' | 'name' | 'startsAt' | 'follows' | 'heapMb' | 'lingerMs' | 'nice'>;

// S: its settings. T: the tables it uses (a slice of the store its thread opens), beside
// the log's own.
export interface ConsumerDefinition<S = undefined, T = unknown> {
  // The URL of the module that exports this definition: the consumer's worker thread
  // imports that module and finds the definition by name.
  readonly module: string;
  // Unique. Names the stored position and the metrics.
  readonly name: string;
  readonly startsAt: StartAt;
  // The name of another consumer whose position this one never passes: it applies a
  // record only once that consumer has (insights reads the persons the event store
  // resolved). Both must be registered.
  readonly follows?: string;
  // The most log bytes this consumer takes in one batch, when less than the node's
  // consumerBatchBytes: for a consumer whose memory per event is many times the event's
  // bytes in the log (insights holds each event decoded, as stored, and as staging text
  // at once), so that a backlog costs it no more heap than this bound does.
  readonly batchBytes?: number;
  // The bound on its thread's old generation (MB), from the settings it runs with: what it
  // keeps between batches (caches) and one batch, with room to spare. Under a bound V8
  // grows the heap by 1.3–2× the live data before it collects, instead of up to 4× (its
  // factor for heaps allowed 2 GB or more, the default here): a bound is what keeps a busy
  // consumer's garbage from taking the process's memory. A live set past it ends the
  // thread (and the supervisor restarts it): declare it generously, or not at all.
  heapMb?(settings: S): number;
  // Milliseconds to wait after a batch that left less waiting in the log than it held
  // (the consumer is keeping up), before reading on: under a light load it then applies
  // fewer, larger batches. For a consumer whose every batch has a large fixed cost
  // (insights: each load is a DuckDB transaction of several statements, tens of ms
  // whatever its size, so a trickle of small batches cost more CPU than the events in
  // them), at the price of up to this much freshness. A backlog is applied without waits.
  lingerMs?(settings: S): number;
  // Its thread's nice value (Linux; default DEFAULT_CONSUMER_NICE): every consumer runs below
  // capture's thread (nice 0), so under a burst the acks stay fast and the log holds the
  // backlog. One whose work can wait longest declares a higher value: it then takes less of
  // a core that capture, or the consumers that must keep up, want as well.
  readonly nice?: number;
  // Runs in the consumer's own worker thread, once per start: opens what the consumer
  // needs (caches, another database) and returns its handler.
  open(ctx: ConsumerContext<S, T>): ConsumerHandler | Promise<ConsumerHandler>;
}

export interface ConsumerContext<S, T = unknown> {
  readonly name: string;
  // The store, opened in this thread with every domain's tables.
  readonly store: T & LogTables;
  // The log being read (positions are per log).
  readonly logId: string;
  // What the service registered the consumer with (plain data: it crossed a thread).
  readonly settings: S;
  readonly position: ConsumerPosition;
  now(): number;
  // The cluster handle of the consumer's thread (its one NATS connection, or the embedded
  // twin); absent where a consumer is driven outside the service (tests, benches).
  readonly cluster?: Cluster;
  // Rethrows `err` unless the store still takes a write (the position rewritten as it
  // is): tells a failure of the batch from a failure of the store. The mechanism calls
  // it between the rungs of its ladder; a handler's own fallbacks (giveUp) call it too.
  rethrowUnlessWritable(err: unknown): Promise<void>;
  // Aborted once the consumer is told to stop. A handler whose batch can take long (the
  // destinations wait for room between chunks) checks it between its own steps and throws
  // ConsumerStopped: what it committed stays, the rest is applied again at the next start.
  readonly stopping: AbortSignal;
}

// The consumer's stored position: the last log sequence it applied.
export interface ConsumerPosition {
  readonly key: string;
  // undefined when the consumer never stored one.
  read(): number | undefined;
  // Inside the caller's own LMDB write transaction, so the position moves with the
  // writes it covers (an LMDB consumer: exactly once).
  write(seq: number): void;
  // In a transaction of its own: for a consumer whose output lives outside LMDB, called
  // after its own commit. A crash in between replays the batch (at least once), so such a
  // consumer must be idempotent on the event uuid.
  commit(seq: number): Promise<void>;
}

// What the log no longer holds for a consumer: it applied records through `after`, and
// the oldest record left is `firstHeld` (retention pruned the rest before the consumer
// was registered, or a NATS stream aged them out).
export interface LogGap {
  after: number;
  firstHeld: number;
}

export interface ConsumerHandler {
  // Applies the events of `groups` in order and moves the position to `through` with them
  // (position.write in the same transaction, or position.commit after its own commit);
  // `through` is null for part of an entry: the position stays. Throwing refuses the
  // whole call: nothing of it may stay applied, except what is idempotent on uuid.
  apply(groups: readonly EventGroup[], through: number | null): Promise<void>;
  // One event that failed on its own while the store takes writes: the consumer's last
  // resort (apply what it can of it, or record that it gave up), moving the position as
  // apply does. `fresh` decodes the event again, untouched by the failed attempt.
  // Without one, the mechanism sets the event aside (`hedgerow dead-letters`).
  giveUp?(event: CapturedEvent, error: unknown, through: number | null, fresh: () => CapturedEvent): Promise<void>;
  // Fills what the log no longer holds from elsewhere (insights: from the event store),
  // and resolves with the log sequence it now stands at, at least gap.firstHeld - 1; it
  // stores that position itself or the mechanism commits it. Without one, a gap stops
  // the consumer with LogGapError: history is never silently skipped.
  backfill?(gap: LogGap): Promise<number>;
  close?(): void | Promise<void>;
}

// Identity, for the types.
// What the scheduler gives a consumer's thread against capture's (nice 0): weight 110 to
// capture's 1024 when both want the same core.
export const DEFAULT_CONSUMER_NICE = 10;

export function declareConsumer<S = undefined>(declaration: ConsumerDeclaration<S>): ConsumerDeclaration<S> {
  return declaration;
}

// Identity, for the types: `settings` of the context is what the service registers.
export function defineConsumer<S = undefined, T = unknown>(definition: ConsumerDefinition<S, T>): ConsumerDefinition<S, T> {
  return definition;
}

// The log has lost records the consumer has not applied and it has no backfill, or its
// backfill fell short.
export class LogGapError extends Error {}

// Thrown by a handler that stopped part way through a batch because the consumer is
// stopping (ConsumerContext.stopping): not a failure of the batch, so it is not split or
// set aside, and the run ends as a stop does.
export class ConsumerStopped extends Error {
  constructor() {
    super('the consumer is stopping');
  }
}
