// Tells internal destinations that the watcher disabled a function (hedgerow's own event,
// beside flag changes): the deliveries write each such change to the destinations store's
// outbox with the outcome that caused it (../runtime/outcomes.ts); the main thread of the
// node that delivers reads it every second and runs the project's internal destinations
// on `$activity_log_entry_created` with scope HogFunction, activity `disabled_by_watcher`,
// item_id the function's id, detail {name, type}. Transformations, which every node runs
// (../runtime/transform-watcher.ts), put theirs in each node's outbox: only the node that
// delivers tells them, the others forget theirs, so a team is told once.
import type { DestinationsStore } from '../runtime/env.js';
import type { DestinationsTables } from '../tables.js';
import { hogFunctionById } from '../store.js';
import { runInternalEvent, type InternalDeps } from './run-internal.js';

const EVERY_MS = 1000;

export function watchDisabled(
  ds: DestinationsStore, store: DestinationsTables, deps: InternalDeps, delivering: () => boolean, onError: (err: Error) => void,
): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    const due = [...ds.outbox.getRange({ limit: 100 })];
    if (due.length === 0) return;
    running = true;
    void (async () => {
      const tell = delivering();
      for (const { key, value } of due) {
        await ds.outbox.remove(key);
        if (!tell) continue;
        const fn = hogFunctionById(store, value.projectId, value.functionId);
        if (!fn) continue;
        await runInternalEvent(deps, {
          projectId: value.projectId, event: '$activity_log_entry_created', user: null,
          properties: {
            scope: 'HogFunction', activity: 'disabled_by_watcher', item_id: fn.id, created_at: new Date(key[0]).toISOString(),
            detail: { name: fn.name, type: fn.type, changes: null },
          },
        });
      }
    })().catch(onError).finally(() => { running = false; });
  }, EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
