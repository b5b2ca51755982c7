// Turns flag definitions into the structure evaluate.ts walks: every regex, date, version,
// cohort tree, variant boundary, payload and reason is prepared here once, and flags are
// put in dependency order, so evaluating a request only reads.

import { cohortId, compileCohorts, membershipOf } from './cohorts.js';
import type { Cohort, CohortTable, Membership } from './cohorts.js';
import { orderByDependencies } from './dependencies.js';
import type { DependencyStatus } from './dependencies.js';
import { compileOperator, type ValueTest } from '../matching/index.js';
import { propertyLookup } from './properties.js';
import type { PropertyLookup } from './properties.js';
import { conditionReasons } from './reasons.js';
import type { ConditionReasons } from './reasons.js';
import type { ConditionDefinition, FlagDefinition, FlagDefinitions, PropertyFilterDefinition } from './types.js';

export const enum CheckKind {
  /** A person property. */
  Person,
  /** A property of the group named by the filter's group_type_index. */
  Group,
  /** Untyped filters read the condition's own subject: the group it aggregates by, or the person. */
  Subject,
  /** flag_evaluates_to on another flag's result. */
  Flag,
}

export type PropertyCheck =
  | { readonly kind: CheckKind.Person | CheckKind.Subject; readonly lookup: PropertyLookup; readonly test: ValueTest }
  | { readonly kind: CheckKind.Group; readonly groupName: string | undefined; readonly lookup: PropertyLookup; readonly test: ValueTest };

export interface FlagCheck {
  readonly kind: CheckKind.Flag;
  /** Index of the flag depended on; -1 when unknown (the flag then has a missing dependency). */
  readonly target: number;
  /** true: any enabled value; false: disabled; a string: that variant; undefined: never matches. */
  readonly expected: boolean | string | undefined;
}

export type Check = PropertyCheck | FlagCheck;

export interface CohortCheck {
  readonly target: Cohort | undefined;
  readonly membership: Membership;
}

export interface CompiledCondition {
  /** Property and flag filters, in stored order. */
  readonly checks: readonly Check[];
  /** Cohort filters, checked after the others as PostHog does (they are the costly ones). */
  readonly cohortChecks: readonly CohortCheck[];
  /** A rollout of 100 (or none) needs no hash. */
  readonly fullRollout: boolean;
  readonly threshold: number;
  /** The condition's variant override, kept only when it names a declared variant. */
  readonly variantOverride: string | null;
  /** Group type index the condition aggregates by, or null for persons. */
  readonly aggregation: number | null;
  /** That group type's name; undefined when the mapping lacks it. */
  readonly groupName: string | undefined;
  readonly reasons: ConditionReasons;
}

export interface CompiledHoldout {
  readonly always: boolean;
  readonly threshold: number;
  readonly variant: string;
  readonly payload: unknown;
}

export interface CompiledFlag {
  readonly key: string;
  readonly id: number;
  readonly version: number;
  /** Active and not deleted: only these are evaluated and reported. */
  readonly evaluable: boolean;
  readonly hashPrefix: string;
  readonly aggregation: number | null;
  readonly groupName: string | undefined;
  readonly continuity: boolean;
  readonly deviceBucketing: boolean;
  readonly earlyExit: boolean;
  readonly conditions: readonly CompiledCondition[];
  readonly variantKeys: readonly string[];
  readonly variantBoundaries: readonly number[];
  readonly payloads: ReadonlyMap<string, unknown>;
  readonly truePayload: unknown;
  readonly holdout: CompiledHoldout | null;
  /** Early access: the enrollment property, or the legacy super condition and the keys that arm it. */
  readonly enrollment: PropertyLookup | null;
  readonly superCondition: CompiledCondition | null;
  readonly superConditionKeys: readonly PropertyLookup[];
  readonly dependencyStatus: DependencyStatus;
  /** This flag and everything it depends on, transitively. */
  readonly closure: readonly number[];
}

export interface CompiledFlags {
  readonly flags: readonly CompiledFlag[];
  /** Evaluation order: definition order, each flag's dependencies before it. */
  readonly order: readonly number[];
  readonly byKey: ReadonlyMap<string, number>;
  readonly cohorts: CohortTable;
  readonly hasDependencies: boolean;
  /** Dependency values before evaluation: inactive flags count as false, the rest as unknown. */
  readonly initialValues: readonly (boolean | string | undefined)[];
}

interface Scope {
  readonly groupTypeMapping: Readonly<Record<string, string>>;
  readonly cohorts: CohortTable;
  readonly flagIndex: (key: string) => number;
}

function groupNameOf(scope: Scope, index: number | null | undefined): string | undefined {
  if (index === null || index === undefined) return undefined;
  const name = scope.groupTypeMapping[String(index)];
  return typeof name === 'string' ? name : undefined;
}

function compileCheck(
  filter: PropertyFilterDefinition,
  aggregation: number | null,
  groupsVisible: boolean,
  scope: Scope,
): Check {
  if (filter.type === 'flag') {
    const expected = typeof filter.value === 'boolean' || typeof filter.value === 'string' ? filter.value : undefined;
    return {
      kind: CheckKind.Flag,
      target: scope.flagIndex(String(filter.key)),
      expected: filter.operator === 'flag_evaluates_to' ? expected : undefined,
    };
  }
  const lookup = propertyLookup(String(filter.key));
  const test = compileOperator(filter.operator, filter.value);
  if (filter.type === 'person') return { kind: CheckKind.Person, lookup, test };
  if (filter.type === 'group') {
    const groupName = groupsVisible ? groupNameOf(scope, filter.group_type_index ?? aggregation) : undefined;
    return { kind: CheckKind.Group, groupName, lookup, test };
  }
  return { kind: CheckKind.Subject, lookup, test };
}

