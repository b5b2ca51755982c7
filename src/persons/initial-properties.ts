// Event properties that describe the person (device, browser, first page, campaign)
// are lifted onto the person as PostHog does: the latest value through $set, the first
// one seen through $set_once as `$initial_<key>`. An explicit $set / $set_once wins.
import type { Properties } from './tables.js';
import { isObject } from '../json.js';

const DEVICE_AND_PAGE = [
  '$app_build', '$app_name', '$app_namespace', '$app_version',
  '$browser', '$browser_version', '$device_type', '$current_url', '$pathname',
  '$os', '$os_name', '$os_version', '$referring_domain', '$referrer',
  '$screen_height', '$screen_width', '$viewport_height', '$viewport_width', '$raw_user_agent',
];
const CAMPAIGN = [
  'utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_name', 'utm_term',
  'gclid', 'gad_source', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'twclid',
  'li_fat_id', 'mc_cid', 'igshid', 'ttclid', 'rdt_cid', 'irclid', '_kx', 'epik', 'qclid', 'sccid',
];
// key → its first-touch name: "$browser" → "$initial_browser", "utm_source" → "$initial_utm_source".
const INITIAL_NAME = [...DEVICE_AND_PAGE, ...CAMPAIGN].map((k) => [k, `$initial_${k.replace('$', '')}`] as const);
// Some SDKs send $os_name for $os: it only fills $initial_os (see below), so it is never
// lifted itself, and an explicit $set.$os_name or $set_once.$initial_os_name stays.
const FROM_CLIENT = new Map(INITIAL_NAME.filter(([k]) => k !== '$os_name'));
// Server SDKs stamp their host's OS, which says nothing about the user.
const FROM_SERVER = new Map(INITIAL_NAME.filter(([k]) => k !== '$os' && k !== '$os_version'));

// The event's $set or $set_once object, made one if it has none.
function ownObject(properties: Properties, name: '$set' | '$set_once'): Properties {
  const v = properties[name];
  if (isObject(v)) return v;
  const fresh: Properties = {};
  properties[name] = fresh;
  return fresh;
}

// Extends the event's $set / $set_once with what it says of the person. In place: the
// consumer owns the event it decoded, and a copy of every event's properties cost
// more than the rest of the lifting. Returns the same properties object.
export function liftPersonProperties(properties: Properties): Properties {
  const serverHost = properties.$is_server === true;
  const lifted = serverHost ? FROM_SERVER : FROM_CLIENT;
  let set: Properties | null = null;
  let setOnce: Properties | null = null;
  // Walks the event's keys, not the list: events carry a few dozen at most.
  for (const key in properties) {
    const initialKey = lifted.get(key);
    if (initialKey === undefined) continue;
    if (set === null) {
      set = ownObject(properties, '$set');
      setOnce = ownObject(properties, '$set_once');
    }
    const value = properties[key];
    if (!Object.hasOwn(set, key)) set[key] = value;
    // A null first touch would block the real one forever ($set_once never overwrites).
    if (value != null && !Object.hasOwn(setOnce!, initialKey)) setOnce![initialKey] = value;
  }
  // After the loop, so that $os, wherever it comes in the event, is the first touch.
  if (!serverHost && Object.hasOwn(properties, '$os_name')) {
    set ??= ownObject(properties, '$set');
    setOnce ??= ownObject(properties, '$set_once');
    const osName = properties.$os_name;
    if (osName != null && !Object.hasOwn(setOnce, '$initial_os')) setOnce.$initial_os = osName;
  }
  return properties;
}
