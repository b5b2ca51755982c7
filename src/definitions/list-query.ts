// The list endpoints' query strings read as PostHog's query serializers read them, and the
// filters and order they ask for, over records already read (pure).
import { errors } from '../errors.js';
import { GROUP_KIND, PERSON_KIND, EVENT_KIND, type DefinitionKind, type EventDefinitionRecord, type PropertyDefinitionRecord } from './records.js';

// PostHog's GROUP_TYPES_LIMIT.
const GROUP_TYPES = 5;

// DRF's BooleanField: these texts, anything else refused.
const TRUE = new Set(['true', 'True', 'TRUE', '1', 'yes', 'on', 'y', 't']);
const FALSE = new Set(['false', 'False', 'FALSE', '0', 'no', 'off', 'n', 'f']);

function booleanParam(query: URLSearchParams, name: string): boolean | null {
  const raw = query.get(name);
  if (raw === null || raw === '') return null;
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw errors.validation('Must be a valid boolean.', name, 'invalid');
}

function jsonList(query: URLSearchParams, name: string): string[] | null {
  const raw = query.get(name);
  if (raw === null || raw === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw errors.validation(`${name} must be a JSON-encoded list of strings.`, name, 'invalid');
  }
  if (!Array.isArray(value)) throw errors.validation(`${name} must be a JSON-encoded list of strings.`, name, 'invalid');
  return value.map(String);
}

