// Piscina worker of the Hog programs (src/destinations/tasks.ts HogExecTasks): runs Hog
// bytecode only, so it never loads the parser; its caller sends each task the functions it
// needs. For the pipeline it keeps the programs suspended at a fetch until their continue
// step (src/destinations/runtime/steps.ts); for a test run it prepares and runs as asked.
import { workerData } from 'piscina';
import { serveTasks } from '../src/pools/serve.js';
import { prepareInvocations } from '../src/destinations/runtime/prepare.js';
import { runInvocationSlice } from '../src/destinations/runtime/run-slice.js';
import { createSteps } from '../src/destinations/runtime/steps.js';
import { runTransformation } from '../src/destinations/runtime/transform-run.js';
import { evaluateInputs } from '../src/hog/index.js';
import type { HogExecTasks, HogWorkerData } from '../src/destinations/tasks.js';

const steps = createSteps((workerData as Partial<HogWorkerData> | undefined)?.index ?? 0);

export default serveTasks<HogExecTasks>({
  start: (task) => steps.start(task),
  continue: (task) => steps.continue(task),
  prepare: (task) => prepareInvocations(task),
  run: (task) => runInvocationSlice(task),
  transform: (task) => runTransformation(task),
  // hogvm's default budget, as the pipeline's inputs.
  inputs: (task) => evaluateInputs(task.inputs, task.globals, { timeoutMs: 5_000 }),
});
