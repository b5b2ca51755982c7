// What the destinations consumer does with a batch of events (docs/decisions/0021, 0040),
// a chunk at a time: it waits until the deliveries hold at most half of what memory may
// hold (so a backlog they cannot keep up with waits in the log, not in the heap), reads
// each event's person and groups, sends the chunk and the project's active functions to
// the Hog pool, which runs filters, mappings, inputs, the masking hash and, for most
// invocations, the program up to its first fetch, then records the chunk in one
// transaction of the destinations store (masking counters, metrics, logs, the invocations
// queued, how far into the batch it got) and hands the invocations to the deliveries.
// The batch's last transaction records the log sequence it reached (its own record of
// what it applied, so a batch is applied once even if the mechanism's position, committed
// after, lags); a batch applied again skips what its committed chunks covered.
import { PoolOverloadedError } from '../../pools/index.js';
import { ConsumerStopped, type ConsumerContext, type EventGroup } from '../../log/consumers/index.js';
import type { CapturedEvent, LogEntry } from '../../log/types.js';
import { groupProperties, groupTypeMapping, personRecordByDistinctId, type PersonsTables } from '../../persons/index.js';
import type { AccessTables, TenancyStore } from '../../access/index.js';
import { NOT_READ, rowPerson, type EventsTables, type RowPerson } from '../../events/index.js';
import type { DestinationsTables } from '../tables.js';
import { WatcherState } from '../types.js';
import type { DestinationsStore, QueuedInvocation } from './env.js';
import type { Deliveries } from './deliveries.js';
import type { ActiveFunction, FunctionCache } from './function-cache.js';
import type { HogPools } from './hog-pools.js';
import { projectUrl, type EventContext } from './globals.js';
import { deferredStart, eventHere, mayRunInThread, startInThread, type DeferredStart, type EventHere } from './in-thread.js';
import { capturedWhileOff } from '../off-periods.js';
import { pack } from './bytes.js';
import { passesMasking } from './masking.js';
import {
  addPending, appliedKey, enqueue, instanceIdOf, invocationKey, keepPack, known, readProgress, writeProgress, type InvocationKey, type Progress,
} from './queue.js';
import { eventPack, ownKey, type StartOutcome, type StartTask, type StepOutcome } from './steps.js';
import { createTelemetry, type TelemetryOut } from './telemetry.js';
import { acknowledgeEpoch, type WatcherSettings } from './watcher.js';

// Events per chunk: enough to amortise a pool message and a transaction, few enough that
// the deliveries' answers and outcomes are taken between chunks.
const CHUNK = 128;

// What the pipeline reads in the main environment: the hog functions, the events' rows
// (their person as of the event), persons and groups, and the projects (their names).
export type PipelineTables = DestinationsTables & EventsTables & PersonsTables & AccessTables;

export interface PipelineDeps<S = unknown> {
  ctx: ConsumerContext<S, PipelineTables>;
  ds: DestinationsStore;
  functions: FunctionCache;
  pool: Pick<HogPools, 'run' | 'forget'>;
  deliveries: Deliveries;
  watcher: WatcherSettings;
  // Read here for project names only.
  tenancy: TenancyStore;
  siteUrl: string;
  // With NATS: told the logs and metrics each chunk committed, for the other nodes.
  out?: TelemetryOut;
  // True once the consumer closes: a task failing then is not the event's fault.
  closing: () => boolean;
  // Whether an invocation's Hog steps run in this thread where they are provably bounded
  // (./in-thread.ts); false sends every one to the pool (default true).
  inThread?: boolean;
}

// The event's person as of the event: the one its row keeps (the event store wrote it as it
// applied the event, src/events/person-on-events.ts), one read. An event stored before its
// project had a function keeps none; it gets the person as the store holds it now.
function personAsOfEvent(store: EventsTables & PersonsTables, ev: CapturedEvent): EventContext['person'] {
  if (ev.properties.$process_person_profile === false) return null;
  const row = personOfRow(store, ev);
  if (row && row.properties !== undefined && row.personId !== null) return { id: row.personId, properties: row.properties };
  const person = personRecordByDistinctId(store, ev.project_id, ev.distinct_id);
  return person ? { id: person.uuid, properties: person.properties } : null;
}

