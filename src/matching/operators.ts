// Property operators with PostHog server semantics, compiled once per filter into a test
// of one property value. `undefined` means the person (or group) lacks the property: then
// only the negative operators (is_not, not_icontains, not_regex, is_not_set, ...) match.
// Everything a filter needs (lower-cased targets, regexes, versions, dates) is prepared
// here so a test allocates nothing beyond the strings it reads.

import { parseAbsoluteDate, parseRelativeDate, propertyDate, resolveRelativeDate } from './dates.js';
import { compileSafeRegex } from './regex.js';
import { compareWith, parseVersion, requirementFor, satisfies } from './semver.js';
import type { SemverComparison } from './semver.js';
import { asciiLower, isBooleanish, isTruthy, numberRepresentation, stringRepresentation } from './values.js';

/** Tests one property value (undefined when absent) at the clock `now`. */
export type ValueTest = (value: unknown, now: number) => boolean;

export const PROPERTY_OPERATORS = [
  'exact', 'is_not', 'icontains', 'not_icontains', 'icontains_multi', 'not_icontains_multi',
  'starts_with', 'not_starts_with', 'ends_with', 'not_ends_with', 'regex', 'not_regex',
  'gt', 'gte', 'lt', 'lte', 'between', 'not_between', 'is_set', 'is_not_set',
  'is_date_before', 'is_date_after', 'is_date_exact',
  'semver_eq', 'semver_neq', 'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte',
  'semver_tilde', 'semver_caret', 'semver_wildcard',
] as const;

export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];

const never: ValueTest = () => false;
const whenAbsent: ValueTest = (v) => v === undefined;
const whenPresent: ValueTest = (v) => v !== undefined;

function exactTest(filterValue: unknown): (v: unknown) => boolean {
  if (isBooleanish(filterValue)) {
    const truthy = isTruthy(filterValue);
    return (v) => isTruthy(v) === truthy;
  }
  if (Array.isArray(filterValue)) {
    const targets = new Set(filterValue.map((x) => stringRepresentation(x).toLowerCase()));
    return (v) => targets.has(stringRepresentation(v).toLowerCase());
  }
  const target = stringRepresentation(filterValue).toLowerCase();
  return (v) => stringRepresentation(v).toLowerCase() === target;
}

function containsTest(filterValue: unknown): (v: unknown) => boolean {
  const needle = asciiLower(stringRepresentation(filterValue));
  return (v) => asciiLower(stringRepresentation(v)).includes(needle);
}

function containsAnyTest(filterValue: unknown): (v: unknown) => boolean {
  const needles = (Array.isArray(filterValue) ? filterValue : [filterValue]).map((x) =>
    asciiLower(stringRepresentation(x)),
  );
  return (v) => {
    const haystack = asciiLower(stringRepresentation(v));
    return needles.some((n) => haystack.includes(n));
  };
}

function affixTest(filterValue: unknown, prefix: boolean): (v: unknown) => boolean {
  const affix = asciiLower(stringRepresentation(filterValue));
  return prefix
    ? (v) => asciiLower(stringRepresentation(v)).startsWith(affix)
    : (v) => asciiLower(stringRepresentation(v)).endsWith(affix);
}

/** Negative operators match an absent property; positive ones don't. */
function polarized(test: (v: unknown) => boolean, negative: boolean): ValueTest {
  return negative ? (v) => v === undefined || !test(v) : (v) => v !== undefined && test(v);
}

function regexTest(filterValue: unknown, negative: boolean): ValueTest {
  const regex = compileSafeRegex(stringRepresentation(filterValue));
  if (regex === undefined) return negative ? whenAbsent : never;
  return polarized((v) => regex.test(stringRepresentation(v)), negative);
}

function numericTest(operator: 'gt' | 'gte' | 'lt' | 'lte', filterValue: unknown): ValueTest {
  const bound = numberRepresentation(filterValue);
  if (bound === undefined) return never;
  return (v) => {
    if (v === undefined) return false;
    const n = numberRepresentation(v);
    if (n === undefined) return false;
    switch (operator) {
      case 'gt': return n > bound;
      case 'gte': return n >= bound;
      case 'lt': return n < bound;
      case 'lte': return n <= bound;
    }
  };
}

