// Public face of worker pools: the task types every domain's tasks.ts uses, the
// main-thread factory and the worker-side server.
export type { BatchOutcome, Task, TaskMap, TaskRunner } from './tasks.js';
export { createLazyWorkerPool, createWorkerPool, PoolClosedError, PoolOverloadedError, TaskDeadlineError, TaskFailedError, type WorkerPool, type WorkerPoolOptions } from './create.js';
export { createLanedPool, type LanedPoolOptions } from './lanes.js';
export { serveTasks, settleEach, type TaskHandlers } from './serve.js';
