// For feed clients that do not ask for cohorts (no `send_cohorts`), PostHog rewrites a
// flag that needs exactly one cohort into plain person-property conditions when that
// cohort can be said that way, and sends no cohorts at all. Anything it cannot rewrite
// (variants overrides, a cohort beside other filters, negation, nesting that is not an
// OR of ANDs) is sent unchanged. Pure; mirrors transform_cohort_filters_for_easy_evaluation.
import type { ConditionDefinition, FlagFiltersDefinition, PropertyFilterDefinition, PropertyGroupDefinition } from '../types.js';
import { cohortIdOf, cohortsNeeded, flatProperties, isPropertyGroup } from './cohort-refs.js';
import type { StoredCohort } from './types.js';

type Node = PropertyGroupDefinition | PropertyFilterDefinition;

// Drops groups of one: a lone property stands for its group (clear_excess_levels).
function clearExcessLevels(node: Node, skip = false): Node {
  if (!isPropertyGroup(node)) return node;
  if (node.values.length === 1) {
    return skip ? { ...node, values: [clearExcessLevels(node.values[0])] } : clearExcessLevels(node.values[0]);
  }
  return { ...node, values: node.values.map((v) => clearExcessLevels(v, true)) };
}

export function expandSingleCohort(filters: FlagFiltersDefinition, cohorts: ReadonlyMap<number, StoredCohort>): readonly ConditionDefinition[] {
  const conditions = filters.groups ?? [];
  if (cohortsNeeded(filters, cohorts).length !== 1) return conditions;

  const kept: ConditionDefinition[] = [];
  let cohort: StoredCohort | undefined;
  // PostHog gives every rewritten condition the rollout of the flag's last condition.
  let rollout: number | null = null;
  for (const condition of conditions) {
    if (condition.variant) return conditions;
    const properties = condition.properties ?? [];
    rollout = condition.rollout_percentage ?? null;
    let namesCohort = false;
    for (const p of properties) {
      if (p.type !== 'cohort') continue;
      namesCohort = true;
      const id = cohortIdOf(p.value);
      if (id) {
        if (properties.length > 1) return conditions;
        cohort = cohorts.get(id);
        if (!cohort) return conditions;
      }
    }
    if (!namesCohort) kept.push(condition);
  }
  if (!cohort) return conditions;
  const flat = flatProperties(cohort.filters.properties);
  if (flat.length === 0 || flat.some((p) => p.type !== 'person' || p.negation)) return conditions;

  const condition = (properties: readonly Node[]): ConditionDefinition =>
    ({ properties: properties as PropertyFilterDefinition[], rollout_percentage: rollout });
  const target = clearExcessLevels(cohort.filters.properties);
  if (!isPropertyGroup(target)) return [...kept, condition([target])];
  if (!isPropertyGroup(target.values[0])) {
    return target.type === 'AND' ? [...kept, condition(target.values)] : [...kept, ...target.values.map((p) => condition([p]))];
  }
  // Nested groups: only an OR of ANDs (or of single properties) maps onto conditions.
  if (target.type === 'AND') return conditions;
  const expanded: ConditionDefinition[] = [];
  for (const group of target.values) {
    if (!isPropertyGroup(group) || group.values.length === 0 || isPropertyGroup(group.values[0]) ||
      (group.type === 'OR' && group.values.length > 1)) return conditions;
    expanded.push(condition(group.values));
  }
  return [...kept, ...expanded];
}
