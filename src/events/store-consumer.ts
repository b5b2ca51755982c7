// The event store as a consumer of the log (src/log/consumers/): it starts at the log's
// beginning, runs its step before storing on each batch when it has one (./pre-store.ts: the
// projects' transformations, wired in src/main.ts), then person processing on each event in the transaction that stores it and moves its
// position (src/events/consumer.ts), recording the definitions the stored events bring
// (src/definitions/) in the same transaction, and when an event fails on its own it stores the event
// without its person, and only if even that fails gives it up; each such event leaves an
// ingestion warning.
import { LMDB_LOG_ID, type LogEntry } from '../log/types.js';
import {
  applyIsolating, consumerContext, ConsumerStopped, defineConsumer, runsOf, type ConsumerContext, type ConsumerHandler, type ConsumerReports, type QuarantinedRecord,
} from '../log/consumers/index.js';
import { createPersonStep, type EventPreparation } from '../persons/index.js';
import { createDefinitionsStep, type DefinitionsPass } from '../definitions/index.js';
import { loadPreStoreStep, type PreStoreStep } from './pre-store.js';
import { commitEvents, EVENT_STORE_CONSUMER, writeEventRow, type EventStoreTables } from './consumer.js';
import { recordProcessingWarning } from './processing-warning.js';
import { eventStoreConsumerDeclaration, type EventStoreSettings } from './store-consumer-declaration.js';

// Log bytes per transaction: a batch (16 MiB by default, HEDGEROW_CONSUMER_BATCH_BYTES) is
// stored in runs of whole records of about this much, so a stop waits for one run.
const RUN_BYTES = 1024 * 1024;

export function eventStoreHandler<S>(
  ctx: ConsumerContext<S, EventStoreTables>, startPreparation?: () => EventPreparation, transformer?: PreStoreStep, startDefinitions?: () => DefinitionsPass,
): ConsumerHandler {
  const { store, now, position } = ctx;
  const at = (through: number | null) => (through === null ? null : { key: position.key, seq: through });
  return {
    async apply(groups, through) {
      // A run at a time, each in its own transaction with the position it reaches: a stop
      // leaves the batch between runs (a run that failed leaves those before it committed,
      // and the ladder's retry skips them).
      const runs = runsOf(groups, through, RUN_BYTES, position.read() ?? 0);
      for (let i = 0; i < runs.length; i++) {
        if (i > 0 && ctx.stopping.aborted) throw new ConsumerStopped();
        const run = runs[i];
        const transformed = transformer ? await transformer.transform(run.groups) : null;
        await commitEvents(store, run.groups, { startPreparation, startDefinitions, position: at(run.through), now, transformed: transformed?.groups });
        await transformed?.committed();
      }
    },
    async giveUp(ev, error, through, fresh) {
      const message = error instanceof Error ? error.message : String(error);
      try {
        const e = fresh();
        // Transformed as apply would have (a failing program passes it through). The step
        // itself failing (the thread closing) throws out of here: the event is tried again later.
        const transformed = transformer ? await transformer.transform([{ events: [e] }]).catch((err) => { throw new TransformerFailed(err); }) : null;
        const replaced = transformed?.groups[0] ?? null;
        if (replaced !== null && replaced[0] === null) {
          await commitEvents(store, [{ events: [e] }], { startDefinitions, position: at(through), now, transformed: transformed?.groups });
        } else {
          const stored = replaced?.[0] ?? e;
          await commitEvents(store, [{ events: [stored] }], {
            startDefinitions, position: at(through), now, also: () => recordProcessingWarning(store, stored, 'stored_without_person', message, now()),
          });
        }
        await transformed?.committed();
        return;
      } catch (err) {
        if (err instanceof TransformerFailed) throw err.cause;
        await ctx.rethrowUnlessWritable(err);
      }
      // Given up. Its uuid is still recorded where it can be, so a resend stays a duplicate
      // as for any stored event; a write refused for its key (thrown before anything is
      // written) must not stop the position from moving on.
      await store.root.transaction(() => {
        attempt(() => writeEventRow(store, ev.project_id, ev.uuid, null));
        attempt(() => recordProcessingWarning(store, ev, 'not_stored', message, now()));
        if (through !== null) position.write(through);
      });
    },
    close: () => transformer?.close(),
  };
}

class TransformerFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('transformations could not run');
  }
}

function attempt(write: () => void): void {
  try {
    write();
  } catch {
    // The warning, or the error that brought us here, already says what was lost.
  }
}

export const eventStoreConsumer = defineConsumer<EventStoreSettings, EventStoreTables>({
  ...eventStoreConsumerDeclaration,
  open: async (ctx) => eventStoreHandler(
    ctx, createPersonStep(ctx.store, ctx.now, ctx.settings.cachedPersons),
    // The thread's store holds every domain's tables: the step reads its own.
    ctx.settings.preStore === null ? undefined : await loadPreStoreStep(ctx.settings.preStore, ctx.store, ctx.now),
    eventDefinitionsStep(ctx.store, ctx.now),
  ),
});

// The definitions step over the event store's tables: a group type's index is the one the
// persons step wrote in the same transaction.
export function eventDefinitionsStep(store: EventStoreTables, now: () => number = Date.now): () => DefinitionsPass {
  return createDefinitionsStep(store, (projectId, groupType) => store.groupTypes.get(projectId)?.find((t) => t.group_type === groupType)?.group_type_index ?? null, now);
}

export interface IsolatingOptions {
  // The step run on each new event (person processing).
  startPreparation?: () => EventPreparation;
  now?: () => number;
  // Told of each record set aside, for the operator's log.
  onQuarantined?: (record: QuarantinedRecord) => void;
  // The step before storing (bench/persons --transformer: the transformations').
  transformer?: PreStoreStep;
  // What records the events' definitions (src/definitions/).
  startDefinitions?: () => DefinitionsPass;
}

// The event store's handler through the consumer ladder, in this thread: what the
// consumer's worker does with each batch (tests and bench/persons call it directly).
export function applyEntriesIsolating(store: EventStoreTables, entries: readonly LogEntry[], opts: IsolatingOptions = {}, logId = LMDB_LOG_ID): Promise<void> {
  const ctx = consumerContext<undefined, EventStoreTables>(EVENT_STORE_CONSUMER, store, logId, undefined, opts.now);
  const reports: ConsumerReports = { setAside: (r) => opts.onQuarantined?.(r), failed() {} };
  return applyIsolating(eventStoreHandler(ctx, opts.startPreparation, opts.transformer, opts.startDefinitions), entries, ctx, reports);
}
