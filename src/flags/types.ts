// Plain-data shapes the evaluator takes in and gives back. Definitions are read leniently
// (the local-evaluation feed shape, as PostHog stores flags); strict validation of what the
// management API accepts lives in schemas.ts.

export type Properties = Readonly<Record<string, unknown>>;

export interface PropertyFilterDefinition {
  readonly key: string;
  /** person | group | cohort | flag; anything else is read against the condition's own properties. */
  readonly type?: string | null;
  readonly operator?: string | null;
  readonly value?: unknown;
  readonly group_type_index?: number | null;
  /** Inverts a cohort's property filter. */
  readonly negation?: boolean | null;
  /** Flag dependencies: the flags the target depends on, target last (feed artifact; the graph is rebuilt here). */
  readonly dependency_chain?: readonly string[] | null;
}

export interface ConditionDefinition {
  readonly properties?: readonly PropertyFilterDefinition[] | null;
  /** null or absent means 100. */
  readonly rollout_percentage?: number | null;
  /** Applies only when it names a declared variant. */
  readonly variant?: string | null;
  /** Absent: the flag's own aggregation; null: persons; a number: that group type. */
  readonly aggregation_group_type_index?: number | null;
}

export interface VariantDefinition {
  readonly key: string;
  readonly name?: string | null;
  readonly rollout_percentage: number;
}

export interface FlagFiltersDefinition {
  readonly groups?: readonly ConditionDefinition[] | null;
  readonly multivariate?: { readonly variants: readonly VariantDefinition[] } | null;
  /** Keyed by "true" or a variant key; values are returned exactly as stored. */
  readonly payloads?: Readonly<Record<string, unknown>> | null;
  readonly aggregation_group_type_index?: number | null;
  /** Legacy early-access gate; only the first one counts. */
  readonly super_groups?: readonly ConditionDefinition[] | null;
  /** Early access: person property `$feature_enrollment/<flag key>` decides when present. */
  readonly feature_enrollment?: boolean | null;
  readonly holdout?: { readonly id: number; readonly exclusion_percentage: number } | null;
  /** A rollout miss on a condition whose properties matched ends evaluation. */
  readonly early_exit?: boolean | null;
}

export interface FlagDefinition {
  readonly id: number;
  readonly key: string;
  readonly version?: number | null;
  readonly active?: boolean | null;
  readonly deleted?: boolean | null;
  readonly filters?: FlagFiltersDefinition | null;
  readonly ensure_experience_continuity?: boolean | null;
  /** "device_id" buckets person conditions by $device_id. */
  readonly bucketing_identifier?: string | null;
}

/** A cohort as the local-evaluation feed sends it: AND/OR groups nested to any depth. */
export interface PropertyGroupDefinition {
  readonly type: string;
  readonly values: readonly (PropertyGroupDefinition | PropertyFilterDefinition)[];
}

/** Static cohorts carry no filters: membership comes from the caller. */
export interface CohortDefinition {
  readonly is_static?: boolean | null;
  readonly properties?: PropertyGroupDefinition | null;
}

export interface FlagDefinitions {
  readonly flags: readonly FlagDefinition[];
  /** Group type index (as a string) to group type name. */
  readonly group_type_mapping?: Readonly<Record<string, string>> | null;
  /** Cohort id (as a string) to its definition, or to the bare property group of the feed. */
  readonly cohorts?: Readonly<Record<string, CohortDefinition | PropertyGroupDefinition>> | null;
}

/** Static cohort membership of the person being evaluated. A Set<number> fits. */
export interface CohortMembership {
  has(cohortId: number): boolean;
}

export interface EvaluationContext {
  /** May be empty: rollout and variant hashing then use 0.0, as PostHog does. */
  readonly distinct_id: string;
  /** Stored person properties already overlaid with the request's (see personPropertiesForEvaluation). */
  readonly person_properties?: Properties | null;
  /** Group type name to group key; numeric keys hash as their decimal text. */
  readonly groups?: Readonly<Record<string, unknown>> | null;
  /** Group type name to that group's properties. */
  readonly group_properties?: Readonly<Record<string, Properties>> | null;
  /** Experience continuity: stored hash key per flag key. */
  readonly hash_key_overrides?: Readonly<Record<string, string>> | null;
  /** The request's $anon_distinct_id, the continuity fallback when no hash key is stored. */
  readonly anon_distinct_id?: string | null;
  /** The request's $device_id, for flags bucketed by device. */
  readonly device_id?: string | null;
  /** Evaluate only these flags (and what they depend on). */
  readonly flag_keys_to_evaluate?: readonly string[] | null;
  readonly static_cohorts?: CohortMembership | null;
  /** The clock, in epoch milliseconds, for relative dates. */
  readonly now: number;
}

export interface EvaluateOptions {
  /** Reading stored hash keys failed: continuity flags fail instead of hashing the wrong id. */
  readonly hash_key_overrides_failed?: boolean;
}

export type FlagValue = boolean | string;

export type ReasonCode =
  | 'super_condition_value'
  | 'holdout_condition_value'
  | 'condition_match'
  | 'out_of_rollout_bound'
  | 'no_condition_match'
  | 'no_group_type'
  | 'flag_disabled'
  | 'missing_dependency'
  | 'dependency_not_found_cohort'
  | 'dependency_cycle_cohort'
  | 'hash_key_override_error';

export interface FlagReason {
  readonly code: ReasonCode;
  readonly condition_index: number | null;
  readonly description: string;
}

export interface FlagEvaluation {
  readonly key: string;
  readonly id: number;
  readonly version: number;
  readonly enabled: boolean;
  readonly variant: string | null;
  /** The variant, else `enabled`. */
  readonly value: FlagValue;
  /** The stored payload for "true" or the variant, as stored; null when none. */
  readonly payload: unknown;
  readonly reason: FlagReason;
  /** Evaluation errored: enabled is false and errors_while_computing_flags is set. */
  readonly failed: boolean;
}

export interface EvaluationResult {
  /** Active, undeleted flags in definition order; inactive and deleted flags are omitted. */
  readonly flags: readonly FlagEvaluation[];
  readonly errors_while_computing_flags: boolean;
}
