// The property operators' semantics are the flag evaluator's (src/flags/): insights reuse
// its pure cores instead of a second reading of PostHog's rules. This is the one place the
// planner reaches them (they move to a shared module with the foundations refactor).
export { compileOperator, PROPERTY_OPERATORS } from '../../flags/operators.js';
export type { ValueTest } from '../../flags/operators.js';
export { compileSafeRegex } from '../../flags/regex.js';
export { isBooleanish, isTruthy, numberRepresentation, stringRepresentation } from '../../flags/values.js';
