// Ingestion warnings: why an event was dropped or only partly applied. The types are
// PostHog's (with its category and severity), plus hedgerow's own where PostHog stays
// silent (a sixth group type, an event the consumer could not apply). Person processing
// and the event store record them; the persons API lists them.

export const WARNING_TYPES = {
  cannot_merge_already_identified: { category: 'merge', severity: 'warning' },
  cannot_merge_with_illegal_distinct_id: { category: 'merge', severity: 'warning' },
  invalid_event_when_process_person_profile_is_false: { category: 'event', severity: 'error' },
  invalid_process_person_profile: { category: 'event', severity: 'warning' },
  invalid_anon_distinct_id: { category: 'event', severity: 'error' },
  invalid_alias: { category: 'event', severity: 'error' },
  group_key_too_long: { category: 'size', severity: 'error' },
  // hedgerow's: PostHog ignores the type without telling anyone.
  group_type_limit_reached: { category: 'event', severity: 'warning' },
  // hedgerow's: an event the consumer could not apply as it is (src/events/store-consumer.ts).
  event_processing_failed: { category: 'event', severity: 'error' },
} as const;

export type WarningType = keyof typeof WARNING_TYPES;

export interface IngestionWarning {
  type: WarningType;
  details: Record<string, unknown>;
}

// The details PostHog stores: the occurrence's own fields, then category and severity.
export function warningDetails(w: IngestionWarning): Record<string, unknown> {
  return { ...w.details, ...WARNING_TYPES[w.type] };
}