// The person the event's row keeps, read from its bytes without decoding the rest of the row
// (the event's properties: most of it) where the row's framing allows.
function personOfRow(store: EventsTables, ev: CapturedEvent): RowPerson | null {
  const key: [number, string] = [ev.project_id, ev.uuid];
  const bytes = store.eventRows.getBinaryFast(key);
  if (bytes === undefined) return null;
  const read = rowPerson(bytes);
  if (read !== NOT_READ) return read;
  const row = store.eventRows.get(key);
  return row ? { personId: row.person_id, properties: row.person_properties } : null;
}

// The event as the event store keeps it, for a project with transformations (they ran before
// it was stored: src/destinations/runtime/transformer.ts); null when it was dropped.
function storedEvent(store: EventsTables, ev: CapturedEvent): CapturedEvent | null {
  const row = store.eventRows.get([ev.project_id, ev.uuid]);
  if (!row) return null;
  return { ...ev, event: row.event, distinct_id: row.distinct_id, properties: row.properties as CapturedEvent['properties'] };
}

// Reads what the event's functions need beside the event: its project, person and groups.
// Groups are read as stored now, as PostHog's CDP reads them (its groups manager, when it
// builds the invocation), for the groups the event itself names. `names`: the chunk's
// project names, each read once per chunk (a project's record is decoded whole to read it).
function eventContext(store: EventsTables & PersonsTables, tenancy: TenancyStore, names: Map<number, string>, siteUrl: string, ev: CapturedEvent): EventContext {
  let name = names.get(ev.project_id);
  if (name === undefined) names.set(ev.project_id, (name = tenancy.project(ev.project_id)?.name ?? ''));
  const url = projectUrl(siteUrl, ev.project_id);
  const groups: EventContext['groups'] = {};
  const eventGroups = ev.properties.$groups;
  if (typeof eventGroups === 'object' && eventGroups !== null) {
    for (const type of groupTypeMapping(store, ev.project_id)) {
      const key = (eventGroups as Record<string, unknown>)[type.group_type];
      if (key === undefined || key === null) continue;
      const properties = groupProperties(store, ev.project_id, type.group_type_index, String(key)) ?? {};
      groups[type.group_type] = { index: type.group_type_index, key: String(key), properties };
    }
  }
  return {
    project: { id: ev.project_id, name, url },
    event: {
      uuid: ev.uuid, event: ev.event, distinct_id: ev.distinct_id, properties: ev.properties, timestamp: ev.timestamp,
      elements_chain: typeof ev.properties.$elements_chain === 'string' ? ev.properties.$elements_chain : '',
    },
    person: personAsOfEvent(store, ev),
    groups,
  };
}

// What a prepare step found, each invocation with its event's pack.
interface Started {
  outcomes: StartOutcome[];
  // Per outcome: the pack of its event's invocations' globals (an invocation's own).
  packs: (Uint8Array | null)[];
}

// Starts a chunk in the Hog pool. If the worker fails under it (out of memory, past its
// deadline), each event's functions are prepared apart, so the one that failed is set
// aside as failing its filters and the rest of the chunk goes on: an event that stops a
// worker would otherwise be tried again forever, and its batch with it.
export async function prepareApart(pool: Pick<HogPools, 'run'>, task: StartTask, closing: () => boolean): Promise<Started> {
  try {
    const { outcomes, packs } = await pool.run('start', task);
    return { outcomes, packs: outcomes.map((o) => packs[o.ev]) };
  } catch (err) {
    if (err instanceof PoolOverloadedError || closing()) throw err;
    if (task.events.length === 1 && task.events[0].functions.length === 1) {
      const message = `Error filtering event ${task.events[0].uuid}: HogWorkerError: ${err instanceof Error ? err.message : String(err)}`;
      return { outcomes: [{ fn: task.events[0].functions[0], ev: 0, kind: 'filtering_failed', message }], packs: [null] };
    }
    const apart = task.events.flatMap(({ uuid, ctx, functions }, ev) => functions.map(async (fn) => {
      const started = await prepareApart(pool, { ...task, events: [{ uuid, ctx, functions: [fn] }], forget: [] }, closing);
      return { outcomes: started.outcomes.map((o) => ({ ...o, ev })), packs: started.packs };
    }));
    const all = await Promise.all(apart);
    return { outcomes: all.flatMap((a) => a.outcomes), packs: all.flatMap((a) => a.packs) };
  }
}

