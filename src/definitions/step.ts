// Recording definitions as a step of the event store's pass (src/events/consumer.ts), which
// has each event decoded in hand already: no second decode, no consumer of its own
// (docs/decisions/0057). What PostHog's property-defs service records from an event: its
// name (an event definition, its last_seen_at moved at most once an hour), each property
// (a definition of kind event, typed on first sight, and the pair event name → property),
// its $set and $set_once keys (kind person), and a $groupidentify's $group_set keys (kind
// group, by the group type's index), only for stored events.
//
// Cost: an event whose keys are all known costs a few map lookups per key and writes
// nothing. What is known lives in memory, bounded (MAX_KNOWN entries, then forgotten and
// read back from LMDB as met again); only a key not known reads LMDB, and only one not
// stored writes, in the event store's transaction. A pass whose transaction did not commit
// (`committed` never called) leaves the next pass to start from nothing known, so memory
// never claims what the store lacks.
import type { CapturedEvent } from '../log/types.js';
import { isObject } from '../json.js';
import { definitionId } from './ids.js';
import { detectPropertyType, fitsName, typable } from './infer.js';
import { EVENT_KIND, GROUP_KIND, NO_GROUP, PERSON_KIND, type DefinitionKind } from './records.js';
import type { DefinitionsTables } from './tables.js';

export interface DefinitionsPass {
  // The event was stored: what it defines is recorded.
  see(ev: CapturedEvent): void;
  // After the last event, once the persons step has written its group types.
  finish(): void;
  // The pass's transaction committed.
  committed(): void;
}

// The group type index of a type name in a project, or null (none yet, or past the fifth).
export type GroupTypeIndexOf = (projectId: number, groupType: string) => number | null;

// Entries of the known set before it is forgotten: ~100 bytes each.
export const MAX_KNOWN = 200_000;
const HOUR_MS = 3_600_000;

// Event properties PostHog gives no definition (its ingestion's own keys).
const SKIPPED_EVENT_KEYS = new Set(['$set', '$set_once', '$unset', '$group_0', '$group_1', '$group_2', '$group_3', '$group_4', '$groups']);
// Keys whose (event, property) pairs PostHog does not record: on nearly every event, they
// would multiply the pairs by the events.
const NO_PAIR_PREFIXES = ['$feature/', '$feature_enrollment/'];
// Events PostHog's service skips (its own metrics).
const SKIPPED_EVENTS = new Set(['$$plugin_metrics']);
// An event that would make more updates than this (its definition, two per property, one per
// $set or $group_set key) is skipped whole, as PostHog's service skips it.
export const MAX_UPDATES = 10_000;

function keyCount(value: unknown): number {
  let n = 0;
  if (isObject(value)) for (const _ in value) n++;
  return n;
}

// The updates PostHog's service would derive from the event.
function updatesOf(name: string, props: Record<string, unknown>): number {
  if (name === '$groupidentify') return 1 + keyCount(props.$group_set);
  let n = 1;
  for (const key in props) if (!SKIPPED_EVENT_KEYS.has(key)) n += NO_PAIR_PREFIXES.some((prefix) => key.startsWith(prefix)) ? 1 : 2;
  return n + keyCount(props.$set) + keyCount(props.$set_once);
}

interface EventKnown {
  name: string;
  // The hour its last_seen_at was last written in; -1 for a name not recorded (too long).
  hour: number;
  // Keys with nothing left to record on this event: the pair written and the definition typed.
  settled: Set<string>;
  // Keys whose pair is written but whose definition has no type yet (only null or objects seen).
  paired: Set<string> | null;
}

interface ProjectKnown {
  events: Map<string, EventKnown>;
  // Definitions by kind: name → whether it has a type (false: recorded, untyped).
  eventDefs: Map<string, boolean>;
  personDefs: Map<string, boolean>;
  groupDefs: Map<number, Map<string, boolean>>;
}

