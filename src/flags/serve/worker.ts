// The flag worker's task server (workers/flags.ts runs it on the store it opens; a test
// runs it on a store of its own): batches of flag requests go to the evaluator, and each
// batch begins with a fresh read snapshot. lmdb-js ends a read snapshot only from a timer
// of this thread's event loop, so a batch taken in the same loop turn as the one before
// would read the definitions as they were then, missing a change the management API has
// already answered for.
import type { FlagsTables } from '../tables.js';
import type { PersonsTables } from '../../persons/index.js';
import { serveTasks } from '../../pools/index.js';
import { createBatchEvaluator } from './evaluate-batch.js';
import type { FlagTasks } from '../tasks.js';

export function flagTaskServer(store: FlagsTables & PersonsTables & { root: { resetReadTxn(): void } }) {
  return serveTasks<FlagTasks>({ evaluate: { batch: createBatchEvaluator(store) } }, { beforeEach: () => store.root.resetReadTxn() });
}
