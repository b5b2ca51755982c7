// The first person step: decide whether an event is dropped, processed without a
// person ($process_person_profile: false) or processed fully, and shape its properties
// accordingly. Dropping person updates copies the properties; lifting person
// properties extends the event's own $set / $set_once (src/persons/initial-properties.ts).
import type { Properties } from './tables.js';
import { liftPersonProperties } from './initial-properties.js';
import { MAX_GROUP_KEY_LENGTH } from './groups.js';
import type { IngestionWarning } from '../ingestion-warnings/index.js';

export interface EventInput {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Properties;
}

export type Normalized =
  | { kind: 'drop'; warning: IngestionWarning }
  | { kind: 'keep'; processPerson: boolean; properties: Properties; warnings: IngestionWarning[] };

// These only make sense for a person; without one they are refused outright.
const PERSON_ONLY_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']);
const MERGE_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously']);

function withoutPersonUpdates(properties: Properties): Properties {
  const { $set: _s, $set_once: _o, $unset: _u, ...rest } = properties;
  return rest;
}

function typeName(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value;
}

function invalidReference(ev: EventInput): IngestionWarning | null {
  if (!MERGE_EVENTS.has(ev.event)) return null;
  // The other side of a merge must be a distinct id, i.e. a string.
  for (const [key, type] of [['$anon_distinct_id', 'invalid_anon_distinct_id'], ['alias', 'invalid_alias']] as const) {
    const value = ev.properties[key];
    if (value != null && typeof value !== 'string') {
      return { type, details: { eventUuid: ev.uuid, event: ev.event, distinctId: ev.distinct_id, receivedType: typeName(value) } };
    }
  }
  return null;
}

function groupKeyTooLong(ev: EventInput): IngestionWarning | null {
  if (ev.event !== '$groupidentify') return null;
  const key = ev.properties.$group_key;
  if (!key) return null;
  const text = String(key);
  if (text.length <= MAX_GROUP_KEY_LENGTH) return null;
  return {
    type: 'group_key_too_long',
    details: { eventUuid: ev.uuid, event: ev.event, distinctId: ev.distinct_id, groupKey: text, groupKeyLength: text.length, maxLength: MAX_GROUP_KEY_LENGTH },
  };
}

export function normalizePersonEvent(ev: EventInput): Normalized {
  const invalid = groupKeyTooLong(ev) ?? invalidReference(ev);
  if (invalid) return { kind: 'drop', warning: invalid };

  const flag = ev.properties.$process_person_profile;
  if (flag === false) {
    if (PERSON_ONLY_EVENTS.has(ev.event)) {
      return { kind: 'drop', warning: { type: 'invalid_event_when_process_person_profile_is_false', details: { eventUuid: ev.uuid, event: ev.event, distinctId: ev.distinct_id } } };
    }
    return { kind: 'keep', processPerson: false, properties: withoutPersonUpdates(ev.properties), warnings: [] };
  }

  const warnings: IngestionWarning[] = [];
  let properties = ev.properties;
  if (flag !== undefined) {
    // true is the default and is not kept; anything but a boolean is ignored with a warning.
    if (flag !== true) {
      warnings.push({ type: 'invalid_process_person_profile', details: { eventUuid: ev.uuid, event: ev.event, distinctId: ev.distinct_id, $process_person_profile: flag } });
    }
    const { $process_person_profile: _f, ...rest } = properties;
    properties = rest;
  }
  // A group identify describes the group, never the person who sent it.
  properties = ev.event === '$groupidentify' ? withoutPersonUpdates(properties) : liftPersonProperties(properties);
  return { kind: 'keep', processPerson: true, properties, warnings };
}
