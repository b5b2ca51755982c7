// PostHog's pre-check of filters on the event's name: where only events are filtered (no
// actions) and each of them names one, an event of another name does not pass, whatever
// the bytecode would say. The pipeline asks it in the consumer thread before it builds an
// event's globals and ships them to a Hog worker (most events of a busy project match none
// of a narrow destination's names); the worker asks it again for mappings' filters.
import type { StoredFilters } from '../types.js';

// Filters are read once per function version (pipeline) or per prepared batch (worker).
const known = new WeakMap<StoredFilters, ReadonlySet<string> | null>();

// The names an event must have to pass, or null where any name may pass.
export function namedEvents(filters: StoredFilters | null): ReadonlySet<string> | null {
  if (filters === null) return null;
  let names = known.get(filters);
  if (names !== undefined) return names;
  const events = Array.isArray(filters.events) ? filters.events as { id?: unknown }[] : [];
  const actions = Array.isArray(filters.actions) ? filters.actions : [];
  names = events.length > 0 && actions.length === 0 && events.every((e) => typeof e.id === 'string')
    ? new Set(events.map((e) => e.id as string))
    : null;
  known.set(filters, names);
  return names;
}
