// Which person an event belongs to, and how it changes people: create, update, attach
// a distinct id, or merge two persons ($identify, $create_alias, $merge_dangerously).
// Pure: persons come from a lookup, and the outcome is one change for the caller to
// store, so every rule is testable with a Map.
import type { PersonRecord, Properties } from './tables.js';
import { isIllegalDistinctId } from './illegal-ids.js';
import { limitDistinctId } from '../capture/distinct-id.js';
import { personUuid } from './person-uuid.js';
import { applyUpdate, hasChanges, propertyUpdate } from './properties.js';
import { isObject } from '../json.js';
import type { IngestionWarning } from '../ingestion-warnings/index.js';

export interface PersonEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Properties;
  timestamp: string;
  project_id: number;
}

// The person a distinct id belongs to as of the events processed so far.
export type PersonLookup = (distinctId: string) => PersonRecord | undefined;

// A new person's numeric id is handed out when it is stored.
export type NewPerson = Omit<PersonRecord, 'id'>;

export type PersonChange =
  | { kind: 'create'; person: NewPerson }
  // `person` is the new state; only what the flags say changed needs writing.
  | { kind: 'update'; person: PersonRecord; addedDistinctId: string | null; propertiesChanged: boolean }
  // `person` absorbed `source`: it took its distinct ids, and `source` is gone.
  | { kind: 'merge'; person: PersonRecord; source: PersonRecord };

export interface PersonOutcome {
  personUuid: string;
  // The person's properties once the event is applied (changed or not): what the event
  // carries as its person's (src/events/consumer.ts).
  properties: Properties;
  change: PersonChange | null;
  warnings: IngestionWarning[];
}

// The distinct id an event asks to merge with its own, if any.
function mergeTarget(ev: PersonEvent): string | null {
  if (ev.event === '$create_alias' || ev.event === '$merge_dangerously') {
    return ev.properties.alias ? limitDistinctId(String(ev.properties.alias)) : null;
  }
  if (ev.event === '$identify' && Object.hasOwn(ev.properties, '$anon_distinct_id')) {
    return limitDistinctId(String(ev.properties.$anon_distinct_id));
  }
  return null;
}

function create(ev: PersonEvent, distinctIds: string[], identified: boolean): PersonOutcome {
  const setOnce = isObject(ev.properties.$set_once) ? ev.properties.$set_once : {};
  const set = isObject(ev.properties.$set) ? ev.properties.$set : {};
  const person: NewPerson = {
    uuid: personUuid(ev.project_id, distinctIds[0]),
    created_at: ev.timestamp,
    properties: { ...setOnce, ...set, $creator_event_uuid: ev.uuid },
    is_identified: identified,
    distinct_ids: distinctIds,
  };
  return { personUuid: person.uuid, properties: person.properties, change: { kind: 'create', person }, warnings: [] };
}

function update(ev: PersonEvent, person: PersonRecord, identify: boolean, addedDistinctId: string | null): PersonOutcome {
  const upd = propertyUpdate(ev.event, ev.properties, ev.timestamp, person.properties);
  const identifies = identify && !person.is_identified;
  // Changes to noisy keys alone wait until something worth a write comes along.
  const propertiesChanged = (upd.significant || identifies) && hasChanges(upd);
  if (!propertiesChanged && !identifies && addedDistinctId === null) return { personUuid: person.uuid, properties: person.properties, change: null, warnings: [] };
  const next: PersonRecord = {
    ...person,
    properties: propertiesChanged ? applyUpdate(person.properties, upd) : person.properties,
    is_identified: person.is_identified || identify,
    distinct_ids: addedDistinctId === null ? person.distinct_ids : [...person.distinct_ids, addedDistinctId],
  };
  return { personUuid: person.uuid, properties: next.properties, change: { kind: 'update', person: next, addedDistinctId, propertiesChanged }, warnings: [] };
}

function mergePersons(ev: PersonEvent, into: PersonRecord, other: PersonRecord): PersonOutcome {
  // On conflict the event's own distinct id's person wins; then the event's updates apply.
  const base = { ...other.properties, ...into.properties };
  const person: PersonRecord = {
    ...into,
    properties: applyUpdate(base, propertyUpdate(ev.event, ev.properties, ev.timestamp, base)),
    created_at: Date.parse(other.created_at) < Date.parse(into.created_at) ? other.created_at : into.created_at,
    is_identified: true,
    distinct_ids: [...into.distinct_ids, ...other.distinct_ids],
  };
  return { personUuid: into.uuid, properties: person.properties, change: { kind: 'merge', person, source: other }, warnings: [] };
}

// Merges `otherId`'s person into `intoId`'s, or attaches the id that has no person yet,
// or creates one person holding both (named after `intoId`). One of the two ids is the
// event's own.
function merge(ev: PersonEvent, intoId: string, otherId: string, lookup: PersonLookup): PersonOutcome {
  const other = lookup(otherId);
  const into = lookup(intoId);
  if (other && into) {
    if (other.uuid === into.uuid) return update(ev, into, true, null);
    // Only $merge_dangerously may take over someone who already identified. Refused, the
    // event still updates and identifies its own person.
    if (ev.event !== '$merge_dangerously' && other.is_identified) {
      const refused = update(ev, otherId === ev.distinct_id ? other : into, true, null);
      refused.warnings.push({
        type: 'cannot_merge_already_identified',
        details: { sourcePersonDistinctId: otherId, targetPersonDistinctId: intoId, eventUuid: ev.uuid },
      });
      return refused;
    }
    return mergePersons(ev, into, other);
  }
  if (other) return update(ev, other, true, intoId);
  if (into) return update(ev, into, true, otherId);
  return create(ev, [intoId, otherId], true);
}

export function processPersonEvent(ev: PersonEvent, lookup: PersonLookup): PersonOutcome {
  const otherId = mergeTarget(ev);
  let warning: IngestionWarning | null = null;
  if (otherId !== null && otherId !== ev.distinct_id) {
    const illegal = isIllegalDistinctId(ev.distinct_id) ? ev.distinct_id : isIllegalDistinctId(otherId) ? otherId : null;
    // SPEC.md §6: $create_alias merges the distinct id's user into the alias's, which
    // becomes the main id. $identify and $merge_dangerously merge the other way, into
    // the event's own person, as PostHog does.
    if (illegal === null) return ev.event === '$create_alias' ? merge(ev, otherId, ev.distinct_id, lookup) : merge(ev, ev.distinct_id, otherId, lookup);
    warning = {
      type: 'cannot_merge_with_illegal_distinct_id',
      details: { illegalDistinctId: illegal, otherDistinctId: illegal === otherId ? ev.distinct_id : otherId, eventUuid: ev.uuid },
    };
  }
  // No merge: the event's distinct id gets a person, or updates the one it has.
  const person = lookup(ev.distinct_id);
  const outcome = person ? update(ev, person, false, null) : create(ev, [ev.distinct_id], false);
  if (warning) outcome.warnings.push(warning);
  return outcome;
}
