// A flag's `filters` as PostHog's serializer validates them (validate_filters), in its
// order and words, then the evaluator's own schema for anything structural PostHog
// leaves to chance. Returns the filters to store: JSON object payloads become JSON text,
// as PostHog stores them. Pure over the project's flags and cohorts.
import { errors } from '../../errors.js';
import { validateFlagFilters } from '../index.js';
// Not (yet) on the core's public face; read-only use of its operator list and date parser.
import { parseDateString, PROPERTY_OPERATORS } from '../../matching/index.js';
import type { FlagFiltersDefinition, PropertyFilterDefinition } from '../types.js';
import { cohortIdOf, cohortsNeeded, flatProperties } from '../definitions/cohort-refs.js';
import type { StoredCohort, StoredFlag } from '../definitions/types.js';
import { checkDependencies } from './dependency-rules.js';
import { pyStr, pyTruthy } from './python.js';
import { isObject } from '../../json.js';

export interface FilterContext {
  creating: boolean;
  /** The flag's key: the stored one on update, the body's on create. */
  flagKey: string | undefined;
  /** The stored filters, on update. */
  current: FlagFiltersDefinition | undefined;
  /** The project's flags and cohorts, deleted ones included. */
  flags: readonly StoredFlag[];
  cohorts: ReadonlyMap<number, StoredCohort>;
  now: number;
}

const MAX_PROPERTY_VALUES = 1000;
const STRING_VALUED = new Set(['regex', 'icontains', 'not_regex', 'not_icontains', 'gte', 'lte', 'gt', 'lt']);
const KNOWN_OPERATORS: ReadonlySet<string> = new Set(PROPERTY_OPERATORS);

// DRF's default code "invalid" reaches clients as "invalid_input" (drf-exceptions-hog).
const invalid = (detail: string, code?: string) => errors.validation(detail, 'filters', code);

function structure(raw: Record<string, unknown>): PropertyFilterDefinition[] {
  const groups = raw.groups;
  if (!Array.isArray(groups) || !groups.every(isObject)) throw invalid('Filters are not valid (/groups: Expected an array of conditions)');
  return groups.flatMap((g, i) => {
    const properties = g.properties ?? [];
    if (!Array.isArray(properties) || !properties.every(isObject)) {
      throw invalid(`Filters are not valid (/groups/${i}/properties: Expected an array of property filters)`);
    }
    return properties as unknown as PropertyFilterDefinition[];
  });
}

function checkCohortUsable(p: PropertyFilterDefinition, cohorts: ReadonlyMap<number, StoredCohort>): void {
  const id = cohortIdOf(p.value);
  const cohort = id === undefined ? undefined : cohorts.get(id);
  if (!cohort) throw invalid(`Cohort with id ${pyStr(p.value)} does not exist`, 'cohort_does_not_exist');
  const all = new Map([...cohorts].filter(([, c]) => !c.deleted));
  all.set(cohort.id, cohort);
  for (const dep of cohortsNeeded({ groups: [{ properties: [p] }] }, all).map((d) => all.get(d)!)) {
    if (flatProperties(dep.filters.properties).some((q) => q.type === 'behavioral')) {
      throw invalid(`Cohort '${dep.name ?? ''}' with filters on events cannot be used in feature flags.`, 'behavioral_cohort_found');
    }
  }
}

function checkProperty(p: PropertyFilterDefinition, ctx: FilterContext): void {
  if (Array.isArray(p.value) && p.value.length > MAX_PROPERTY_VALUES) {
    throw invalid(`Property group expressions of type ${p.key} cannot contain more than ${MAX_PROPERTY_VALUES} values.`);
  }
  if (p.type === 'cohort') checkCohortUsable(p, ctx.cohorts);
  const op = p.operator;
  if ((op === 'is_date_before' || op === 'is_date_after') && (typeof p.value !== 'string' || parseDateString(p.value, ctx.now) === undefined)) {
    throw invalid(`Invalid date value: ${pyStr(p.value)}`, 'invalid_date');
  }
  if (op && STRING_VALUED.has(op) && typeof p.value !== 'string') throw invalid(`Invalid value for operator ${op}: ${pyStr(p.value)}`, 'invalid_value');
  if ((op === 'in' || op === 'not_in') && p.type !== 'cohort') {
    throw invalid(`The '${op}' operator is only valid for cohort properties, not '${p.type}' properties.`, 'invalid_operator');
  }
  // Beyond PostHog, which would store it and fail every evaluation.
  if (op && (p.type === 'person' || p.type === 'group') && !KNOWN_OPERATORS.has(op)) {
    throw invalid(`Unknown operator '${op}' on property '${p.key}'.`, 'invalid_operator');
  }
}

