// Public face of flag evaluation: compile definitions once, evaluate per request, project
// the result onto the protocol the client asked for. Pure: no I/O, the clock is an input.

export { compileFlags } from './compile.js';
export type { CompiledFlags } from './compile.js';
export { evaluateFlags } from './evaluate.js';
export { hash01 } from './hash.js';
export { personPropertiesForEvaluation } from './properties.js';
export {
  decideV1Body,
  decideV2Body,
  flagsV1Body,
  flagsV2Body,
  responseBody,
  responseProtocol,
} from './projection.js';
export type {
  DecideV1Body,
  DecideV2Body,
  FlagDetail,
  FlagsV1Body,
  FlagsV2Body,
  ResponseProtocol,
} from './projection.js';
export { FlagFiltersSchema, validateFlagFilters } from './schemas.js';
export type { FilterValidationError, FlagFilters } from './schemas.js';
export type * from './types.js';
export type { FlagsTables } from './tables.js';
export { cohortById, projectCohorts, staticCohortMembers } from './definitions/store.js';
export type { StoredCohort } from './definitions/types.js';
export { recordCohortCalculation } from './definitions/commands.js';
