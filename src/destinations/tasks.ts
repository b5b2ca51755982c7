// The destinations' worker tasks, typed once for both ends (src/pools/):
// - the Hog pool the pipeline runs (workers/hog-exec.ts): prepare a chunk of events'
//   invocations (filters, mappings, inputs, masking hash) and run each program up to its
//   first fetch, and run or resume one invocation up to its end or its next fetch
//   (runtime/steps.ts);
// - the API's pool (workers/hog-api.ts), which loads the WASM parser: validate and compile
//   a create or update, and test-run a configuration (invocations/).
import type { Task } from '../pools/index.js';
import type { ContinueTask, StartResult, StartTask, StepOutcome } from './runtime/steps.js';
import type { ErrorBody } from '../errors.js';
import type { InvokeResult, InvokeTask } from './api/invoke.js';
import type { ValidationContext } from './api/validate.js';
import type { HogFunctionFields, StoredHogFunction } from './types.js';

export type HogExecTasks = {
  prepare: Task<StartTask, StartResult>;
  run: Task<ContinueTask, StepOutcome>;
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

export type HogApiTasks = {
  validate: Task<ValidateTask, ValidateResult>;
  invoke: Task<InvokeTask, InvokeResult>;
};
