// Retention of the destinations' working state: logs and metrics older than their windows
// (per function, over every stored function), done marks and failed deliveries beyond their week, masking
// counters whose window ended. Runs in the main thread of every node (with NATS each node
// keeps its own copy of the logs and metrics: docs/decisions/0034), at start and then hourly.
import type { DestinationsStore } from './env.js';
import type { DestinationsTables } from '../tables.js';
import { allHogFunctionIds } from '../store.js';
import { pruneMasks } from './masking.js';
import { pruneDone } from './queue.js';
import { pruneFailed } from './failed-deliveries.js';

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;

export interface RetentionWindows {
  logRetentionDays: number;
  metricRetentionDays: number;
}

export async function pruneOnce(store: DestinationsTables, ds: DestinationsStore, windows: RetentionWindows, nowMs: number): Promise<void> {
  const logCutoff = nowMs - windows.logRetentionDays * DAY_MS;
  const metricCutoff = nowMs - windows.metricRetentionDays * DAY_MS;
  for (const id of allHogFunctionIds(store)) {
    await ds.root.transaction(() => {
      for (const key of ds.logs.getKeys({ start: [id, 0], end: [id, logCutoff] })) ds.logs.remove(key);
      for (const key of ds.metrics.getKeys({ start: [id, 0], end: [id, metricCutoff] })) ds.metrics.remove(key);
    });
  }
  await pruneDone(ds, nowMs);
  await pruneFailed(ds, allHogFunctionIds(store), nowMs);
  await pruneMasks(ds, nowMs);
}

export function startRetention(store: DestinationsTables, ds: DestinationsStore, windows: RetentionWindows, now: () => number): { stop(): void } {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= pruneOnce(store, ds, windows, now()).catch((err) => {
      process.emitWarning(`destinations retention: ${err instanceof Error ? err.message : String(err)}`);
    }).finally(() => { running = null; });
  };
  const first = setTimeout(run, 1000);
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  first.unref();
  return { stop() { clearTimeout(first); clearInterval(timer); } };
}
