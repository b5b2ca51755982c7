// Person and group processing as a step of the event-store pass: it runs on each new
// event, in log order, inside the transaction that stores the events and commits the
// consumer position. Every stored event thus carries the person it resolved to, and a
// replay after a crash starts from a state where none of the batch was applied.
import type { Store } from '../store/env.js';
import type { CapturedEvent } from '../log/types.js';
import type { EventPreparation } from '../events/consumer.js';
import { PersonBatch } from './batch.js';
import { PersonCache } from './person-cache.js';
import { processPersonEvent } from './identity.js';
import { normalizePersonEvent } from './normalize.js';
import { isPlainObject } from './properties.js';
import { createWarningLimiter, type WarningLimiter } from './warning-limiter.js';
import { pruneWarnings, WARNINGS_KEPT_MS } from './warnings-retention.js';
import { groupIdentifyFields, MAX_GROUP_TYPES } from './groups.js';

function warnGroupTypeLimit(batch: PersonBatch, limiter: WarningLimiter, ev: CapturedEvent, groupType: string): void {
  if (!limiter.allow(ev.project_id, 'group_type_limit_reached', groupType)) return;
  batch.warn(ev.project_id, ev.uuid, {
    type: 'group_type_limit_reached',
    details: { eventUuid: ev.uuid, event: ev.event, distinctId: ev.distinct_id, groupType, maxGroupTypes: MAX_GROUP_TYPES },
  });
}

// properties.$groups {type: key} → `$group_<index>` on the event, for later queries.
function associateGroups(batch: PersonBatch, limiter: WarningLimiter, ev: CapturedEvent): void {
  const groups = ev.properties.$groups;
  if (!isPlainObject(groups)) return;
  for (const groupType of Object.keys(groups)) {
    const index = batch.groupTypeIndex(ev.project_id, groupType, ev.timestamp);
    if (index === null) warnGroupTypeLimit(batch, limiter, ev, groupType);
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

function prepare(batch: PersonBatch, limiter: WarningLimiter, ev: CapturedEvent): { person_id: string | null } | null {
  const normalized = normalizePersonEvent(ev);
  if (normalized.kind === 'drop') {
    batch.warn(ev.project_id, ev.uuid, normalized.warning);
    return null;
  }
  for (const w of normalized.warnings) batch.warn(ev.project_id, ev.uuid, w);
  ev.properties = normalized.properties;
  if (!normalized.processPerson) return { person_id: null };

  const outcome = processPersonEvent(ev, (distinctId) => batch.lookup(ev.project_id, distinctId));
  if (outcome.change) batch.apply(ev.project_id, outcome.change);
  for (const w of outcome.warnings) batch.warn(ev.project_id, ev.uuid, w);
  associateGroups(batch, limiter, ev);
  if (ev.event === '$groupidentify') identifyGroup(batch, limiter, ev);
  return { person_id: outcome.personUuid };
}

const PRUNE_EVERY_MS = 3600 * 1000;

// One preparation per consumer transaction; the cache, the limiter and the pruning
// clock outlive them.
export function createPersonStep(store: Store, now: () => number = Date.now): () => EventPreparation {
  const limiter = createWarningLimiter(now);
  const cache = new PersonCache();
  let prunedAt = -Infinity;
  return () => {
    const t = now();
    const batch = new PersonBatch(store, cache, t);
    return {
      prepare: (ev) => prepare(batch, limiter, ev),
      finish() {
        batch.flush();
        if (t - prunedAt < PRUNE_EVERY_MS) return;
        prunedAt = t;
        pruneWarnings(store, t - WARNINGS_KEPT_MS);
      },
    };
  };
}
