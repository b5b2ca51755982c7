// What compiling filters needs from the rest of hedgerow, passed in as plain data and
// lookups so the filter compiler stays a pure function.

import type { Expr } from '../ast.js';

/** A property filter as PostHog stores it ({key, value, operator, type, ...}). */
export interface PropertyFilter {
  key?: unknown;
  value?: unknown;
  operator?: string | null;
  type?: string;
  group_type_index?: number | null;
  negation?: boolean;
  [other: string]: unknown;
}

export interface ActionStep {
  event?: string | null;
  url?: string | null;
  url_matching?: 'contains' | 'regex' | 'exact' | null;
  text?: string | null;
  text_matching?: 'contains' | 'regex' | 'exact' | null;
  href?: string | null;
  href_matching?: 'contains' | 'regex' | 'exact' | null;
  selector?: string | null;
  tag_name?: string | null;
  properties?: PropertyFilter[] | null;
}

export interface CohortDefinition {
  name: string;
  is_static: boolean;
  filters: { properties?: unknown } | null;
}

export interface FilterContext {
  /** The project's test account filters (applied when filters.filter_test_accounts). */
  testAccountFilters?: PropertyFilter[];
  /** The steps of an action of the project, or undefined when there is none with that id. */
  action?: (id: number) => { steps: ActionStep[] } | undefined;
  /** A cohort of the project (test account filters may name person-property cohorts). */
  cohort?: (id: number) => CohortDefinition | undefined;
  /** Properties whose definition says Boolean: "true"/"false" values then compile to booleans. */
  isBooleanProperty?: (type: string, key: string, groupTypeIndex: number | null) => boolean;
  /** The clock relative dates (is_date_* "-7d") resolve against, in epoch ms. */
  now: number;
  /** The project's time zone, for relative dates. Default UTC. */
  timeZone?: string;
  /** For the link in cohort error messages: `${siteUrl}/project/${projectId}/settings/project`. */
  siteUrl?: string;
  projectId?: number;
}

/** A failure that becomes the filters' bytecode_error. */
export class FilterError extends Error {}

export type { Expr };
