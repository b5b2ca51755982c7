// The session properties PostHog lists (its definitions API, type=session): the fields of
// its sessions table, never recorded from events, here those hedgerow's HogQL sessions table
// reads (test/definitions/api reads every one through HogQL). PostHog's types: its own for
// $session_duration (Duration), numbers Numeric, instants DateTime, the bounce Boolean; it
// hides the table's ids, lists and the aliases kept for older queries ($exit_*).
import type { PropertyType } from './records.js';

export const SESSION_PROPERTIES: readonly (readonly [name: string, type: PropertyType])[] = [
  ['$start_timestamp', 'DateTime'], ['$end_timestamp', 'DateTime'], ['$session_duration', 'Duration'],
  ['$entry_current_url', 'String'], ['$end_current_url', 'String'], ['$entry_pathname', 'String'], ['$end_pathname', 'String'],
  ['$pageview_count', 'Numeric'], ['$autocapture_count', 'Numeric'], ['$screen_count', 'Numeric'],
  ['$entry_referring_domain', 'String'], ['$entry_hostname', 'String'], ['$end_hostname', 'String'],
  ...['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'gclid', 'gad_source', 'fbclid'].map((key) => [`$entry_${key}`, 'String'] as const),
  ['$is_bounce', 'Boolean'],
];
