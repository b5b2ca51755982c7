// A /decide or /flags request body, decoded like capture's, read into the fields
// evaluation needs. Pure: the decoded payload and query in, plain data out.
import { errors } from '../errors.js';

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
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(v: unknown): string | null {
  if (typeof v === 'string') return v.length > 0 ? v : null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

// PostHog cuts distinct ids to 200 code points before hashing.
function cut(id: string): string {
  return id.length > 200 ? Array.from(id).slice(0, 200).join('') : id;
}

export function readFlagRequest(payload: unknown, query: URLSearchParams): FlagRequest {
  if (!isObject(payload)) throw errors.invalidPayload('Malformed request data: expected a JSON object.');
  const token = text(payload.api_key) ?? text(payload.token) ?? text(query.get('token')) ?? text(query.get('api_key'));
  if (token === null) throw errors.missingProjectKey();
  if (token.startsWith('phx_')) throw errors.invalidProjectKey();

  const rawId = payload.distinct_id;
  const distinctId = typeof rawId === 'string' ? rawId : text(rawId);
  if (distinctId === null || distinctId === undefined) {
    throw errors.validation('The distinct_id field is missing from the request.', 'distinct_id', 'missing_distinct_id');
  }

  const groups: Record<string, string> = {};
  if (isObject(payload.groups)) {
    for (const [type, key] of Object.entries(payload.groups)) {
      const k = text(key);
      if (k !== null) groups[type] = k;
    }
  }
  const groupProperties: Record<string, Record<string, unknown>> = {};
  if (isObject(payload.group_properties)) {
    for (const [type, props] of Object.entries(payload.group_properties)) if (isObject(props)) groupProperties[type] = props;
  }
  const flagKeys = Array.isArray(payload.flag_keys_to_evaluate)
    ? payload.flag_keys_to_evaluate.filter((k): k is string => typeof k === 'string')
    : null;

  return {
    token,
    distinctId: cut(distinctId),
    groups,
    personProperties: isObject(payload.person_properties) ? payload.person_properties : {},
    groupProperties,
    geoipDisable: payload.geoip_disable === true || payload.disable_geoip === true,
    flagKeys,
    anonDistinctId: text(payload.$anon_distinct_id),
    deviceId: text(payload.$device_id),
  };
}

// `v` as PostHog reads it: an integer, anything else as absent.
export function requestVersion(query: URLSearchParams): number | undefined {
  const v = query.get('v');
  if (v === null || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}
