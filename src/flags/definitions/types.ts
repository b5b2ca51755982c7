// Flags and cohorts as stored. Filters are kept exactly as the management API accepted
// them (PostHog's JSON), so the feed and the evaluator read what PostHog would store.
import type { FlagFiltersDefinition, PropertyGroupDefinition } from '../types.js';

export interface StoredFlag {
  id: number;
  project_id: number;
  key: string;
  name: string;
  filters: FlagFiltersDefinition;
  active: boolean;
  deleted: boolean;
  ensure_experience_continuity: boolean;
  // PostHog: 1 at creation, +1 on every update.
  version: number;
  // Where SDKs evaluate it; PostHog's default 'all'.
  evaluation_runtime: 'server' | 'client' | 'all' | null;
  // What rollouts and variants hash; PostHog's default 'distinct_id'.
  bucketing_identifier: 'distinct_id' | 'device_id' | null;
  created_at: string;
  created_by: number | null;
  updated_at: string;
  last_modified_by: number | null;
}

export interface StoredCohort {
  id: number;
  project_id: number;
  name: string | null;
  description: string;
  // PostHog's `filters.properties`: AND/OR groups of person, cohort and behavioral filters.
  // Without any, an empty AND group (static cohorts ignore it).
  filters: { properties: PropertyGroupDefinition };
  is_static: boolean;
  deleted: boolean;
  // Static cohorts: how many distinct ids are members.
  member_count: number;
  // Dynamic cohorts, as the insights domain last calculated them (src/insights/cohorts/):
  // members then, when, failures in a row since the last success, and whether a calculation
  // is due (set by a write of its filters, cleared by the calculation of those filters).
  count?: number | null;
  last_calculation?: string | null;
  errors_calculating?: number;
  is_calculating?: boolean;
  created_at: string;
  created_by: number | null;
}
