// Evaluates compiled flags for one person (or group), following PostHog's /flags service:
// early access first, then the holdout, then conditions in stored order where the first
// full match wins; otherwise the most informative failure is reported. Synchronous and
// pure: the clock and every stored fact arrive in the context.

import { cohortFilterMatches } from './cohorts.js';
import type { CohortMemo, EvaluationFailure } from './cohorts.js';
import { CheckKind } from './compile.js';
import type { Check, CompiledCondition, CompiledFlag, CompiledFlags } from './compile.js';
import { hash01 } from './hash.js';
import type { PropertyLookup } from './properties.js';
import { Rank, reason } from './reasons.js';
import type {
  CohortMembership,
  EvaluateOptions,
  EvaluationContext,
  EvaluationResult,
  FlagEvaluation,
  FlagReason,
  Properties,
} from './types.js';

const EMPTY: Properties = Object.freeze({});
const NO_COHORTS: CohortMemo = new Uint8Array(0);

const NO_CONDITION_RAN = reason('no_group_type', null);
const SUPER_CONDITION = reason('super_condition_value', 0);
const HOLDOUT = reason('holdout_condition_value', null);
const MISSING_DEPENDENCY = reason('missing_dependency', null);
const HASH_KEY_OVERRIDE_FAILED = reason('hash_key_override_error', null);

/** Everything one evaluation reads, gathered once. */
interface Run {
  readonly distinctId: string;
  readonly person: Properties;
  readonly groups: Readonly<Record<string, unknown>>;
  readonly groupProperties: Readonly<Record<string, Properties>>;
  readonly hashKeyOverrides: Readonly<Record<string, string>> | null;
  readonly anonDistinctId: string | null;
  readonly deviceId: string;
  readonly staticCohorts: CohortMembership | null;
  readonly now: number;
  readonly values: (boolean | string | undefined)[];
  readonly cohortMemo: CohortMemo;
}

function groupKey(run: Run, groupName: string | undefined): string | undefined {
  if (groupName === undefined) return undefined;
  const key = run.groups[groupName];
  if (typeof key === 'string') return key === '' ? undefined : key;
  return typeof key === 'number' ? String(key) : undefined;
}

function groupProperties(run: Run, groupName: string | undefined): Properties {
  return (groupName === undefined ? undefined : run.groupProperties[groupName]) ?? EMPTY;
}

/**
 * Who is bucketed: the group for group conditions; for persons the device when the flag
 * buckets by device, else (experience continuity) the stored hash key, then the request's
 * $anon_distinct_id, and finally the distinct_id.
 */
function hashedIdentifier(flag: CompiledFlag, groupName: string | undefined, aggregated: boolean, run: Run, useStoredKeys: boolean): string {
  if (aggregated) return groupKey(run, groupName) ?? '';
  if (flag.deviceBucketing && run.deviceId !== '') return run.deviceId;
  const overrides = run.hashKeyOverrides;
  if (useStoredKeys && overrides !== null && Object.hasOwn(overrides, flag.key)) return overrides[flag.key];
  if (flag.continuity && run.anonDistinctId !== null) return run.anonDistinctId;
  return run.distinctId;
}

/** Rollout and variant hash; an empty identifier hashes to 0.0 as in PostHog. */
function conditionHash(flag: CompiledFlag, condition: CompiledCondition, salt: string, run: Run): number {
  const id = hashedIdentifier(flag, condition.groupName, condition.aggregation !== null, run, true);
  return id === '' ? 0 : hash01(flag.hashPrefix, id, salt);
}

function flagCheckMatches(target: number, expected: boolean | string | undefined, run: Run): boolean {
  // A dependency that failed (or was not evaluated) has no value and matches nothing.
  const value = target < 0 ? undefined : run.values[target];
  if (value === undefined || expected === undefined) return false;
  if (expected === true) return value !== false;
  if (expected === false) return value === false;
  return value === expected;
}

