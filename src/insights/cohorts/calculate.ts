// Dynamic cohorts calculated: their member count (PostHog's `count`), when (`last_calculation`),
// failures (`errors_calculating`) and whether one is due (`is_calculating`). Membership itself
// is worked out in the columnar store whenever a query reads a cohort (planner/properties.ts
// cohortMembersSql, docs/decisions/0040): what is calculated here is what the cohort API
// shows. A cohort is due when created or when its filters change (the write sets
// is_calculating: picked up at the next tick) and again once its last calculation is
// `intervalMs` old. One at a time, as a HogQL count through the engine (embedded worker or
// NATS replicas), reflecting every event logged when it started.
import type { ActionsTables } from '../../actions/index.js';
import type { FlagsTables, StoredCohort } from '../../flags/index.js';
import { recordCohortCalculation } from '../../flags/index.js';
import type { StateWrites } from '../../state/index.js';
import type { InsightsEngine } from '../engine.js';
import { cohortsOf, withCohortActions } from '../api/query-service.js';
import { QueryError } from '../planner/errors.js';

export interface CohortCalculationOptions {
  store: FlagsTables & ActionsTables;
  writes: StateWrites;
  engine: InsightsEngine;
  now(): number;
  /** How old a calculation may grow before the cohort is calculated again (ms). */
  intervalMs: number;
  /** How often due cohorts are looked for (ms). */
  tickMs: number;
  onError?(err: Error): void;
}

/** The query that counts a cohort's members. */
export const countQuery = (id: number) => ({ kind: 'HogQLQuery', query: `select count() from persons where id in cohort ${id}` });

export function isDue(c: StoredCohort, nowMs: number, intervalMs: number): boolean {
  if (c.deleted || c.is_static) return false;
  if (c.is_calculating === true) return true;
  const last = c.last_calculation ? Date.parse(c.last_calculation) : NaN;
  return Number.isNaN(last) || nowMs - last >= intervalMs;
}

/** Counts one cohort's members now (a query error is a failed calculation, recorded as such). */
export async function calculateCohort(opts: Pick<CohortCalculationOptions, 'store' | 'writes' | 'engine' | 'now'>, cohort: StoredCohort, signal?: AbortSignal): Promise<number | null> {
  const startedAt = opts.now();
  const query = countQuery(cohort.id);
  let count: number | null = null;
  try {
    const cohorts = cohortsOf(opts.store, cohort.project_id, query);
    const context = { projectId: cohort.project_id, timezone: 'UTC', weekStart: 0 as const, nowMs: startedAt, cohorts, actions: withCohortActions(opts.store, cohort.project_id, cohorts) };
    const { response } = await opts.engine.run(query, context, signal, await opts.engine.position());
    count = Number((response.results as unknown[][])[0][0]);
  } catch (err) {
    // A cohort the store cannot compute fails its calculation; an engine that did not answer
    // (down, starting) leaves it due for the next tick.
    if (!(err instanceof QueryError)) throw err;
  }
  await recordCohortCalculation(opts.writes, {
    project_id: cohort.project_id, id: cohort.id, filters: JSON.stringify(cohort.filters), count, at: new Date(startedAt).toISOString(),
  });
  return count;
}

/** Starts the schedule; close() stops it and interrupts the calculation in progress. */
export function startCohortCalculation(opts: CohortCalculationOptions): { close(): Promise<void> } {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    const now = opts.now();
    const due: StoredCohort[] = [];
    for (const { value } of opts.store.cohorts.getRange({})) {
      if (isDue(value as StoredCohort, now, opts.intervalMs)) due.push(value as StoredCohort);
    }
    for (const cohort of due) {
      if (abort.signal.aborted) return;
      await calculateCohort(opts, cohort, abort.signal);
    }
  };
  const schedule = () => {
    timer = setTimeout(() => {
      running = tick().catch((err: unknown) => {
        if (!abort.signal.aborted) opts.onError?.(err instanceof Error ? err : new Error(String(err)));
      }).finally(() => { if (!abort.signal.aborted) schedule(); });
    }, opts.tickMs);
    timer.unref();
  };
  schedule();
  return {
    async close() {
      abort.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
