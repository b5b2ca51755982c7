// Person and group processing as a step of the event-store pass: it runs on each event,
// in log order, inside the transaction that stores the events and commits the consumer
// position. Every stored event thus carries the person it resolved to, and a replay
// after a crash starts from a state where none of the batch was applied. An event is
// prepared (shaped, its person resolved) before its row is written, since that write is
// the duplicate check, and committed (its changes made) only once the write succeeded.
import type { PersonsTables } from './tables.js';
import type { CapturedEvent, LogOperation } from '../log/types.js';
import { PersonBatch } from './batch.js';
import { PersonCache } from './person-cache.js';
import { processPersonEvent, type PersonOutcome } from './identity.js';
import { normalizePersonEvent } from './normalize.js';
import { isObject } from '../json.js';
import { createWarningLimiter, type WarningLimiter } from './warning-limiter.js';
import { groupIdentifyFields, MAX_GROUP_TYPES } from './groups.js';
import { pruneWarnings, WARNINGS_KEPT_MS, type IngestionWarning, type IngestionWarningsTables } from '../ingestion-warnings/index.js';
import { applyPersonOperation } from './operations.js';

// What the event store (src/events/consumer.ts) runs on each event before storing it, in
// the same transaction: this person processing. One is started per transaction. The write
// of the event's row is also its duplicate check (one write, not a check and a write: lmdb-js
// costs 1–2 µs per operation, bench/RESULTS.md), so the step first works out what the
// event will be, changing nothing, and makes its changes only once the row is written.
export interface EventPreparation {
  // Shapes the event (may rewrite its properties) and resolves its person: the person's
  // uuid, null for none, or DROPPED when the event is not to be stored.
  prepare(ev: CapturedEvent): string | null | typeof DROPPED;
  // The event just prepared is new: makes its changes (persons, groups, warnings).
  commit(): void;
  // The properties of the person of the event just prepared, once it is applied (null when
  // it has no person processing).
  personProperties(): Record<string, unknown> | null;
  // Applies an operation of the log (a deletion, flag hash keys: ./operations.ts) in its
  // place between two events: what the step holds is written first, so the operation sees
  // every earlier event, and the cache is checked again after it, so no copy of a
  // deleted person is written back or read by a later event.
  operate(op: LogOperation): void;
  // Writes what the step changed; called once, after the last event.
  finish(): void;
}

export const DROPPED = Symbol('dropped');

// What the event last prepared will change once it proves new.
interface Pending {
  ev: CapturedEvent | null;
  warnings: IngestionWarning[];
  outcome: PersonOutcome | null;
  // Group types past the fifth that the event names.
  refusedGroupTypes: string[];
}

function warnGroupTypeLimit(batch: PersonBatch, limiter: WarningLimiter, ev: CapturedEvent, groupType: string): void {
  if (!limiter.allow(ev.project_id, 'group_type_limit_reached', groupType)) return;
  batch.warn(ev.project_id, ev.uuid, {
    type: 'group_type_limit_reached',
    details: { eventUuid: ev.uuid, event: ev.event, distinctId: ev.distinct_id, groupType, maxGroupTypes: MAX_GROUP_TYPES },
  });
}

// properties.$groups {type: key} → `$group_<index>` on the event, for later queries. A
// type's index is handed out on first sight, which a duplicate of the event that first
// named it can only repeat.
function associateGroups(batch: PersonBatch, ev: CapturedEvent, pending: Pending): void {
  const groups = ev.properties.$groups;
  if (!isObject(groups)) return;
  for (const groupType of Object.keys(groups)) {
    const index = batch.groupTypeIndex(ev.project_id, groupType, ev.timestamp);
    if (index === null) pending.refusedGroupTypes.push(groupType);
    else ev.properties[`$group_${index}`] = groups[groupType];
  }
}

function identifyGroup(batch: PersonBatch, limiter: WarningLimiter, ev: CapturedEvent): void {
  const g = groupIdentifyFields(ev.properties);
  if (!g) return;
  const index = batch.groupTypeIndex(ev.project_id, g.groupType, ev.timestamp);
  if (index === null) warnGroupTypeLimit(batch, limiter, ev, g.groupType);
  else batch.identifyGroup(ev.project_id, index, g, ev.timestamp);
}

// Shapes the event and resolves its person; nothing changes until `commit`.
function prepare(batch: PersonBatch, ev: CapturedEvent, pending: Pending): string | null | typeof DROPPED {
  pending.ev = ev;
  pending.outcome = null;
  pending.refusedGroupTypes.length = 0;
  const normalized = normalizePersonEvent(ev);
  if (normalized.kind === 'drop') {
    pending.warnings = [normalized.warning];
    return DROPPED;
  }
  pending.warnings = normalized.warnings;
  ev.properties = normalized.properties;
  if (!normalized.processPerson) return null;
  pending.outcome = processPersonEvent(ev, (distinctId) => batch.lookup(ev.project_id, distinctId));
  associateGroups(batch, ev, pending);
  return pending.outcome.personUuid;
}

function commit(batch: PersonBatch, limiter: WarningLimiter, pending: Pending): void {
  const { ev, outcome } = pending;
  if (ev === null) return;
  for (const w of pending.warnings) batch.warn(ev.project_id, ev.uuid, w);
  if (outcome) {
    if (outcome.change) batch.apply(ev.project_id, outcome.change);
    for (const w of outcome.warnings) batch.warn(ev.project_id, ev.uuid, w);
  }
  for (const groupType of pending.refusedGroupTypes) warnGroupTypeLimit(batch, limiter, ev, groupType);
  if (outcome && ev.event === '$groupidentify') identifyGroup(batch, limiter, ev);
  pending.ev = null;
}

const PRUNE_EVERY_MS = 3600 * 1000;

// One preparation per consumer transaction; the cache, the limiter and the pruning
// clock outlive them.
export function createPersonStep(store: PersonsTables & IngestionWarningsTables, now: () => number = Date.now, cachedPersons?: number): () => EventPreparation {
  const limiter = createWarningLimiter(now);
  const cache = new PersonCache(cachedPersons);
  let prunedAt = -Infinity;
  return () => {
    const t = now();
    let batch = new PersonBatch(store, cache, t);
    const pending: Pending = { ev: null, warnings: [], outcome: null, refusedGroupTypes: [] };
    return {
      prepare: (ev) => prepare(batch, ev, pending),
      commit: () => commit(batch, limiter, pending),
      personProperties: () => pending.outcome?.properties ?? null,
      operate(op) {
        batch.flush();
        applyPersonOperation(store, op);
        // A deletion moved the persons generation: the new batch finds the cache stale and
        // starts it over.
        batch = new PersonBatch(store, cache, t);
      },
      finish() {
        batch.flush();
        if (t - prunedAt < PRUNE_EVERY_MS) return;
        prunedAt = t;
        pruneWarnings(store, t - WARNINGS_KEPT_MS);
      },
    };
  };
}
