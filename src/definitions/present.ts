// Definitions as PostHog's API shows them (its open-source serializers' fields).
import type { EventDefinitionRecord, PropertyDefinitionRecord } from './records.js';

export function propertyDefinitionBody(d: PropertyDefinitionRecord, seen: boolean | null = null): Record<string, unknown> {
  return { id: d.id, name: d.name, is_numerical: d.is_numerical, property_type: d.property_type, tags: [], is_seen_on_filtered_events: seen };
}

export function eventDefinitionBody(d: EventDefinitionRecord): Record<string, unknown> {
  return {
    id: d.id, name: d.name, created_at: d.created_at, last_seen_at: d.last_seen_at, last_updated_at: null, tags: [],
    enforcement_mode: 'allow', primary_property: null, is_action: false, action_id: null, is_calculating: false,
    last_calculated_at: null, created_by: null, post_to_slack: false,
  };
}
