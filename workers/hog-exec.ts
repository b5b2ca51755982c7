// Piscina worker of the destinations pipeline (src/destinations/tasks.ts HogExecTasks): runs
// Hog bytecode only, so it never loads the parser; the pipeline's thread sends each task
// the functions it needs. It keeps the programs suspended at a fetch until their continue
// step (src/destinations/runtime/steps.ts).
import { workerData } from 'piscina';
import { serveTasks } from '../src/pools/serve.js';
import { createSteps } from '../src/destinations/runtime/steps.js';
import type { HogExecTasks, HogWorkerData } from '../src/destinations/tasks.js';

const steps = createSteps((workerData as HogWorkerData).index);

export default serveTasks<HogExecTasks>({
  prepare: (task) => steps.start(task),
  run: (task) => steps.continue(task),
});