function compileCondition(
  def: ConditionDefinition,
  index: number,
  flagAggregation: number | null,
  variantKeys: readonly string[],
  groupsVisible: boolean,
  scope: Scope,
): CompiledCondition {
  const aggregation =
    def.aggregation_group_type_index === undefined ? flagAggregation : def.aggregation_group_type_index;
  const checks: Check[] = [];
  const cohortChecks: CohortCheck[] = [];
  for (const filter of def.properties ?? []) {
    if (filter.type === 'cohort') {
      const id = cohortId(filter.value);
      cohortChecks.push({
        target: id === undefined ? undefined : scope.cohorts.byId.get(id),
        membership: membershipOf(filter.operator),
      });
    } else {
      checks.push(compileCheck(filter, aggregation, groupsVisible, scope));
    }
  }
  const rollout = def.rollout_percentage ?? 100;
  const override = def.variant ?? null;
  return {
    checks,
    cohortChecks,
    fullRollout: rollout === 100,
    threshold: rollout / 100,
    variantOverride: override !== null && variantKeys.includes(override) ? override : null,
    aggregation,
    groupName: groupNameOf(scope, aggregation),
    reasons: conditionReasons(index),
  };
}

function variantBoundaries(percentages: readonly number[]): number[] {
  // Accumulated left to right in binary64, exactly as PostHog does.
  const out: number[] = [];
  let cumulative = 0;
  for (const p of percentages) {
    cumulative += p / 100;
    out.push(cumulative);
  }
  return out;
}

function compileFlag(def: FlagDefinition, scope: Scope, dependency: DependencyStatus, closure: readonly number[]): CompiledFlag {
  const filters = def.filters ?? {};
  const aggregation = filters.aggregation_group_type_index ?? null;
  const variants = filters.multivariate?.variants ?? [];
  const variantKeys = variants.map((v) => v.key);
  const payloads = new Map(Object.entries(filters.payloads ?? {}));
  const holdout = filters.holdout;
  const exclusion = holdout ? Math.min(Math.max(Number(holdout.exclusion_percentage), 0), 100) : 0;
  const holdoutVariant = holdout ? `holdout-${holdout.id}` : '';
  const superDef = filters.super_groups?.[0];
  const superArmed = filters.feature_enrollment !== true && (superDef?.properties?.length ?? 0) > 0;
  return {
    key: def.key,
    id: def.id,
    version: def.version ?? 0,
    evaluable: def.active === true && def.deleted !== true,
    hashPrefix: `${def.key}.`,
    aggregation,
    groupName: groupNameOf(scope, aggregation),
    continuity: def.ensure_experience_continuity === true,
    deviceBucketing: def.bucketing_identifier === 'device_id',
    earlyExit: filters.early_exit === true,
    conditions: (filters.groups ?? []).map((c, i) => compileCondition(c, i, aggregation, variantKeys, true, scope)),
    variantKeys,
    variantBoundaries: variantBoundaries(variants.map((v) => Number(v.rollout_percentage))),
    payloads,
    truePayload: payloads.get('true') ?? null,
    holdout: holdout
      ? { always: exclusion >= 100, threshold: exclusion / 100, variant: holdoutVariant, payload: payloads.get(holdoutVariant) ?? null }
      : null,
    enrollment: filters.feature_enrollment === true ? propertyLookup(`$feature_enrollment/${def.key}`) : null,
    // Early access is a person-level gate, so its condition never reads group properties.
    superCondition: superArmed && superDef ? compileCondition({ ...superDef, aggregation_group_type_index: null }, 0, null, variantKeys, false, scope) : null,
    superConditionKeys: superArmed && superDef ? (superDef.properties ?? []).map((p) => propertyLookup(String(p.key))) : [],
    dependencyStatus: dependency,
    closure,
  };
}

/** Flag filters of type "flag" anywhere in a definition, as the keys they name. */
function dependencyKeys(def: FlagDefinition): string[] {
  const out: string[] = [];
  const filters = def.filters ?? {};
  for (const condition of [...(filters.groups ?? []), ...(filters.super_groups?.slice(0, 1) ?? [])]) {
    for (const p of condition.properties ?? []) if (p.type === 'flag') out.push(String(p.key));
  }
  return out;
}

export function compileFlags(definitions: FlagDefinitions): CompiledFlags {
  const defs = definitions.flags;
  const byKey = new Map<string, number>();
  const byId = new Map<string, number>();
  defs.forEach((def, i) => {
    if (!byKey.has(def.key)) byKey.set(def.key, i);
    byId.set(String(def.id), i);
  });
  // PostHog stores a dependency by flag id; the local-evaluation feed names it by key. Both work.
  const flagIndex = (key: string): number => {
    const i = byKey.get(key) ?? byId.get(key);
    return i === undefined || defs[i].deleted === true ? -1 : i;
  };
  const scope: Scope = {
    groupTypeMapping: definitions.group_type_mapping ?? {},
    cohorts: compileCohorts(definitions.cohorts ?? {}),
    flagIndex,
  };
  const graph = orderByDependencies(defs.map((def) => dependencyKeys(def).map(flagIndex)));
  const flags = defs.map((def, i) => compileFlag(def, scope, graph.status[i], graph.closure[i]));
  return {
    flags,
    order: graph.order,
    byKey,
    cohorts: scope.cohorts,
    hasDependencies: graph.hasDependencies,
    initialValues: flags.map((f) => (f.evaluable ? undefined : false)),
  };
}
