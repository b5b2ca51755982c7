// What a flag's `filters` may be, as PostHog stores them, for the management API to
// validate writes. Structure is a compiled TypeBox schema; the rules a schema cannot say
// (variant percentages summing to 100, overrides naming a declared variant, group types
// that exist) are checked after it. Evaluation itself reads definitions leniently.

import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { PROPERTY_OPERATORS } from '../matching/index.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const GroupTypeIndex = Type.Integer({ minimum: 0, maximum: 4 });
const Percentage = Type.Number({ minimum: 0, maximum: 100 });
const PropertyOperator = Type.Union(PROPERTY_OPERATORS.map((op) => Type.Literal(op)));

const PersonFilter = Type.Object({
  key: Type.String({ minLength: 1 }),
  type: Type.Literal('person'),
  operator: Type.Optional(Nullable(PropertyOperator)),
  value: Type.Optional(Type.Unknown()),
  negation: Type.Optional(Type.Boolean()),
});

const GroupFilter = Type.Object({
  key: Type.String({ minLength: 1 }),
  type: Type.Literal('group'),
  group_type_index: GroupTypeIndex,
  operator: Type.Optional(Nullable(PropertyOperator)),
  value: Type.Optional(Type.Unknown()),
  negation: Type.Optional(Type.Boolean()),
});

const CohortFilter = Type.Object({
  key: Type.String(),
  type: Type.Literal('cohort'),
  operator: Type.Optional(Nullable(Type.Union([Type.Literal('in'), Type.Literal('not_in')]))),
  value: Type.Union([Type.Integer(), Type.String({ pattern: '^\\d+$' })]),
  negation: Type.Optional(Type.Boolean()),
});

const FlagDependencyFilter = Type.Object({
  key: Type.String({ minLength: 1 }),
  type: Type.Literal('flag'),
  operator: Type.Literal('flag_evaluates_to'),
  value: Type.Union([Type.Boolean(), Type.String({ minLength: 1 })]),
  dependency_chain: Type.Optional(Type.Array(Type.String())),
});

const PropertyFilter = Type.Union([PersonFilter, GroupFilter, CohortFilter, FlagDependencyFilter]);

const Condition = Type.Object({
  properties: Type.Optional(Nullable(Type.Array(PropertyFilter))),
  rollout_percentage: Type.Optional(Nullable(Percentage)),
  variant: Type.Optional(Nullable(Type.String())),
  aggregation_group_type_index: Type.Optional(Nullable(GroupTypeIndex)),
});

const Variant = Type.Object({
  key: Type.String({ minLength: 1 }),
  name: Type.Optional(Nullable(Type.String())),
  rollout_percentage: Percentage,
});

export const FlagFiltersSchema = Type.Object({
  groups: Type.Optional(Type.Array(Condition)),
  multivariate: Type.Optional(Nullable(Type.Object({ variants: Type.Array(Variant, { minItems: 1 }) }))),
  payloads: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  aggregation_group_type_index: Type.Optional(Nullable(GroupTypeIndex)),
  super_groups: Type.Optional(Nullable(Type.Array(Condition))),
  feature_enrollment: Type.Optional(Nullable(Type.Boolean())),
  holdout: Type.Optional(Nullable(Type.Object({ id: Type.Integer(), exclusion_percentage: Percentage }))),
  early_exit: Type.Optional(Type.Boolean()),
});

export type FlagFilters = Static<typeof FlagFiltersSchema>;

const checkFilters = TypeCompiler.Compile(FlagFiltersSchema);

export interface FilterValidationError {
  /** JSON pointer into the filters, e.g. "/multivariate/variants". */
  readonly path: string;
  readonly message: string;
}

// Two-decimal percentages may not add up to exactly 100 in binary64.
const SUM_TOLERANCE = 1e-9;

function semanticErrors(filters: FlagFilters, groupTypeMapping: Readonly<Record<string, string>> | undefined): FilterValidationError[] {
  const errors: FilterValidationError[] = [];
  const variants = filters.multivariate?.variants ?? [];
  const keys = new Set<string>();
  variants.forEach((v, i) => {
    if (keys.has(v.key)) errors.push({ path: `/multivariate/variants/${i}/key`, message: `Duplicate variant key '${v.key}'.` });
    keys.add(v.key);
  });
  if (variants.length > 0) {
    const sum = variants.reduce((total, v) => total + v.rollout_percentage, 0);
    if (Math.abs(sum - 100) > SUM_TOLERANCE) {
      errors.push({ path: '/multivariate/variants', message: 'Variant rollout percentages must sum to 100.' });
    }
  }
  const knownGroupType = (index: number) => groupTypeMapping === undefined || String(index) in groupTypeMapping;
  if (filters.aggregation_group_type_index != null && !knownGroupType(filters.aggregation_group_type_index)) {
    errors.push({ path: '/aggregation_group_type_index', message: `Unknown group type index ${filters.aggregation_group_type_index}.` });
  }
  (filters.groups ?? []).forEach((condition, i) => {
    if (condition.variant != null && !keys.has(condition.variant)) {
      errors.push({ path: `/groups/${i}/variant`, message: `Variant override '${condition.variant}' is not a declared variant.` });
    }
    const aggregation = condition.aggregation_group_type_index;
    if (aggregation != null && !knownGroupType(aggregation)) {
      errors.push({ path: `/groups/${i}/aggregation_group_type_index`, message: `Unknown group type index ${aggregation}.` });
    }
    (condition.properties ?? []).forEach((p, j) => {
      if (p.type === 'group' && !knownGroupType(p.group_type_index)) {
        errors.push({ path: `/groups/${i}/properties/${j}/group_type_index`, message: `Unknown group type index ${p.group_type_index}.` });
      }
    });
  });
  return errors;
}

/**
 * Checks filters for the management API. With a group type mapping, group type indexes
 * must also name existing group types.
 */
export function validateFlagFilters(
  filters: unknown,
  groupTypeMapping?: Readonly<Record<string, string>>,
): { valid: true; filters: FlagFilters } | { valid: false; errors: FilterValidationError[] } {
  if (!checkFilters.Check(filters)) {
    const errors = [...checkFilters.Errors(filters)].map((e) => ({ path: e.path, message: e.message }));
    return { valid: false, errors };
  }
  const errors = semanticErrors(filters, groupTypeMapping);
  return errors.length === 0 ? { valid: true, filters } : { valid: false, errors };
}
