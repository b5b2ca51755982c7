// Definitions as PostHog's API shows them (its open-source serializers' fields).
import type { EventDefinitionRecord, PropertyDefinitionRecord, PropertyType } from './records.js';

export function propertyDefinitionBody(d: PropertyDefinitionRecord, seen: boolean | null = null): Record<string, unknown> {
  return { id: d.id, name: d.name, is_numerical: d.is_numerical, property_type: d.property_type, tags: [], is_seen_on_filtered_events: seen };
}

// A session property as PostHog lists one: its name is its id.
export function sessionPropertyBody(name: string, type: PropertyType): Record<string, unknown> {
  return { id: name, name, is_numerical: type === 'Numeric' || type === 'Duration', property_type: type, tags: [], is_seen_on_filtered_events: null };
}

export function eventDefinitionBody(d: EventDefinitionRecord): Record<string, unknown> {
  return {
    id: d.id, name: d.name, created_at: d.created_at, last_seen_at: d.last_seen_at, last_updated_at: null, tags: [],
    enforcement_mode: 'allow', primary_property: null, is_action: false, action_id: null, is_calculating: false,
    last_calculated_at: null, created_by: null, post_to_slack: false,
  };
}