export function createDefinitionsStep(store: DefinitionsTables, groupTypeIndex: GroupTypeIndexOf, now: () => number = Date.now, maxKnown = MAX_KNOWN): () => DefinitionsPass {
  const projects = new Map<number, ProjectKnown>();
  let known = 0;
  let uncommitted = false;

  return () => {
    // The last pass wrote but did not commit: what it added to memory may not be stored.
    if (uncommitted || known > maxKnown) {
      projects.clear();
      known = 0;
    }
    const nowMs = now();
    const hour = Math.floor(nowMs / HOUR_MS);
    const groups: { projectId: number; groupType: string; set: Record<string, unknown> }[] = [];
    let nowIso: string | null = null;
    const iso = () => (nowIso ??= new Date(nowMs).toISOString());

    function projectOf(projectId: number): ProjectKnown {
      let p = projects.get(projectId);
      if (p === undefined) {
        p = { events: new Map(), eventDefs: new Map(), personDefs: new Map(), groupDefs: new Map() };
        projects.set(projectId, p);
      }
      return p;
    }

    // Records the definition unless stored; types one stored untyped. Whether it has a type.
    function define(defs: Map<string, boolean>, projectId: number, kind: DefinitionKind, group: number, name: string, value: unknown): boolean {
      const state = defs.get(name);
      if (state === true) return true;
      if (state === false && !typable(value)) return false;
      uncommitted = true;
      const type = detectPropertyType(name, value, nowMs);
      const key: [number, DefinitionKind, number, string] = [projectId, kind, group, name];
      const stored = store.propertyDefinitions.get(key);
      let typed: boolean;
      if (stored === undefined) {
        const id = definitionId(projectId, 'property', kind, group, name);
        store.propertyDefinitions.put(key, { id, name, type: kind, group_type_index: group === NO_GROUP ? null : group, property_type: type, is_numerical: type === 'Numeric' });
        store.definitionIds.put([projectId, id], ['property', kind, group, name]);
        typed = type !== null;
      } else if (stored.property_type === null && type !== null) {
        // PostHog types a definition stored without one; a type once set stays.
        store.propertyDefinitions.put(key, { ...stored, property_type: type, is_numerical: type === 'Numeric' });
        typed = true;
      } else {
        typed = stored.property_type !== null;
      }
      if (state === undefined) known++;
      defs.set(name, typed);
      return typed;
    }

    function eventKnown(p: ProjectKnown, projectId: number, name: string, was: EventKnown | undefined): EventKnown {
      const e: EventKnown = was ?? { name, hour: -1, settled: new Set(), paired: null };
      if (was === undefined) {
        p.events.set(name, e);
        known++;
      }
      if (!fitsName(name)) return e;
      uncommitted = true;
      e.hour = hour;
      const key: [number, string] = [projectId, name];
      const stored = store.eventDefinitions.get(key);
      if (stored === undefined) {
        const id = definitionId(projectId, 'event', name);
        store.eventDefinitions.put(key, { id, name, created_at: iso(), last_seen_at: iso() });
        store.definitionIds.put([projectId, id], ['event', name]);
      } else if (stored.last_seen_at < iso()) {
        store.eventDefinitions.put(key, { ...stored, last_seen_at: iso() });
      }
      return e;
    }

    function eventKey(p: ProjectKnown, projectId: number, e: EventKnown, key: string, value: unknown): void {
      if (SKIPPED_EVENT_KEYS.has(key) || !fitsName(key)) {
        e.settled.add(key);
        known++;
        return;
      }
      if (e.paired === null || !e.paired.has(key)) {
        uncommitted = true;
        if (!NO_PAIR_PREFIXES.some((prefix) => key.startsWith(prefix))) {
          const pair: [number, string, string] = [projectId, key, e.name];
          if (store.eventProperties.get(pair) === undefined) store.eventProperties.put(pair, 1);
        }
        known++;
      }
      if (define(p.eventDefs, projectId, EVENT_KIND, NO_GROUP, key, value)) {
        e.paired?.delete(key);
        e.settled.add(key);
      } else {
        (e.paired ??= new Set()).add(key);
      }
    }

    // Whether the event is small enough to record: sized once, at the first thing it has to
    // record, so an event whose keys are all known costs no count.
    let sized: CapturedEvent | null = null;
    let small = true;
    function fits(ev: CapturedEvent): boolean {
      if (sized !== ev) {
        sized = ev;
        small = updatesOf(ev.event, ev.properties) <= MAX_UPDATES;
      }
      return small;
    }

    // Whether the event's person keys fit (false: it is too large to record, nothing written).
    function personKeys(p: ProjectKnown, ev: CapturedEvent, set: Record<string, unknown>): boolean {
      const defs = p.personDefs;
      const projectId = ev.project_id;
      for (const key in set) {
        if (defs.get(key) === true || !fitsName(key)) continue;
        if (!fits(ev)) return false;
        define(defs, projectId, PERSON_KIND, NO_GROUP, key, set[key]);
      }
      return true;
    }

    return {
      see(ev) {
        const name = ev.event;
        if (SKIPPED_EVENTS.has(name)) return;
        const projectId = ev.project_id;
        const props = ev.properties;
        const p = projectOf(projectId);
        let e = p.events.get(name);
        if (e === undefined || (e.hour !== hour && e.hour !== -1)) {
          if (!fits(ev)) return;
          e = eventKnown(p, projectId, name, e);
        }
        if (e.hour === -1) return;
        // A group's identify defines its group's properties only.
        if (name === '$groupidentify') {
          const type = props.$group_type;
          const set = props.$group_set;
          if (typeof type === 'string' && isObject(set) && fits(ev)) groups.push({ projectId, groupType: type, set });
          return;
        }
        const settled = e.settled;
        for (const key in props) {
          if (settled.has(key)) continue;
          if (!fits(ev)) return;
          eventKey(p, projectId, e, key, props[key]);
        }
        const set = props.$set;
        if (isObject(set) && !personKeys(p, ev, set)) return;
        const setOnce = props.$set_once;
        if (isObject(setOnce)) personKeys(p, ev, setOnce);
      },
      finish() {
        for (const { projectId, groupType, set } of groups) {
          const index = groupTypeIndex(projectId, groupType);
          if (index === null) continue;
          const p = projectOf(projectId);
          let defs = p.groupDefs.get(index);
          if (defs === undefined) p.groupDefs.set(index, (defs = new Map()));
          for (const key in set) if (defs.get(key) !== true && fitsName(key)) define(defs, projectId, GROUP_KIND, index, key, set[key]);
        }
      },
      committed() {
        uncommitted = false;
      },
    };
  };
}
