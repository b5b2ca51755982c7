// Public face of property matching, as PostHog's evaluators read property values: the
// filter operators compiled once into tests, the value coercions they rest on (string and
// number forms, truthiness), relative and absolute dates, semantic versions, and regular
// expressions guarded against catastrophic backtracking (RE2). Pure: the clock is an
// argument. Flag evaluation, the persons list's filters and the insights planner share it.
export { compileOperator, PROPERTY_OPERATORS, type PropertyOperator, type ValueTest } from './operators.js';
export { asciiLower, isBooleanish, isTruthy, numberRepresentation, parseRustFloat, stringRepresentation } from './values.js';
export { compileSafeRegex, type SafeRegex } from './regex.js';
export { parseAbsoluteDate, parseDateString, parseRelativeDate, propertyDate, resolveRelativeDate, type RelativeDate } from './dates.js';
export { compareVersions, parseRequirement, parseVersion, requirementFor, satisfies, type Requirement, type Version } from './semver.js';
export { boundedMemo } from './bounded-memo.js';
export { COHORT_FILTER_TYPES } from './filter-types.js';