function checkMatches(check: Check, condition: CompiledCondition, run: Run): boolean {
  switch (check.kind) {
    case CheckKind.Person:
      return check.test(check.lookup(run.person), run.now);
    case CheckKind.Group:
      return check.test(check.lookup(groupProperties(run, check.groupName)), run.now);
    case CheckKind.Subject: {
      const subject = condition.aggregation === null ? run.person : groupProperties(run, condition.groupName);
      return check.test(check.lookup(subject), run.now);
    }
    case CheckKind.Flag:
      return flagCheckMatches(check.target, check.expected, run);
  }
}

/** ConditionMatch, OutOfRolloutBound (filters matched, rollout did not) or NoConditionMatch. */
function conditionRank(flag: CompiledFlag, condition: CompiledCondition, run: Run): Rank {
  for (const check of condition.checks) if (!checkMatches(check, condition, run)) return Rank.NoConditionMatch;
  for (const c of condition.cohortChecks) {
    if (!cohortFilterMatches(c.target, c.membership, run.person, run.staticCohorts, run.cohortMemo, run.now)) {
      return Rank.NoConditionMatch;
    }
  }
  if (condition.fullRollout) return Rank.ConditionMatch;
  return conditionHash(flag, condition, '', run) <= condition.threshold ? Rank.ConditionMatch : Rank.OutOfRolloutBound;
}

function matchingVariant(flag: CompiledFlag, condition: CompiledCondition, run: Run): string | null {
  if (condition.variantOverride !== null) return condition.variantOverride;
  const boundaries = flag.variantBoundaries;
  if (boundaries.length === 0) return null;
  const h = conditionHash(flag, condition, 'variant', run);
  for (let i = 0; i < boundaries.length; i++) if (h < boundaries[i]) return flag.variantKeys[i];
  return null;
}

function outcome(flag: CompiledFlag, enabled: boolean, variant: string | null, why: FlagReason, payload: unknown): FlagEvaluation {
  return {
    key: flag.key,
    id: flag.id,
    version: flag.version,
    enabled,
    variant,
    value: variant ?? enabled,
    payload,
    reason: why,
    failed: false,
  };
}

function failed(flag: CompiledFlag, why: FlagReason): FlagEvaluation {
  return {
    key: flag.key,
    id: flag.id,
    version: flag.version,
    enabled: false,
    variant: null,
    value: false,
    payload: null,
    reason: why,
    failed: true,
  };
}

function anyPresent(lookups: readonly PropertyLookup[], properties: Properties): boolean {
  for (const lookup of lookups) if (lookup(properties) !== undefined) return true;
  return false;
}

function inHoldout(flag: CompiledFlag, run: Run): boolean {
  const holdout = flag.holdout;
  if (holdout === null) return false;
  if (holdout.always) return true;
  // Holdouts hash even an empty identifier, and never read stored hash keys.
  const id = hashedIdentifier(flag, flag.groupName, flag.aggregation !== null, run, false);
  return hash01('holdout-', id, '') <= holdout.threshold;
}

