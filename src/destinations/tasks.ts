// The destinations' worker tasks, typed once for both ends (src/pools/):
// - the Hog workers (workers/hog-exec.ts): for the pipeline, start a chunk of events'
//   invocations (filters, mappings, inputs, masking hash, each program up to its first
//   fetch) and continue one (runtime/steps.ts); for a test run, prepare an event's
//   invocations and run or resume one up to its end or its next fetch;
// - the API's compile pool (workers/hog-api.ts), which loads the WASM parser: validate and
//   compile a create, an update or a test run's configuration (invocations/; the test run
//   itself runs its steps in a Hog pool of its own, src/destinations/api/pools.ts);
// - for the event store, one transformation on a chunk of events (runtime/transformer.ts);
//   for a source webhook's request, its inputs (api/source-webhook.ts).
import type { Task } from '../pools/index.js';
import type { PrepareOutcome, PrepareTask } from './runtime/prepare.js';
import type { RunOutcome, RunTask } from './runtime/run-slice.js';
import type { ContinueTask, StartResult, StartTask, StepOutcome } from './runtime/steps.js';
import type { TransformOutcome, TransformTask } from './runtime/transform-run.js';
import type { CompiledInput, InputsEvaluation } from '../hog/index.js';
import type { ErrorBody } from '../errors.js';
import type { ValidationContext } from './api/validate.js';
import type { HogFunctionFields, StoredHogFunction } from './types.js';

export type HogExecTasks = {
  start: Task<StartTask, StartResult>;
  continue: Task<ContinueTask, StepOutcome | null>;
  prepare: Task<PrepareTask, PrepareOutcome[]>;
  run: Task<RunTask, RunOutcome>;
  transform: Task<TransformTask, TransformOutcome[]>;
  // A function's inputs evaluated on the given globals (a source webhook's request).
  inputs: Task<{ inputs: Record<string, CompiledInput>; globals: Record<string, unknown> }, InputsEvaluation>;
};

// Each Hog worker's data: its place among them (runtime/hog-pools.ts).
export interface HogWorkerData {
  index: number;
}

// A create or update validated and compiled, or the error to answer with.
export interface ValidateTask {
  body: Record<string, unknown>;
  existing: StoredHogFunction | null;
  ctx: ValidationContext;
  maxExecutionOrder: number;
  // Enabled, not deleted functions of the same type in the project, this one excepted.
  enabledOfType: number;
}
export type ValidateResult = { ok: true; fields: HogFunctionFields } | { ok: false; status: number; error: ErrorBody };

// A stored function's filters compiled again (an action they name changed).
export interface RefilterTask {
  fn: StoredHogFunction;
  ctx: ValidationContext;
}

export type HogApiTasks = {
  validate: Task<ValidateTask, ValidateResult>;
  refilter: Task<RefilterTask, Pick<StoredHogFunction, 'filters' | 'mappings'>>;
};
