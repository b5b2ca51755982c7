// What /decide and /flags evaluate with: a project's definitions in the shape the pure
// core takes, and the version they were read at. Workers keep compiled definitions per
// version and reload when definitionsVersion() moves (one LMDB read).
import type { FlagsTables } from '../tables.js';
import type { PersonsTables } from '../../persons/index.js';
import type { CohortDefinition, FlagDefinition, FlagDefinitions } from '../types.js';
import { cohortsNeeded } from './cohort-refs.js';
import { withDependencyChains } from './dependencies.js';
import { groupTypeMapping } from './group-types.js';
import { definitionsVersion, projectCohorts, projectFlags } from './store.js';
import type { StoredCohort, StoredFlag } from './types.js';

export interface LoadedDefinitions {
  version: number;
  definitions: FlagDefinitions;
}

/** A project's undeleted flags (id order) and undeleted cohorts by id, read at one definitions version. */
export function liveDefinitions(store: FlagsTables, projectId: number): { version: number; flags: StoredFlag[]; cohorts: Map<number, StoredCohort> } {
  // Writers bump the version in the transaction that changes anything, so reading it
  // unchanged on both sides of the reads means the reads saw one state.
  for (;;) {
    const version = definitionsVersion(store, projectId);
    const flags = projectFlags(store, projectId).filter((f) => !f.deleted);
    const cohorts = new Map(projectCohorts(store, projectId).filter((c) => !c.deleted).map((c) => [c.id, c]));
    if (definitionsVersion(store, projectId) === version) return { version, flags, cohorts };
  }
}

/**
 * The definitions the evaluator takes: undeleted flags with dependencies named by key,
 * the group types, and every cohort the flags need (static ones as `{is_static: true}`:
 * membership comes from staticCohortsOf). Group types are not covered by the version.
 */
export function loadFlagDefinitions(store: FlagsTables & PersonsTables, projectId: number): LoadedDefinitions {
  const { version, flags, cohorts } = liveDefinitions(store, projectId);
  const needed: Record<string, CohortDefinition> = {};
  for (const flag of flags) {
    for (const id of cohortsNeeded(flag.filters, cohorts)) {
      const c = cohorts.get(id)!;
      needed[String(id)] = c.is_static ? { is_static: true } : { is_static: false, properties: c.filters.properties };
    }
  }
  const defs: FlagDefinition[] = withDependencyChains(flags).map((f) => ({
    id: f.id, key: f.key, version: f.version, active: f.active, deleted: f.deleted, filters: f.filters,
    ensure_experience_continuity: f.ensure_experience_continuity, bucketing_identifier: f.bucketing_identifier,
  }));
  return { version, definitions: { flags: defs, group_type_mapping: groupTypeMapping(store, projectId), cohorts: needed } };
}
