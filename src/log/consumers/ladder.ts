// The isolate-and-retry ladder. A batch that fails is not retried as it is forever: one
// bad event (a value nested too deep to encode, an input a consumer's rules choke on)
// would stop every event after it. Once the store is known to accept writes, the batch
// is applied entry by entry, and the entry that fails event by event; an event that fails
// on its own goes to the consumer's last resort (giveUp), or is set aside. An entry whose
// record cannot be decoded at all is set aside whole (./dead-letters.ts). A failure the
// store itself causes (the probe write fails too) is thrown: the supervisor restarts the
// consumer with backoff, and nothing is skipped.
import type { CapturedEvent, LogEntry, PlacedOperation, UnreadableEvent } from '../types.js';
import type { ConsumerContext, ConsumerHandler } from './types.js';
import { quarantineRecord, setAsideEvent, type QuarantinedRecord } from './dead-letters.js';

// Why a consumer's work did not go as planned, counted per consumer
// (hedgerow_consumer_failures_total): a batch split to isolate a failure, an event handed
// to the consumer's giveUp, a record or event set aside, the worker thread restarted.
export type FailureKind = 'batch_split' | 'given_up' | 'set_aside' | 'restart';

// What the ladder tells whoever runs it (the worker thread passes it to the supervisor).
export interface ConsumerReports {
  setAside(what: QuarantinedRecord): void;
  failed(kind: FailureKind): void;
}

export const SILENT: ConsumerReports = { setAside() {}, failed() {} };

export async function applyIsolating<S>(
  handler: ConsumerHandler, entries: readonly LogEntry[], ctx: ConsumerContext<S>, reports: ConsumerReports = SILENT,
): Promise<void> {
  try {
    await handler.apply(entries, entries[entries.length - 1].seq);
    return;
  } catch (err) {
    await ctx.rethrowUnlessWritable(err);
  }
  reports.failed('batch_split');
  for (const entry of entries) await applyEntryIsolating(handler, entry, ctx, reports);
}

async function applyEntryIsolating<S>(handler: ConsumerHandler, entry: LogEntry, ctx: ConsumerContext<S>, reports: ConsumerReports) {
  try {
    await handler.apply([entry], entry.seq);
    return;
  } catch (err) {
    await ctx.rethrowUnlessWritable(err);
  }
  let events: CapturedEvent[];
  const unreadable: UnreadableEvent[] = [];
  const operations: PlacedOperation[] = [];
  try {
    events = entry.readEvents ? entry.readEvents(unreadable, operations) : entry.events;
  } catch (err) {
    reports.setAside(await quarantineRecord(ctx.store, entry, ctx.logId, ctx.position, err, ctx.now()));
    reports.failed('set_aside');
    return;
  }
  const last = events.length + operations.length - 1;
  if (unreadable.length > 0) {
    // What the record could not give back, on its own (the event store records a warning
    // for each); the position moves with it only when nothing else is left.
    const only = last < 0;
    try {
      await handler.apply([{ events: [], readEvents: (out) => { out.push(...unreadable); return []; } }], only ? entry.seq : null);
    } catch (err) {
      await ctx.rethrowUnlessWritable(err);
      if (only) await ctx.position.commit(entry.seq);
    }
  }
  // Events one by one, each operation in its place among them (docs/decisions/0032): a
  // consumer that does not read operations gets an empty group for each.
  let op = 0;
  for (let i = 0; i <= events.length; i++) {
    for (; op < operations.length && operations[op].at <= i; op++) {
      await applyOperationIsolating(handler, entry, operations[op], events.length + op, i + op === last ? entry.seq : null, ctx, reports);
    }
    if (i === events.length) break;
    const through = i + op === last ? entry.seq : null;
    let error: unknown;
    try {
      await handler.apply([{ events: [events[i]] }], through);
      continue;
    } catch (err) {
      await ctx.rethrowUnlessWritable(err);
      error = err;
    }
    // The last resort gets the event as decoded afresh: the failed attempt may have changed it.
    const fresh = () => entry.events[i];
    if (handler.giveUp) {
      reports.failed('given_up');
      await handler.giveUp(events[i], error, through, fresh);
    } else {
      reports.setAside(await setAsideEvent(ctx.store, ctx.name, ctx.logId, entry.seq, i, fresh(), error, through, ctx.position, ctx.now()));
      reports.failed('set_aside');
    }
  }
}

// An operation that fails on its own while the store takes writes fails alike on every
// node (its applier is deterministic): it is set aside, under an index past the record's
// events, so the events behind it still apply.
async function applyOperationIsolating<S>(
  handler: ConsumerHandler, entry: LogEntry, placed: PlacedOperation, index: number, through: number | null,
  ctx: ConsumerContext<S>, reports: ConsumerReports,
): Promise<void> {
  try {
    await handler.apply([{ events: [], readEvents: (_unreadable, out) => { out?.push({ at: 0, op: placed.op }); return []; } }], through);
    return;
  } catch (err) {
    await ctx.rethrowUnlessWritable(err);
    reports.setAside(await setAsideEvent(ctx.store, ctx.name, ctx.logId, entry.seq, index, placed.op, err, through, ctx.position, ctx.now()));
    reports.failed('set_aside');
  }
}
