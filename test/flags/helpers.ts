// Small builders so each test states only the part of a flag it is about.

import { compileFlags, evaluateFlags } from '../../src/flags/index.js';
import type {
  EvaluateOptions,
  EvaluationContext,
  FlagDefinition,
  FlagDefinitions,
  FlagEvaluation,
  FlagFiltersDefinition,
  PropertyFilterDefinition,
} from '../../src/flags/index.js';
import { compileOperator } from '../../src/matching/index.js';
import { NOW } from './conformance.js';

export function flag(key: string, filters: FlagFiltersDefinition, extra: Partial<FlagDefinition> = {}): FlagDefinition {
  return { id: key.length, key, version: 1, active: true, filters, ...extra };
}

/** Evaluates definitions for a context (distinct_id "user-1" and the test clock unless given). */
export function evaluate(
  definitions: FlagDefinitions,
  context: Partial<EvaluationContext> = {},
  options?: EvaluateOptions,
): Map<string, FlagEvaluation> {
  const result = evaluateFlags(compileFlags(definitions), { distinct_id: 'user-1', now: NOW, ...context }, options);
  return new Map(result.flags.map((f) => [f.key, f]));
}

export function evaluateOne(filters: FlagFiltersDefinition, context: Partial<EvaluationContext> = {}): FlagEvaluation {
  return evaluate({ flags: [flag('f', filters)] }, context).get('f')!;
}

/** One condition targeting person properties with these filters. */
export function personCondition(...properties: PropertyFilterDefinition[]): FlagFiltersDefinition {
  return { groups: [{ properties, rollout_percentage: 100 }] };
}

/** Does `value` (undefined: absent) satisfy `operator` against `filterValue` at the test clock? */
export function matches(operator: string, filterValue: unknown, value: unknown, now = NOW): boolean {
  return compileOperator(operator, filterValue)(value, now);
}
