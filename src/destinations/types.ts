// A hog function as stored (management state, written through the write path), and the
// parts of it the pipeline runs.
import type { CompiledInput, InputSchemaItem } from '../hog/index.js';

export interface StoredFilters {
  source?: string;
  events?: unknown[];
  actions?: unknown[];
  properties?: unknown[];
  filter_test_accounts?: boolean;
  bytecode: unknown[] | null;
  bytecode_error?: string;
  [other: string]: unknown;
}

export interface StoredMasking {
  ttl: number;
  threshold: number | null;
  hash: string;
  bytecode: unknown;
}

export interface StoredMapping {
  name?: string;
  inputs_schema: InputSchemaItem[];
  inputs: Record<string, CompiledInput>;
  filters: StoredFilters | null;
  [other: string]: unknown;
}

export interface StoredHogFunction {
  id: string;
  project_id: number;
  type: string;
  name: string;
  description: string;
  created_at: string;
  created_by: number | null;
  updated_at: string;
  enabled: boolean;
  deleted: boolean;
  hog: string;
  bytecode: unknown[] | null;
  transpiled: string | null;
  inputs_schema: InputSchemaItem[];
  // Inputs whose schema item is not secret, compiled.
  inputs: Record<string, CompiledInput>;
  // Secret inputs, compiled: never shown through the API (PostHog keeps them apart too,
  // as encrypted_inputs). print() output has their values redacted.
  secret_inputs: Record<string, CompiledInput>;
  filters: StoredFilters | null;
  masking: StoredMasking | null;
  mappings: StoredMapping[] | null;
  icon_url: string | null;
  template_id: string | null;
  execution_order: number | null;
  // Moved by an update that leaves the function enabled: a pipeline that has the
  // function disabled by its watcher takes it back as degraded (PostHog's rule).
  watcher_epoch: number;
  // When it last stopped running (disabled or deleted), while it is off.
  disabled_at?: string;
  // The last times it was off, [from, to) as ISO times: an event captured then is not run
  // when a consumer running behind reads it after the function is on again, and what was
  // queued before the last one ended is dropped (./off-periods.ts resumedAtMs). PostHog
  // decides by the function's state when its consumer reads the event, which keeps up with
  // capture; this consumer may run minutes behind, so the capture time decides here.
  off_periods?: [string, string][];
  // Beyond PostHog: at most this many fetches started per second (fractions allowed: 0.5
  // is one every two seconds); null or absent: no limit beyond the fetches in flight.
  rate_limit_per_second?: number | null;
}

// The fields a create or update computes (validated and compiled); the rest (id, project,
// timestamps, creator) the route fills.
export type HogFunctionFields = Omit<StoredHogFunction, 'id' | 'project_id' | 'created_at' | 'created_by' | 'updated_at' | 'watcher_epoch' | 'disabled_at' | 'off_periods'>;

// PostHog's HogFunctionType choices.
export const HOG_FUNCTION_TYPES = [
  'destination', 'site_destination', 'internal_destination', 'source_webhook', 'warehouse_source_webhook', 'site_app',
  'transformation', 'transformation_log',
] as const;

// The watcher's states (PostHog's HogWatcherState; 0 = unknown, for a function not running).
export const WatcherState = { unknown: 0, healthy: 1, degraded: 2, disabled: 3, forcefullyDegraded: 11, forcefullyDisabled: 12 } as const;
