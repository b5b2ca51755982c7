// Reading properties safely and building the person properties a flag is evaluated on.

import type { Properties } from './types.js';

/** Reads one property; undefined when absent. */
export type PropertyLookup = (properties: Properties) => unknown;

/**
 * Plain indexing is the fast path, but a key such as "constructor" would find
 * Object.prototype's member on a property bag that lacks it, so those keys check ownership.
 */
export function propertyLookup(key: string): PropertyLookup {
  if (!(key in Object.prototype)) return (properties) => properties[key];
  return (properties) => (Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined);
}

// Ingestion sets $initial_* on first sight, with some lag; PostHog fills a missing one from
// its current counterpart so flags targeting it match meanwhile.
const INITIAL_PROPERTIES: readonly string[] = [
  '$app_build', '$app_name', '$app_namespace', '$app_version', '$browser', '$browser_version',
  '$device_type', '$current_url', '$pathname', '$os', '$os_version', '$referring_domain',
  '$referrer', '$screen_height', '$screen_width', '$viewport_height', '$viewport_width',
  '$raw_user_agent', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term',
  'gclid', 'gad_source', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'twclid',
  'li_fat_id', 'mc_cid', 'igshid', 'ttclid', 'rdt_cid', 'epik', 'qclid', 'sccid', 'irclid', '_kx',
];

function initialKey(key: string): string {
  return key.startsWith('$') ? `$initial_${key.slice(1)}` : `$initial_${key}`;
}

// Property → its $initial_ counterpart, for the properties that have one.
const INITIAL_OF: ReadonlyMap<string, string> = new Map(INITIAL_PROPERTIES.map((key) => [key, initialKey(key)]));

/**
 * Stored properties, plus `distinct_id`, overlaid with the request's person_properties,
 * plus any missing `$initial_*` property taken from its current value.
 */
export function personPropertiesForEvaluation(
  stored: Properties | null | undefined,
  requestOverrides: Properties | null | undefined,
  distinctId: string,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...stored, distinct_id: distinctId, ...requestOverrides };
  // A person has far fewer properties than there are $initial_ ones: walk the person's.
  let missing: string[] | null = null;
  for (const key of Object.keys(merged)) {
    const initial = INITIAL_OF.get(key);
    if (initial !== undefined && !Object.hasOwn(merged, initial)) (missing ??= []).push(key);
  }
  if (missing !== null) for (const key of missing) merged[INITIAL_OF.get(key)!] = merged[key];
  return merged;
}