function evaluateFlag(flag: CompiledFlag, run: Run): FlagEvaluation {
  if (flag.dependencyStatus !== 'ok') return outcome(flag, false, null, MISSING_DEPENDENCY, null);

  // Early access decides alone when the person has the enrollment. PostHog attaches the
  // "true" payload here whether or not the person is enrolled.
  if (flag.enrollment !== null) {
    const enrolled = flag.enrollment(run.person);
    if (enrolled !== undefined) {
      return outcome(flag, enrolled === true || enrolled === 'true', null, SUPER_CONDITION, flag.truePayload);
    }
  } else if (flag.superCondition !== null && anyPresent(flag.superConditionKeys, run.person)) {
    const matched = conditionRank(flag, flag.superCondition, run) === Rank.ConditionMatch;
    return outcome(flag, matched, null, SUPER_CONDITION, flag.truePayload);
  }

  if (inHoldout(flag, run)) {
    const holdout = flag.holdout!;
    return outcome(flag, true, holdout.variant, HOLDOUT, holdout.payload);
  }

  let bestRank = Rank.NoGroupType;
  let best: CompiledCondition | null = null;
  let skippedGroups = false;
  // Bucketing by device without a device: person conditions cannot place anyone.
  const deviceless = flag.deviceBucketing && run.deviceId === '';
  const conditions = flag.conditions;
  for (let i = 0; i < conditions.length; i++) {
    const condition = conditions[i];
    let rank: Rank;
    let ran = false;
    if (condition.aggregation === null) {
      if (deviceless) rank = Rank.OutOfRolloutBound;
      else {
        rank = conditionRank(flag, condition, run);
        ran = true;
      }
    } else if (groupKey(run, condition.groupName) === undefined) {
      skippedGroups = true;
      rank = Rank.NoGroupType;
    } else {
      rank = conditionRank(flag, condition, run);
      ran = true;
    }
    if (rank >= bestRank) {
      bestRank = rank;
      best = condition;
    }
    if (rank === Rank.ConditionMatch) {
      const variant = matchingVariant(flag, condition, run);
      const payload = variant === null ? flag.truePayload : (flag.payloads.get(variant) ?? null);
      return outcome(flag, true, variant, condition.reasons.byRank[rank], payload);
    }
    if (ran && rank === Rank.OutOfRolloutBound && flag.earlyExit) break;
  }

  if (best === null) return outcome(flag, false, null, NO_CONDITION_RAN, null);
  const why =
    bestRank === Rank.NoConditionMatch && skippedGroups ? best.reasons.groupsNotEvaluated : best.reasons.byRank[bestRank];
  return outcome(flag, false, null, why, null);
}

function isFailure(e: unknown): e is EvaluationFailure {
  return typeof e === 'object' && e !== null && typeof (e as EvaluationFailure).code === 'string' && !(e instanceof Error);
}

/** Flags to evaluate: all, or the requested ones and what they depend on. */
function selection(compiled: CompiledFlags, keys: readonly string[] | null | undefined): Uint8Array | null {
  if (keys === null || keys === undefined) return null;
  const selected = new Uint8Array(compiled.flags.length);
  for (const key of keys) {
    const i = compiled.byKey.get(key);
    if (i !== undefined) for (const j of compiled.flags[i].closure) selected[j] = 1;
  }
  return selected;
}

export function evaluateFlags(compiled: CompiledFlags, context: EvaluationContext, options?: EvaluateOptions): EvaluationResult {
  const run: Run = {
    distinctId: context.distinct_id,
    person: context.person_properties ?? EMPTY,
    groups: context.groups ?? EMPTY,
    groupProperties: context.group_properties ?? EMPTY as Readonly<Record<string, Properties>>,
    hashKeyOverrides: context.hash_key_overrides ?? null,
    anonDistinctId: context.anon_distinct_id ?? null,
    deviceId: context.device_id ?? '',
    staticCohorts: context.static_cohorts ?? null,
    now: context.now,
    values: compiled.hasDependencies ? compiled.initialValues.slice() : [],
    cohortMemo: compiled.cohorts.size > 0 ? new Uint8Array(compiled.cohorts.size) : NO_COHORTS,
  };
  const selected = selection(compiled, context.flag_keys_to_evaluate);
  const hashKeysFailed = options?.hash_key_overrides_failed === true;
  const flags: FlagEvaluation[] = [];
  let errors = false;

  for (const i of compiled.order) {
    const flag = compiled.flags[i];
    if (!flag.evaluable || (selected !== null && selected[i] === 0)) continue;
    let result: FlagEvaluation;
    if (hashKeysFailed && flag.continuity) {
      result = failed(flag, HASH_KEY_OVERRIDE_FAILED);
    } else {
      try {
        result = evaluateFlag(flag, run);
      } catch (e) {
        if (!isFailure(e)) throw e;
        result = failed(flag, reason(e.code, null));
      }
    }
    if (result.failed) errors = true;
    else {
      if (flag.dependencyStatus === 'cycle') errors = true;
      if (compiled.hasDependencies) run.values[i] = result.value;
    }
    flags.push(result);
  }
  return { flags, errors_while_computing_flags: errors };
}
