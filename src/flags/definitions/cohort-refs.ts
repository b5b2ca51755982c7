// Which cohorts a flag needs: the cohorts its conditions name and, transitively, the
// cohorts those cohorts name (PostHog's get_cohort_ids). Pure.
import type { FlagFiltersDefinition, PropertyFilterDefinition, PropertyGroupDefinition } from '../types.js';
import type { StoredCohort } from './types.js';

export const isPropertyGroup = (node: PropertyGroupDefinition | PropertyFilterDefinition): node is PropertyGroupDefinition =>
  Array.isArray((node as PropertyGroupDefinition).values);

/** Cohort ids are integers, sent as numbers or numeric text. */
export function cohortIdOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

/** Every property filter in a cohort's AND/OR tree, in order. */
export function flatProperties(group: PropertyGroupDefinition): PropertyFilterDefinition[] {
  return group.values.flatMap((v) => (isPropertyGroup(v) ? flatProperties(v) : [v]));
}

const cohortsNamedBy = (properties: readonly PropertyFilterDefinition[]): number[] =>
  properties.flatMap((p) => {
    const id = p.type === 'cohort' ? cohortIdOf(p.value) : undefined;
    return id === undefined ? [] : [id];
  });

/** Ids of the existing cohorts a flag needs, each once. `cohorts` holds the project's undeleted cohorts. */
export function cohortsNeeded(filters: FlagFiltersDefinition, cohorts: ReadonlyMap<number, StoredCohort>): number[] {
  const found = new Set<number>();
  const pending = cohortsNamedBy((filters.groups ?? []).flatMap((g) => g.properties ?? []));
  while (pending.length > 0) {
    const id = pending.pop()!;
    const cohort = cohorts.get(id);
    if (found.has(id) || !cohort) continue;
    found.add(id);
    pending.push(...cohortsNamedBy(flatProperties(cohort.filters.properties)));
  }
  return [...found];
}