function betweenTest(filterValue: unknown, negative: boolean): ValueTest {
  if (!Array.isArray(filterValue) || filterValue.length !== 2) return negative ? whenAbsent : never;
  const low = numberRepresentation(filterValue[0]);
  const high = numberRepresentation(filterValue[1]);
  if (low === undefined || high === undefined || Number.isNaN(low) || Number.isNaN(high) || low > high) {
    return negative ? whenAbsent : never;
  }
  return (v) => {
    if (v === undefined) return negative;
    const n = numberRepresentation(v);
    if (n === undefined || Number.isNaN(n)) return false;
    return (n >= low && n <= high) !== negative;
  };
}

const SEMVER_COMPARISONS: Readonly<Record<string, SemverComparison>> = {
  semver_eq: 'eq', semver_neq: 'neq', semver_gt: 'gt', semver_gte: 'gte', semver_lt: 'lt', semver_lte: 'lte',
};

function semverTest(operator: string, filterValue: unknown): ValueTest {
  const text = stringRepresentation(filterValue);
  if (operator === 'semver_tilde' || operator === 'semver_caret' || operator === 'semver_wildcard') {
    const requirement = requirementFor(operator, text);
    if (requirement === undefined) return never;
    return (v) => {
      if (v === undefined) return false;
      const version = parseVersion(stringRepresentation(v));
      return version !== undefined && satisfies(requirement, version);
    };
  }
  const comparison = SEMVER_COMPARISONS[operator];
  const target = parseVersion(text);
  if (target === undefined) return never;
  return (v) => {
    if (v === undefined) return false;
    const version = parseVersion(stringRepresentation(v));
    return version !== undefined && compareWith(comparison, version, target);
  };
}

function dateTest(operator: 'is_date_before' | 'is_date_after' | 'is_date_exact', filterValue: unknown): ValueTest {
  if (typeof filterValue !== 'string') return never;
  const relative = parseRelativeDate(filterValue);
  const absolute = relative === undefined ? parseAbsoluteDate(filterValue) : undefined;
  if (relative === undefined && absolute === undefined) return never;
  return (v, now) => {
    const date = propertyDate(v, now);
    if (date === undefined) return false;
    const bound = relative === undefined ? (absolute as number) : resolveRelativeDate(relative, now);
    if (operator === 'is_date_before') return date < bound;
    if (operator === 'is_date_after') return date > bound;
    return date === bound;
  };
}

/** The test for one operator and filter value; unknown operators never match. */
export function compileOperator(operator: string | null | undefined, filterValue: unknown): ValueTest {
  const op = operator ?? 'exact';
  if (op === 'is_set') return whenPresent;
  if (op === 'is_not_set') return whenAbsent;
  // A filter without a value matches nothing, whatever the operator.
  if (filterValue === null || filterValue === undefined) return never;
  switch (op) {
    case 'exact': return polarized(exactTest(filterValue), false);
    case 'is_not': return polarized(exactTest(filterValue), true);
    case 'icontains': return polarized(containsTest(filterValue), false);
    case 'not_icontains': return polarized(containsTest(filterValue), true);
    case 'icontains_multi': return polarized(containsAnyTest(filterValue), false);
    case 'not_icontains_multi': return polarized(containsAnyTest(filterValue), true);
    case 'starts_with': return polarized(affixTest(filterValue, true), false);
    case 'not_starts_with': return polarized(affixTest(filterValue, true), true);
    case 'ends_with': return polarized(affixTest(filterValue, false), false);
    case 'not_ends_with': return polarized(affixTest(filterValue, false), true);
    case 'regex': return regexTest(filterValue, false);
    case 'not_regex': return regexTest(filterValue, true);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return numericTest(op, filterValue);
    case 'between': return betweenTest(filterValue, false);
    case 'not_between': return betweenTest(filterValue, true);
    case 'is_date_before':
    case 'is_date_after':
    case 'is_date_exact':
      return dateTest(op, filterValue);
    case 'semver_eq':
    case 'semver_neq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte':
    case 'semver_tilde':
    case 'semver_caret':
    case 'semver_wildcard':
      return semverTest(op, filterValue);
    default:
      return never;
  }
}