// An event of the batch and where it lies in the log (null: the mechanism applies it apart
// from its record, and it has no place to record).
interface Placed {
  ev: CapturedEvent;
  at: Progress | null;
}

// The end of a batch: the log sequence it reaches (null for part of a record).
interface BatchEnd {
  through: number | null;
}

// An outcome of the chunk's prepare step, made here or in the pool: its event (index into
// the chunk's events with functions), its place among the event's functions, its
// invocations' globals packed, and a program to run here.
interface Found {
  at: number;
  order: number;
  o: StartOutcome;
  pack: Uint8Array | null;
  // An invocation prepared here whose function has room to hold it: its program, run up to
  // its fetch once the fetch has a slot (./deliveries.ts), as a masked function's is once it
  // has passed masking. Its first slice is not run here: what it made (the suspended
  // program, its request) would live until the fetch, through the scavenges meanwhile.
  later: DeferredStart | null;
}

// The event's functions whose prepare step runs in this thread (./in-thread.ts; their first
// slice runs here too, as their fetch gets a slot), their outcomes added to `found`; returns
// the others, for the pool.
function startHere(runnable: ActiveFunction[], room: boolean[], chosen: number[], context: EventContext, at: number, found: Found[], bytes: Uint8Array): number[] {
  const pool: number[] = [];
  let event: EventHere | null = null;
  let own: Record<string, { source: unknown; inputs: unknown }> | null = null;
  const mine: Found[] = [];
  for (const [order, fn] of chosen.entries()) {
    const run = runnable[fn].run;
    if (!mayRunInThread(run)) {
      pool.push(fn);
      continue;
    }
    event ??= eventHere(context);
    const started = startInThread(run, event, false);
    if (started === null) {
      pool.push(fn);
      continue;
    }
    if (started.kind === 'filtered') {
      found.push({ at, order, o: { fn, ev: at, kind: 'filtered' }, pack: null, later: null });
      continue;
    }
    (own ??= {})[ownKey(run.id, -1)] = { source: started.globals.source, inputs: started.globals.inputs };
    mine.push({
      at, order, pack: null, later: room[fn] ? deferredStart(run, started.globals) : null,
      o: { fn, ev: at, kind: 'invocation', mappingIndex: -1, maskKey: started.maskKey, slice: started.slice, token: null },
    });
  }
  if (own !== null) {
    const packed = eventPack(bytes, own, event!.base());
    for (const f of mine) {
      f.pack = packed;
      found.push(f);
    }
  }
  return pool;
}

