// The destinations' worker tasks, typed once for both ends (src/pools/):
// - the Hog pool the pipeline runs (workers/hog-exec.ts): prepare a batch of events'
//   invocations (filters, mappings, inputs, masking hash), and run or resume one
//   invocation up to its end or its next fetch;
// - the API's compile pool (workers/hog-api.ts), which loads the WASM parser: validate and
//   compile a create, an update or a test run's configuration (invocations/; the test run
//   itself runs its steps in a Hog pool of its own, src/destinations/api/pools.ts).
import type { Task } from '../pools/index.js';
import type { PrepareOutcome, PrepareTask } from './runtime/prepare.js';
import type { RunOutcome, RunTask } from './runtime/run-slice.js';
import type { ErrorBody } from '../errors.js';
import type { ValidationContext } from './api/validate.js';
import type { HogFunctionFields, StoredHogFunction } from './types.js';

export type HogExecTasks = {
  prepare: Task<PrepareTask, PrepareOutcome[]>;
  run: Task<RunTask, RunOutcome>;
};

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
};