function normalizedPayloads(raw: Record<string, unknown>): Record<string, unknown> {
  const payloads = raw.payloads === undefined ? {} : raw.payloads;
  if (!isObject(payloads)) throw invalid('Payloads must be passed as a dictionary');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payloads)) {
    if (typeof value === 'string') {
      try {
        JSON.parse(value);
      } catch {
        throw invalid('Payload value is not valid JSON');
      }
    }
    // Objects from the API are stored as JSON text, as the UI sends them. Defined, not
    // assigned: a variant keyed "__proto__" is a key, not the object's prototype.
    Object.defineProperty(out, key, { value: isObject(value) ? JSON.stringify(value) : value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export function validateFilters(raw: Record<string, unknown>, ctx: FilterContext): FlagFiltersDefinition {
  // PostHog keeps the stored filters when a PATCH sends some without conditions.
  if (!('groups' in raw) && !ctx.creating && ctx.current) return ctx.current;
  if (ctx.creating && !pyTruthy(raw.groups)) {
    throw invalid('Feature flags must have at least one condition set (group).');
  }
  const properties = structure(raw);
  const aggregation = raw.aggregation_group_type_index ?? null;
  if (aggregation === null) {
    if (!properties.every((p) => p.type === 'person' || p.type === 'cohort' || p.type === 'flag')) {
      throw invalid('Filters are not valid (can only use person, cohort, and flag properties)');
    }
    if (!properties.every((p) => p.type !== 'flag' || p.operator === 'flag_evaluates_to')) {
      throw invalid("Flag properties must use the 'flag_evaluates_to' operator");
    }
    checkDependencies(ctx.flagKey, raw as FlagFiltersDefinition, ctx.flags);
  } else if (!properties.every((p) => p.type === 'group' && p.group_type_index === aggregation)) {
    throw invalid('Filters are not valid (can only use group properties)');
  }

  const multivariate = raw.multivariate;
  const variantList = isObject(multivariate) && Array.isArray(multivariate.variants) ? multivariate.variants as Record<string, unknown>[] : [];
  const variants = new Set(variantList.map((v) => v?.key));
  if (variantList.length > 0) {
    const sum = variantList.reduce((total, v) => total + (typeof v?.rollout_percentage === 'number' ? v.rollout_percentage : 0), 0);
    if (sum !== 100) throw invalid('Invalid variant definitions: Variant rollout percentages must sum to 100.', 'invalid_input');
  }
  for (const condition of raw.groups as Record<string, unknown>[]) {
    if (pyTruthy(condition.variant) && !variants.has(condition.variant)) throw invalid('Filters are not valid (variant override does not exist)');
    for (const p of (condition.properties ?? []) as PropertyFilterDefinition[]) checkProperty(p, ctx);
  }

  const payloads = normalizedPayloads(raw);
  if (pyTruthy(multivariate)) {
    if (!Object.keys(payloads).every((k) => variants.has(k))) throw invalid('Payload keys must match a variant key for multivariate flags');
  } else if (Object.keys(payloads).some((k) => k !== 'true')) {
    throw invalid("Payload keys must be 'true' for boolean flags");
  }

  // Like PostHog, no payloads key is added where none was sent.
  const filters = 'payloads' in raw ? { ...raw, payloads } : raw;
  const checked = validateFlagFilters(filters);
  if (!checked.valid) {
    const e = checked.errors[0];
    throw invalid(`Filters are not valid (${e.path || '/'}: ${e.message})`);
  }
  return filters as FlagFiltersDefinition;
}