async function applyChunk(deps: PipelineDeps, chunk: Placed[], after: number, progress: { current: Progress | null }, end: BatchEnd | null): Promise<void> {
  const { ctx, ds, functions, deliveries } = deps;
  const now = ctx.now();
  const telemetry = createTelemetry(ctx.now);
  const runnable: ActiveFunction[] = [];
  const indexOf = new Map<string, number>();
  // Per function (index into runnable): whether an invocation of it added now is held in
  // memory (its program is run now) or waits in the store. Asked once per chunk.
  const room: boolean[] = [];
  // Function id → whether its watcher has it disabled (read once per chunk).
  const disabled = new Map<string, boolean>();
  const projectNames = new Map<number, string>();
  // The chunk's events with functions to run, in order; those of them sent to the pool.
  const events: { uuid: string; chosen: number[] }[] = [];
  const work: StartTask['events'] = [];
  const workEvent: number[] = [];
  const found: Found[] = [];
  for (const placed of chunk) {
    const active = functions.active(placed.ev.project_id);
    if (active.length === 0) continue;
    const ev = functions.transforms(placed.ev.project_id) ? storedEvent(ctx.store, placed.ev) : placed.ev;
    // Dropped by a transformation (or never stored).
    if (ev === null) continue;
    const chosen: number[] = [];
    let captured = Number.NaN;
    for (const fn of active) {
      const id = fn.stored.id;
      if (fn.off !== null) {
        if (Number.isNaN(captured)) captured = Date.parse(ev.now);
        if (capturedWhileOff(fn.off, captured)) continue;
      }
      let off = disabled.get(id);
      if (off === undefined) {
        const record = ds.watcher.get(id);
        off = record !== undefined && acknowledgeEpoch(record, fn.stored.watcher_epoch, deps.watcher, now).state === WatcherState.disabled;
        disabled.set(id, off);
      }
      if (off) {
        telemetry.count(id, 'disabled_permanently');
        continue;
      }
      // Its filters name other events: filtered here, without the event's globals.
      if (fn.names !== null && !fn.names.has(ev.event)) {
        telemetry.count(id, 'filtered');
        continue;
      }
      let i = indexOf.get(id);
      if (i === undefined) {
        i = runnable.push(fn) - 1;
        indexOf.set(id, i);
        room.push(deliveries.hasRoom(id));
      }
      chosen.push(i);
    }
    if (chosen.length === 0) continue;
    const at = events.push({ uuid: ev.uuid, chosen }) - 1;
    const context = eventContext(ctx.store, deps.tenancy, projectNames, deps.siteUrl, ev);
    // Packed here rather than copied by the pool's message: the worker answers with these
    // bytes inside the event's pack, which its invocations' queue entries keep; so do the
    // invocations made here.
    const bytes = pack(context);
    const pool = deps.inThread === false ? chosen : startHere(runnable, room, chosen, context, at, found, bytes);
    if (pool.length > 0) {
      workEvent.push(at);
      work.push({ uuid: ev.uuid, ctx: bytes, functions: pool });
    }
  }
  if (work.length > 0) {
    const { outcomes, packs } = await prepareApart(deps.pool, { functions: runnable.map((f) => f.run), events: work, start: room, forget: [] }, deps.closing);
    for (const [i, o] of outcomes.entries()) {
      const at = workEvent[o.ev];
      found.push({ at, order: events[at].chosen.indexOf(o.fn), o, pack: packs[i], later: null });
    }
  }
  // In the order the pool alone gave them: by event, then by the event's functions.
  found.sort((a, b) => a.at - b.at || a.order - b.order);

  const last = chunk.length > 0 ? chunk[chunk.length - 1].at : null;
  // The events decoded are not read again: let them go while the chunk's transaction commits.
  chunk.length = 0;
  const queued: { key: InvocationKey; inv: QueuedInvocation; globals: Uint8Array; first: StepOutcome | null; token: string | null; later: DeferredStart | null }[] = [];
  // Each pack queued (one per event, two when the pool and this thread both made some):
  // its key, and how many invocations refer to it.
  const shared = new Map<Uint8Array, { key: InvocationKey; refs: number }>();
  const batch = await ds.root.transaction(() => {
    shared.clear();
    let queuedNow = 0;
    for (const { at, o, pack: globals, later } of found) {
      const fn = runnable[o.fn].stored;
      const uuid = events[at].uuid;
      if (o.kind === 'filtered') {
        telemetry.count(fn.id, 'filtered');
        continue;
      }
      if (o.kind !== 'invocation') {
        telemetry.count(fn.id, o.kind);
        telemetry.log(fn.id, instanceIdOf([fn.id, uuid, -1]), 'ERROR', o.message);
        continue;
      }
      if (fn.masking && o.maskKey !== null && !passesMasking(ds, fn.id, o.maskKey, fn.masking, now)) {
        telemetry.count(fn.id, 'masked');
        if (o.token !== null) deps.pool.forget(o.token);
        continue;
      }
      const inv: QueuedInvocation = {
        functionId: fn.id, projectId: fn.project_id, eventUuid: uuid, mappingIndex: o.mappingIndex, instanceId: '',
        globals: null, state: null, response: null, pendingFetch: null, dueAt: now, queuedAt: now, failed: false, after,
      };
      const key = invocationKey(inv);
      if (known(ds, key)) {
        if (o.token !== null) deps.pool.forget(o.token);
        continue;
      }
      inv.instanceId = instanceIdOf(key);
      // The event's pack is stored once, under the first invocation that refers to it.
      let pack = shared.get(globals!);
      if (pack === undefined) shared.set(globals!, (pack = { key, refs: 0 }));
      pack.refs++;
      inv.pack = pack.key;
      telemetry.count(fn.id, 'triggered');
      enqueue(ds, key, inv);
      queuedNow++;
      queued.push({ key, inv, globals: globals!, first: o.slice, token: o.token, later });
    }
    addPending(ds, after, queuedNow);
    for (const [bytes, { key, refs }] of shared) keepPack(ds, key, bytes, refs);
    const written = telemetry.write(ds);
    if (last !== null) progress.current = last;
    if (end !== null && end.through !== null) {
      ds.meta.put(appliedKey(ctx.logId), end.through);
      // Applied entry by entry after a failure, a later record's chunks may have been
      // committed already: their place stays until their record comes.
      if (progress.current !== null && progress.current.seq <= end.through) progress.current = null;
    }
    writeProgress(ds, ctx.logId, progress.current);
    return written;
  });
  deps.out?.telemetry(batch);
  for (const { key, inv, globals, first, token, later } of queued) deliveries.add(key, inv, { globals, first, token, deferred: later, fresh: true });
}

