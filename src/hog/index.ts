// The Hog domain's public face: compile Hog source, input templates and hog function
// filters to PostHog bytecode, and run bytecode with bounded time, memory and async steps.

import { loadHogParser } from './parser.js';

/** Loads the WASM parser. Await it once (at start-up, never per request) before compiling. */
export function initHog(): Promise<void> {
  return loadHogParser();
}

export { compileProgram, compileExpression, DESTINATION_FUNCTIONS } from './program.js';
// Compiling throws SourceLimitError (not a diagnostic) for a source past the parser's bounds.
export { checkSource, MAX_SOURCE_BYTES, MAX_SOURCE_DEPTH, nestingDepth, SourceLimitError } from '../hogql/index.js';
export type { CompileResult, HogDiagnostic, ProgramOptions } from './program.js';
export type { Bytecode, BytecodeItem } from './opcodes.js';

export { compileHashTemplate } from './templates.js';
export { compileTemplateInputs, MASKED_SECRET_VALUE } from './inputs.js';
export type { CompiledInput, InputError, InputSchemaItem, InputsOptions, InputsResult } from './inputs.js';
export { compileFilters } from './filters/filters.js';
export type { EntityFilter, FiltersResult, HogFunctionFilters } from './filters/filters.js';
export type { ActionStep, CohortDefinition, FilterContext, PropertyFilter } from './filters/context.js';

export { execute, errorText, resumeWith, runSlice, runStraight } from './host.js';
export type {
  ExecuteOptions, ExecutionError, ExecutionReport, ExecutionTiming, FetchOptions, FetchResponse, HostFunctions, SliceReport, Suspension,
} from './host.js';
export { evaluateInputs, evaluateInputsDirect } from './evaluate-inputs.js';
export { NOT_DIRECT, readDirect } from './direct-read.js';
export type { InputsEvaluation } from './evaluate-inputs.js';
