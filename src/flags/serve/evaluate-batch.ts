// Flag evaluation inside a worker: read what a request needs from LMDB (person,
// groups, hash keys, static cohorts), evaluate with definitions compiled once per
// version, and project onto the requested protocol. One batch of tasks per call; a
// request that throws fails alone (src/pools/serve.ts settleEach).
import type { FlagsTables } from '../tables.js';
// The flags domain's own files, not its index: the index also exports the filters' TypeBox
// schemas, which this worker thread has no use for and would load at every start.
import { compileFlags, type CompiledFlags } from '../compile.js';
import { evaluateFlags } from '../evaluate.js';
import { personPropertiesForEvaluation } from '../properties.js';
import { renderBody } from '../render.js';
import { definitionsVersion, loadFlagDefinitions, staticCohortsOf } from '../definitions/index.js';
import { groupProperties, groupTypeMapping, hashKeyOverrides, personByDistinctId, personRecordByDistinctId, type DistinctIdRecord, type PersonsTables } from '../../persons/index.js';
import { settleEach, type BatchOutcome } from '../../pools/index.js';
import type { FlagTask, FlagTaskResult } from '../tasks.js';

interface ProjectFlags {
  version: number;
  groupTypes: number;
  compiled: CompiledFlags;
  typeIndex: Map<string, number>;
  continuityKeys: string[];
  hasStaticCohorts: boolean;
}

function compileProject(store: FlagsTables & PersonsTables, projectId: number): ProjectFlags {
  const { version, definitions } = loadFlagDefinitions(store, projectId);
  const mapping = groupTypeMapping(store, projectId);
  const cohorts = definitions.cohorts ?? {};
  return {
    version,
    groupTypes: mapping.length,
    compiled: compileFlags(definitions),
    typeIndex: new Map(mapping.map((t) => [t.group_type, t.group_type_index])),
    continuityKeys: definitions.flags.filter((f) => f.ensure_experience_continuity && f.active !== false).map((f) => f.key),
    hasStaticCohorts: Object.values(cohorts).some((c) => (c as { is_static?: boolean }).is_static === true),
  };
}

interface Continuity {
  overrides: Record<string, string> | null;
  failed: boolean;
  missing: string[] | null;
}

const NO_CONTINUITY: Continuity = Object.freeze({ overrides: null, failed: false, missing: null });

export function createBatchEvaluator(store: FlagsTables & PersonsTables) {
  const cache = new Map<number, ProjectFlags>();

  // One version read per project per batch: a definition change is visible to the
  // next batch, well within a second.
  function projectFlags(projectId: number, seen: Set<number>): ProjectFlags {
    let entry = cache.get(projectId);
    if (entry && seen.has(projectId)) return entry;
    seen.add(projectId);
    if (!entry || entry.version !== definitionsVersion(store, projectId) || entry.groupTypes !== groupTypeMapping(store, projectId).length) {
      entry = compileProject(store, projectId);
      cache.set(projectId, entry);
    }
    return entry;
  }

  // Experience continuity, as PostHog's /flags service does it: the stored hash keys of
  // the person of distinct_id win over those of the person of $anon_distinct_id (before
  // identification the anonymous person holds them); a continuity flag that either
  // existing person has no hash key for yet is reported so the main thread stores one.
  function readContinuity(task: FlagTask, person: DistinctIdRecord | undefined, keys: readonly string[]): Continuity {
    try {
      const own = person ? hashKeyOverrides(store, task.projectId, person.person_uuid) : null;
      if (!task.anonDistinctId) return { overrides: own, failed: false, missing: null };
      const anonPerson = personByDistinctId(store, task.projectId, task.anonDistinctId);
      const anon = !anonPerson ? null
        : anonPerson.person_uuid === person?.person_uuid ? own
          : hashKeyOverrides(store, task.projectId, anonPerson.person_uuid);
      const holders = [own, anon].filter((h): h is Record<string, string> => h !== null);
      if (holders.length === 0) return { overrides: null, failed: false, missing: null };
      const missing = keys.filter((k) => holders.some((h) => !Object.hasOwn(h, k)));
      return { overrides: anon && anon !== own ? { ...anon, ...own } : own, failed: false, missing: missing.length > 0 ? missing : null };
    } catch {
      return { overrides: null, failed: true, missing: null };
    }
  }

  // Static cohorts hold persons in PostHog (cohortpeople by person id); here members are
  // stored by distinct id, so a person is a member through any of its distinct ids.
  function idsOfPerson(task: FlagTask, person: DistinctIdRecord | undefined): readonly string[] {
    if (!person) return [task.distinctId];
    return personRecordByDistinctId(store, task.projectId, task.distinctId)?.distinct_ids ?? [task.distinctId];
  }

  function evaluateOne(task: FlagTask, flags: ProjectFlags): FlagTaskResult {
    let readFailed = false;
    let person: ReturnType<typeof personByDistinctId>;
    try {
      person = personByDistinctId(store, task.projectId, task.distinctId);
    } catch {
      readFailed = true;
    }

    // Keyed by group types the request names: null-prototype, so "__proto__" is a key like any other.
    const groupProps: Record<string, Record<string, unknown>> = Object.create(null);
    for (const type in task.groups) {
      const index = flags.typeIndex.get(type);
      let stored: Record<string, unknown> | undefined;
      if (index !== undefined) {
        try {
          stored = groupProperties(store, task.projectId, index, task.groups[type]);
        } catch {
          readFailed = true;
        }
      }
      groupProps[type] = { $group_key: task.groups[type], ...stored, ...(Object.hasOwn(task.groupProperties, type) ? task.groupProperties[type] : undefined) };
    }

    const continuity = flags.continuityKeys.length > 0 ? readContinuity(task, person, flags.continuityKeys) : NO_CONTINUITY;
    const result = evaluateFlags(flags.compiled, {
      distinct_id: task.distinctId,
      person_properties: personPropertiesForEvaluation(person?.properties, { ...task.geo, ...task.personProperties }, task.distinctId),
      groups: task.groups,
      group_properties: groupProps,
      hash_key_overrides: continuity.overrides,
      anon_distinct_id: task.anonDistinctId,
      device_id: task.deviceId,
      flag_keys_to_evaluate: task.flagKeys,
      static_cohorts: flags.hasStaticCohorts ? staticCohortsOf(store, task.projectId, idsOfPerson(task, person)) : null,
      now: task.now,
    }, { hash_key_overrides_failed: continuity.failed });
    const final = readFailed ? { ...result, errors_while_computing_flags: true } : result;
    return { body: renderBody(task.protocol, final), errors: final.errors_while_computing_flags, missingOverrides: continuity.missing };
  }

  return function evaluateBatch(tasks: readonly FlagTask[]): BatchOutcome<FlagTaskResult> {
    const seen = new Set<number>();
    return settleEach(tasks, (task) => evaluateOne(task, projectFlags(task.projectId, seen)));
  };
}
