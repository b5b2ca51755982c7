// The definitions' tables (./records.ts says what each holds). Written by the event store's
// pass (./step.ts: only keys not seen before) and by the API's commands (./commands.ts).
import { plainMaps, table, type Tables } from '../store/index.js';
import type { DefinitionKind, DefinitionRef, EventDefinitionRecord, PropertyDefinitionRecord } from './records.js';

export const definitionsTables = {
  // [project_id, kind, group type index (NO_GROUP: none), name] → the property definition.
  propertyDefinitions: table<PropertyDefinitionRecord, [number, DefinitionKind, number, string]>('property_definitions', plainMaps),
  // [project_id, event name] → the event definition.
  eventDefinitions: table<EventDefinitionRecord, [number, string]>('event_definitions', plainMaps),
  // [project_id, property name, event name] → 1: the property was seen on events of that name.
  eventProperties: table<1, [number, string, string]>('event_properties'),
  // [project_id, definition id] → the key of the definition it names (GET, PATCH, DELETE by id).
  definitionIds: table<DefinitionRef, [number, string]>('definition_ids'),
};

export type DefinitionsTables = Tables<typeof definitionsTables>;
