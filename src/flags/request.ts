// A /decide or /flags request body, decoded like capture's, read into the fields
// evaluation needs. Pure: the decoded payload and query in, plain data out.
import { errors } from '../errors.js';
import { isObject, measureJson, TOO_DEEP } from '../json.js';
import { limitDistinctId } from '../capture/distinct-id.js';

export interface FlagRequest {
  token: string;
  distinctId: string;
  groups: Record<string, string>;
  personProperties: Record<string, unknown>;
  groupProperties: Record<string, Record<string, unknown>>;
  geoipDisable: boolean;
  flagKeys: string[] | null;
  anonDistinctId: string | null;
  deviceId: string | null;
}

type Obj = Record<string, unknown>;

// Bounds of what a request hands to the flag worker (docs/decisions/0028). Deeper
// objects overflow the stack of the structured clone that carries a batch of requests
// to the worker; more values cost the main thread that clone. Generous for real
// properties: SDKs send a few dozen, one level deep.
export const MAX_REQUEST_LEVELS = 100;
export const MAX_REQUEST_VALUES = 10_000;

// The values `value` holds, within the budget left; the request is refused otherwise.
function bounded(value: unknown, levels: number, budget: number, attr: string): number {
  const values = measureJson(value, levels, budget);
  if (values === TOO_DEEP) throw errors.tooDeep(MAX_REQUEST_LEVELS, attr);
  if (values > budget) throw errors.flagRequestTooLarge(MAX_REQUEST_VALUES, attr);
  return values;
}

// Named reads, not a loop over the three names: a lookup by a computed name costs more
// than the walk of a typical request (measured, bench/RESULTS.md 2026-11-26).
function checkBounds(body: Obj): void {
  let budget = MAX_REQUEST_VALUES;
  budget -= bounded(body.groups, MAX_REQUEST_LEVELS, budget, 'groups');
  budget -= bounded(body.person_properties, MAX_REQUEST_LEVELS, budget, 'person_properties');
  // group_properties holds one properties object per group type: one level more.
  bounded(body.group_properties, MAX_REQUEST_LEVELS + 1, budget, 'group_properties');
}

function text(v: unknown): string | null {
  if (typeof v === 'string') return v.length > 0 ? v : null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** The project key of a decoded request; the key is checked before anything else in the body. */
export function readFlagToken(payload: unknown, query: URLSearchParams): string {
  if (!isObject(payload)) throw errors.invalidPayload('Malformed request data: expected a JSON object.');
  const token = text(payload.api_key) ?? text(payload.token) ?? text(query.get('token')) ?? text(query.get('api_key'));
  if (token === null) throw errors.missingProjectKey();
  if (token.startsWith('phx_')) throw errors.invalidProjectKey();
  return token;
}

export function readFlagRequest(payload: unknown, query: URLSearchParams): FlagRequest {
  const token = readFlagToken(payload, query);
  const body = payload as Obj;
  const rawId = body.distinct_id;
  const distinctId = typeof rawId === 'string' ? rawId : text(rawId);
  if (distinctId === null || distinctId === undefined) {
    // PostHog's words and shape (generate_exception_response in posthog/api/decide.py).
    throw errors.validation('Decide requires a distinct_id.', null, 'missing_distinct_id');
  }
  checkBounds(body);

  // Keyed by the request's group types: null-prototype, so "__proto__" is a key like any other.
  const groups: Record<string, string> = Object.create(null);
  if (isObject(body.groups)) {
    for (const [type, key] of Object.entries(body.groups)) {
      const k = text(key);
      if (k !== null) groups[type] = k;
    }
  }
  const groupProperties: Record<string, Record<string, unknown>> = Object.create(null);
  if (isObject(body.group_properties)) {
    for (const [type, props] of Object.entries(body.group_properties)) if (isObject(props)) groupProperties[type] = props;
  }
  const flagKeys = Array.isArray(body.flag_keys_to_evaluate)
    ? body.flag_keys_to_evaluate.filter((k): k is string => typeof k === 'string')
    : null;

  const anonId = text(body.$anon_distinct_id);
  return {
    token,
    // PostHog cuts distinct ids to 200 code points before hashing, as capture stores them.
    distinctId: limitDistinctId(distinctId),
    groups,
    personProperties: isObject(body.person_properties) ? body.person_properties : {},
    groupProperties,
    geoipDisable: body.geoip_disable === true || body.disable_geoip === true,
    flagKeys,
    // Cut like distinct_id: capture stored it cut (src/persons/identity.ts).
    anonDistinctId: anonId === null ? null : limitDistinctId(anonId),
    deviceId: text(body.$device_id),
  };
}

// `v` as PostHog reads it: an integer, anything else as absent.
export function requestVersion(query: URLSearchParams): number | undefined {
  const v = query.get('v');
  if (v === null || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}
