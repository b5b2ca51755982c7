// Piscina worker of the destinations pipeline (src/destinations/tasks.ts HogExecTasks): runs
// Hog bytecode only, so it never loads the parser; the pipeline's thread sends each task
// the functions it needs.
import { serveTasks } from '../src/pools/serve.js';
import { continueInvocation, startInvocations } from '../src/destinations/runtime/steps.js';
import type { HogExecTasks } from '../src/destinations/tasks.js';

export default serveTasks<HogExecTasks>({
  prepare: (task) => startInvocations(task),
  run: (task) => continueInvocation(task),
});