// Every whitespace-separated word of `search` within the name, case apart (PostHog's term search).
export function searchMatcher(search: string | null): ((name: string) => boolean) | null {
  const words = (search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  return (name) => {
    const lower = name.toLowerCase();
    return words.every((w) => lower.includes(w));
  };
}

// Event properties PostHog never lists: ingestion's own, and those that misled users.
const ALWAYS_EXCLUDED_EVENT_PROPERTIES = new Set([
  'distinct_id', '$set', '$set_once', '$initial_referrer', '$initial_referring_domain', '$groups', '$group_type', '$group_key', '$group_set',
  ...Array.from({ length: GROUP_TYPES }, (_, i) => `$group_${i}`),
]);

export interface PropertyListQuery {
  kind: DefinitionKind | 'session';
  group: number | null;
  search: ((name: string) => boolean) | null;
  names: Set<string> | null;
  numerical: boolean;
  featureFlag: boolean | null;
  eventNames: string[] | null;
  filterByEventNames: boolean;
  excluded: Set<string>;
  excludeCore: boolean;
}

const KINDS = { event: EVENT_KIND, person: PERSON_KIND, group: GROUP_KIND, session: 'session' } as const;

export function propertyListQuery(query: URLSearchParams): PropertyListQuery {
  const type = query.get('type') ?? 'event';
  if (!Object.hasOwn(KINDS, type)) throw errors.invalidChoice(type, 'type');
  const rawGroup = query.get('group_type_index');
  let group: number | null = null;
  if (rawGroup !== null && rawGroup !== '') {
    if (!/^-?\d+$/.test(rawGroup.trim())) throw errors.validation('A valid integer is required.', 'group_type_index', 'invalid');
    group = Number(rawGroup);
  }
  // PostHog's checks, in its order, as errors of the whole query.
  if (type === 'group' && group === null) throw errors.validation('`group_type_index` must be set for `group` type', null, 'invalid');
  if (type !== 'group' && group !== null) throw errors.validation('`group_type_index` can only set for `group` type', null, 'invalid');
  if (group !== null && (group < 0 || group >= GROUP_TYPES)) throw errors.validation('Invalid value for `group_type_index`', null, 'invalid');
  const eventNames = jsonList(query, 'event_names');
  if (type !== 'event' && eventNames !== null && eventNames.length > 0) throw errors.validation('`event_names` can only be set for `event` type', null, 'invalid');
  const properties = query.get('properties');
  const numerical = booleanParam(query, 'is_numerical');
  // Checked, and nothing to do: hiding definitions is PostHog's paid taxonomy, none is hidden here.
  booleanParam(query, 'exclude_hidden');
  return {
    kind: KINDS[type as keyof typeof KINDS],
    group,
    search: searchMatcher(query.get('search')),
    names: properties ? new Set(properties.split(',')) : null,
    numerical: numerical === true,
    featureFlag: booleanParam(query, 'is_feature_flag'),
    eventNames: eventNames !== null && eventNames.length > 0 ? eventNames : null,
    filterByEventNames: booleanParam(query, 'filter_by_event_names') === true,
    excluded: new Set(jsonList(query, 'excluded_properties') ?? []),
    excludeCore: booleanParam(query, 'exclude_core_properties') === true,
  };
}

export interface ListedProperty {
  definition: PropertyDefinitionRecord;
  // null when the query named no events.
  seen: boolean | null;
}

// The definitions the query keeps, in PostHog's order: those seen on the named events first,
// then by name.
export function filterProperties(defs: readonly PropertyDefinitionRecord[], q: PropertyListQuery, seenOn: (name: string) => boolean): ListedProperty[] {
  const out: ListedProperty[] = [];
  for (const d of defs) {
    const name = d.name;
    if (q.kind === EVENT_KIND) {
      if (ALWAYS_EXCLUDED_EVENT_PROPERTIES.has(name) || name.startsWith('$session_entry_')) continue;
      if (q.excludeCore && name.startsWith('$')) continue;
    }
    if (q.excluded.has(name)) continue;
    if (q.names !== null && !q.names.has(name)) continue;
    if (q.numerical && (!d.is_numerical || name === 'distinct_id' || name === 'timestamp')) continue;
    if (q.featureFlag !== null && name.startsWith('$feature/') !== q.featureFlag) continue;
    if (q.search !== null && !q.search(name)) continue;
    const seen = q.eventNames !== null && q.kind === EVENT_KIND ? seenOn(name) : null;
    if (q.filterByEventNames && seen !== true) continue;
    out.push({ definition: d, seen });
  }
  return out.sort((a, b) => Number(b.seen === true) - Number(a.seen === true) || byName(a.definition.name, b.definition.name));
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const EVENT_TYPES = ['event', 'event_custom', 'event_posthog'] as const;
const ORDERINGS = new Set(['name', 'last_seen_at', 'last_seen_at::date', 'created_at', 'created_at::date']);

// GET …/event_definitions/: search, event_type, names, excluded_properties, ordering; PostHog's
// default order is by the day last seen (newest first), then name, a search putting shorter names first.
export function filterEventDefinitions(defs: readonly EventDefinitionRecord[], query: URLSearchParams): EventDefinitionRecord[] {
  let type = query.get('event_type') ?? 'event';
  if (type === 'all' || type === 'action_event') type = 'event';
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    throw errors.validation(`Not a valid event type. Use one of: ${EVENT_TYPES.join(', ')}.`, 'event_type', 'invalid');
  }
  const search = searchMatcher(query.get('search'));
  const names = query.getAll('names').flatMap((v) => v.split(',')).filter(Boolean);
  const excluded = new Set(jsonList(query, 'excluded_properties') ?? []);
  const kept = defs.filter((d) => (type === 'event' || d.name.startsWith('$') === (type === 'event_posthog'))
    && (search === null || search(d.name)) && (names.length === 0 || names.includes(d.name)) && !excluded.has(d.name));
  const orders: [string, 1 | -1][] = query.getAll('ordering').flatMap((v) => v.split(','))
    .filter((o) => ORDERINGS.has(o.replace(/^-/, ''))).map((o) => [o.replace(/^-/, ''), o.startsWith('-') ? -1 : 1]);
  const explicit = orders.length > 0;
  if (!explicit) orders.push(['last_seen_at::date', -1]);
  if (!orders.some(([field]) => field === 'name')) orders.push(['name', 1]);
  if (search !== null && !explicit) orders.unshift(['length(name)', 1]);
  const value = (d: EventDefinitionRecord, field: string): string | number => {
    switch (field) {
      case 'length(name)': return d.name.length;
      case 'last_seen_at::date': return d.last_seen_at.slice(0, 10);
      case 'created_at::date': return d.created_at.slice(0, 10);
      case 'last_seen_at': return d.last_seen_at;
      case 'created_at': return d.created_at;
      default: return d.name;
    }
  };
  return kept.sort((a, b) => {
    for (const [field, dir] of orders) {
      const x = value(a, field);
      const y = value(b, field);
      if (x !== y) return (x < y ? -1 : 1) * dir;
    }
    return 0;
  });
}
