// Reading the definitions: a project's of one kind (and group type), by id, the event names a
// property was seen with, and the types HogQL reads properties as.
import { withPrefix } from '../store/index.js';
import { EVENT_KIND, GROUP_KIND, NO_GROUP, PERSON_KIND, type DefinitionKind, type EventDefinitionRecord, type PropertyDefinitionRecord, type PropertyType } from './records.js';
import type { DefinitionsTables } from './tables.js';

export function propertyDefinitions(store: DefinitionsTables, projectId: number, kind: DefinitionKind, group = NO_GROUP): PropertyDefinitionRecord[] {
  return [...withPrefix(store.propertyDefinitions, [projectId, kind, group])].map((e) => e.value);
}

export function eventDefinitions(store: DefinitionsTables, projectId: number): EventDefinitionRecord[] {
  return [...withPrefix(store.eventDefinitions, [projectId])].map((e) => e.value);
}

export function propertyDefinitionById(store: DefinitionsTables, projectId: number, id: string): PropertyDefinitionRecord | undefined {
  const ref = store.definitionIds.get([projectId, id]);
  return ref?.[0] === 'property' ? store.propertyDefinitions.get([projectId, ref[1], ref[2], ref[3]]) : undefined;
}

export function eventDefinitionById(store: DefinitionsTables, projectId: number, id: string): EventDefinitionRecord | undefined {
  const ref = store.definitionIds.get([projectId, id]);
  return ref?.[0] === 'event' ? store.eventDefinitions.get([projectId, ref[1]]) : undefined;
}

// Whether the property was seen on an event of one of these names.
export function seenOnEvents(store: DefinitionsTables, projectId: number, property: string, events: readonly string[]): boolean {
  for (const event of events) if (store.eventProperties.get([projectId, property, event]) !== undefined) return true;
  return false;
}

// The types HogQL reads single-key properties as (src/insights/planner/hogql/property-types.ts),
// by kind: only those that change a read (a String, or no type, reads as text anyway).
export interface PropertyTypes {
  event?: Record<string, PropertyType>;
  person?: Record<string, PropertyType>;
  // By group type index.
  groups?: Record<string, Record<string, PropertyType>>;
}

// PostHog reads these AI observability ids as text whatever their definitions say: their
// values often look like dates.
const ALWAYS_TEXT = new Set(['$ai_trace_id', '$ai_session_id', '$ai_parent_id', '$ai_span_id', '$ai_generation_id', '$ai_experiment_id']);

// The project's typed definitions whose names occur in one of the texts (the query's HogQL):
// what its compiler needs, and no more, since they go with the query and into its cache key.
// undefined when there are none.
export function propertyTypesFor(store: DefinitionsTables, projectId: number, texts: readonly string[]): PropertyTypes | undefined {
  // A text that reads no properties needs no types (the usual insight has no HogQL at all).
  if (!texts.some((t) => /properties/i.test(t))) return undefined;
  const named = (name: string) => !ALWAYS_TEXT.has(name) && texts.some((t) => t.includes(name));
  const out: PropertyTypes = {};
  const pick = (defs: Iterable<PropertyDefinitionRecord>): Record<string, PropertyType> | undefined => {
    let picked: Record<string, PropertyType> | undefined;
    for (const d of defs) if (d.property_type !== null && d.property_type !== 'String' && named(d.name)) (picked ??= {})[d.name] = d.property_type;
    return picked;
  };
  const event = pick(propertyDefinitions(store, projectId, EVENT_KIND));
  if (event) out.event = event;
  const person = pick(propertyDefinitions(store, projectId, PERSON_KIND));
  if (person) out.person = person;
  const groups: Record<string, Record<string, PropertyType>> = {};
  for (const { value } of withPrefix(store.propertyDefinitions, [projectId, GROUP_KIND])) {
    if (value.group_type_index === null || value.property_type === null || value.property_type === 'String' || !named(value.name)) continue;
    (groups[value.group_type_index] ??= {})[value.name] = value.property_type;
  }
  if (Object.keys(groups).length > 0) out.groups = groups;
  return Object.keys(out).length > 0 ? out : undefined;
}
