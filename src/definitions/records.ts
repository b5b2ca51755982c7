// What the definitions domain keeps (./tables.ts): PostHog's property definitions (a name
// seen on events, persons or groups, with the type ingestion gave it on first sight, or the
// one a user set), event definitions (an event name, when first and last seen) and event
// properties (which event names a property was seen with: `event_names` filtering).

// PostHog's PropertyType choices (property_type), the types HogQL reads a property as.
export const PROPERTY_TYPES = ['DateTime', 'String', 'Numeric', 'Boolean', 'Duration'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

// PostHog's PropertyDefinition.Type: 1 event, 2 person, 3 group (4, session, is never recorded here).
export const EVENT_KIND = 1;
export const PERSON_KIND = 2;
export const GROUP_KIND = 3;
export type DefinitionKind = typeof EVENT_KIND | typeof PERSON_KIND | typeof GROUP_KIND;

// The group type index of a definition that has none, in keys (PostHog's coalesce(group_type_index, -1)).
export const NO_GROUP = -1;

export interface PropertyDefinitionRecord {
  id: string;
  name: string;
  type: DefinitionKind;
  group_type_index: number | null;
  // null: only values without a type (null, objects, arrays) seen so far.
  property_type: PropertyType | null;
  is_numerical: boolean;
}

export interface EventDefinitionRecord {
  id: string;
  name: string;
  created_at: string;
  last_seen_at: string;
}

// Where a definition's id leads ([project_id, id] → this): the key of its record.
export type DefinitionRef = ['property', DefinitionKind, number, string] | ['event', string];
