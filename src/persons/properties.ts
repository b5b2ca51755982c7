// Person property updates carried by an event: $set_once, then $set, then $unset,
// computed against the person's current properties. Pure: nothing is mutated.
import type { Properties } from './tables.js';
import { isObject } from '../json.js';

// Events PostHog handles in separate pipelines, unordered with the rest: never applied.
const NO_PERSON_UPDATE_EVENTS = new Set(['$exception', '$$heatmap']);
// Events whose only purpose is the person: every change they carry is written.
const PERSON_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$set']);

// Keys that change on nearly every event (URL, viewport, browser, fine-grained GeoIP).
// A change to them alone on an ordinary event is not worth a write; they ride along
// when something else changes.
const NOISY_KEYS = new Set([
  '$current_url', '$pathname', '$referring_domain', '$referrer',
  '$screen_height', '$screen_width', '$viewport_height', '$viewport_width',
  '$browser', '$browser_version', '$device_type', '$raw_user_agent', '$os', '$os_name', '$os_version',
  '$geoip_postal_code', '$geoip_time_zone', '$geoip_latitude', '$geoip_longitude', '$geoip_accuracy_radius',
  '$geoip_subdivision_1_code', '$geoip_subdivision_1_name', '$geoip_subdivision_2_code', '$geoip_subdivision_2_name',
  '$geoip_subdivision_3_code', '$geoip_subdivision_3_name', '$geoip_city_confidence', '$geoip_country_confidence',
  '$geoip_postal_code_confidence', '$geoip_subdivision_1_confidence', '$geoip_subdivision_2_confidence',
]);

export interface PropertyUpdate {
  set: Properties;
  unset: string[];
  // Whether the changes are worth writing on their own (see NOISY_KEYS).
  significant: boolean;
}

const NO_UPDATE: PropertyUpdate = Object.freeze({ set: Object.freeze({}) as Properties, unset: [], significant: false });

// JSON values compare by content: re-sending the same object is no change.
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameValue((a as Properties)[k], (b as Properties)[k]));
}

// A person's own value of `key`: never one every object inherits ("constructor").
const own = (properties: Properties, key: string): unknown => (Object.hasOwn(properties, key) ? properties[key] : undefined);

// Writes `key` as a property of its own: a plain assignment of "__proto__" would
// replace the object's prototype instead.
function put(target: Properties, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

// Records a $set of `key` when it changes the value; true when that change is worth a write.
function setValue(set: Properties, current: Properties, key: string, value: unknown, force: boolean): boolean {
  const before = own(current, key);
  if (sameValue(before, value)) return false;
  put(set, key, value);
  return force || before === undefined || !NOISY_KEYS.has(key);
}

function unsetKeys(raw: unknown): unknown[] {
  if (Array.isArray(raw)) return raw;
  return isObject(raw) ? Object.keys(raw) : [];
}

export function propertyUpdate(event: string, eventProperties: Properties, timestamp: string, current: Properties): PropertyUpdate {
  if (NO_PERSON_UPDATE_EVENTS.has(event)) return NO_UPDATE;
  const force = PERSON_EVENTS.has(event);
  const set: Properties = {};
  const unset: string[] = [];
  let significant = false;

  const setOnce = eventProperties.$set_once;
  if (isObject(setOnce)) {
    for (const key in setOnce) {
      if (own(current, key) !== undefined) continue;
      put(set, key, setOnce[key]);
      significant = true;
    }
  }

  const explicit = isObject(eventProperties.$set) ? eventProperties.$set : null;
  if (explicit) for (const key in explicit) significant = setValue(set, current, key, explicit[key], force) || significant;
  // Set from what the event is rather than what it carries; an explicit $set wins.
  if (event === 'survey shown' && !(explicit && Object.hasOwn(explicit, '$survey_last_seen_date'))) {
    significant = setValue(set, current, '$survey_last_seen_date', timestamp, force) || significant;
  }

  // Applied last: a key this event also set is gone afterwards, as PostHog does.
  const toUnset = eventProperties.$unset;
  if (toUnset !== undefined) {
    for (const key of unsetKeys(toUnset)) {
      if (typeof key !== 'string') continue;
      if (Object.hasOwn(set, key)) delete set[key];
      if (!Object.hasOwn(current, key)) continue;
      unset.push(key);
      significant = true;
    }
  }
  return { set, unset, significant };
}

export function hasChanges(update: PropertyUpdate): boolean {
  if (update.unset.length > 0) return true;
  for (const _ in update.set) return true;
  return false;
}

export function applyUpdate(current: Properties, update: PropertyUpdate): Properties {
  const next: Properties = {};
  for (const key of Object.keys(current)) if (!update.unset.includes(key)) put(next, key, current[key]);
  for (const key of Object.keys(update.set)) put(next, key, update.set[key]);
  return next;
}
