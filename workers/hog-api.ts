// Piscina worker of the hog functions API (src/destinations/tasks.ts HogApiTasks): loads
// the WASM parser once, then compiles creates, updates and test runs' configurations, so
// they do not hold up the HTTP thread (compiling takes tens of milliseconds to seconds).
import { ApiError } from '../src/errors.js';
import { initHog } from '../src/hog/index.js';
import { serveTasks } from '../src/pools/serve.js';
import { recompiledFilters, validateHogFunction } from '../src/destinations/api/validate.js';
import type { HogApiTasks } from '../src/destinations/tasks.js';

await initHog();

export default serveTasks<HogApiTasks>({
  validate(task) {
    try {
      return { ok: true, fields: validateHogFunction(task.body, task.existing, task.ctx, task.maxExecutionOrder, task.enabledOfType) };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return { ok: false, status: err.status, error: err.body };
    }
  },
  refilter: (task) => recompiledFilters(task.fn, task.ctx),
});