// Whether no project the group may hold events of has a function to run, read from the
// record's frame headers (LogEntry.projects) without decoding it: with no function enabled,
// decoding every event was most of this thread's work. The question is asked in log order,
// between chunks, as applyChunk asks it of each event: a function enabled meanwhile runs
// on every event from the first record read after it is seen on.
function nothingToRun(functions: FunctionCache, group: EventGroup): boolean {
  const projects = group.projects?.() ?? null;
  if (projects === null) return false;
  for (const project of projects) if (functions.active(project).length > 0) return false;
  return true;
}

// Applies one batch of events: what the consumer's handler does.
export async function applyBatch(deps: PipelineDeps, groups: readonly EventGroup[], through: number | null): Promise<void> {
  const { ctx, ds } = deps;
  const done = readProgress(ds, ctx.logId);
  const progress = { current: done };
  // The batch's events lie after the position the consumer stands at now.
  const after = ctx.position.read() ?? 0;
  let chunk: Placed[] = [];
  // Whether the chunk being filled has waited for room.
  let roomed = false;
  for (const group of groups) {
    // Passed over undecoded: its place is recorded with the next chunk or the batch's end.
    if (nothingToRun(deps.functions, group)) continue;
    const seq = (group as Partial<LogEntry>).seq;
    // A chunk starts once the deliveries have room (./deliveries.ts whenRoom), before its events
    // are decoded where it can (not a record it skips whole): events decoded while it waits
    // would live through the scavenges meanwhile.
    if (!roomed && !(seq !== undefined && done !== null && seq < done.seq)) {
      await deps.deliveries.whenRoom();
      roomed = true;
    }
    // Decoded once per group (each read of `events` decodes the record again), one record at a time.
    const events = group.events;
    for (let index = 0; index < events.length; index++) {
      const at = seq === undefined ? null : { seq, index };
      if (at !== null && done !== null && (at.seq < done.seq || (at.seq === done.seq && at.index <= done.index))) continue;
      if (!roomed) {
        await deps.deliveries.whenRoom();
        roomed = true;
      }
      chunk.push({ ev: events[index], at });
      if (chunk.length === CHUNK) {
        await applyChunk(deps, chunk, after, progress, null);
        chunk = [];
        roomed = false;
        // A backlog's batch can take many chunks, each waiting for room: a stop ends it
        // here, its committed chunks kept (a batch applied again skips them).
        if (ctx.stopping.aborted) throw new ConsumerStopped();
      }
    }
  }
  await applyChunk(deps, chunk, after, progress, { through });
}
