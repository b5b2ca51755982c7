// The destinations' worker tasks, typed once for both ends (src/pools/):
// - the Hog pool the pipeline runs (workers/hog-exec.ts): prepare a batch of events'
//   invocations (filters, mappings, inputs, masking hash), and run or resume one
//   invocation up to its end or its next fetch;
// - the API's pool (workers/hog-api.ts), which loads the WASM parser: validate and compile
//   a create or update, and test-run a configuration (invocations/).
import type { Task } from '../pools/index.js';
import type { PrepareOutcome, PrepareTask } from './runtime/prepare.js';
import type { RunOutcome, RunTask } from './runtime/run-slice.js';

export type HogExecTasks = {
  prepare: Task<PrepareTask, PrepareOutcome[]>;
  run: Task<RunTask, RunOutcome>;
};
