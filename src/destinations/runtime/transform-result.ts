// What a transformation's outcome does to its event, by PostHog's ingestion rules (pure):
// - no result (null, false, …): the event is dropped, and no later transformation runs;
// - a result without a `properties` dict: the transformation failed, the event goes on as it was;
// - otherwise the event takes the result's properties, then its `event` and `distinct_id`
//   when it has them: each must be a string, else the transformation failed (the properties
//   it set stay, as in PostHog);
// - filtered out (or its filters failed): skipped; any other error: failed, the event unchanged.
// Each transformation is named `name (id)` in the event's `$transformations_succeeded`,
// `$transformations_failed` or `$transformations_skipped`, after those the event came with.
import type { TransformInput, TransformOutcome } from './transform-run.js';

export type Verdict = 'succeeded' | 'failed' | 'skipped' | 'dropped';

export interface Applied {
  verdict: Verdict;
  // Why it failed, for the function's log (the program's own error is logged apart).
  reason: string | null;
}

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// Applies one outcome to `ev` in place.
export function applyOutcome(ev: TransformInput, outcome: TransformOutcome): Applied {
  if (outcome.kind === 'filtered' || outcome.kind === 'filtering_failed') return { verdict: 'skipped', reason: null };
  if (outcome.kind !== 'returned') return { verdict: 'failed', reason: null };
  const result = outcome.result;
  if (!result) return { verdict: 'dropped', reason: null };
  if (!isDict(result) || !isDict(result.properties)) {
    return { verdict: 'failed', reason: `Invalid transformation result for event ${ev.uuid}: missing or invalid properties` };
  }
  ev.properties = { ...result.properties };
  if ('event' in result) {
    if (typeof result.event !== 'string') return { verdict: 'failed', reason: `Invalid transformation result for event ${ev.uuid}: event name must be a string` };
    ev.event = result.event;
  }
  if ('distinct_id' in result) {
    if (typeof result.distinct_id !== 'string') return { verdict: 'failed', reason: `Invalid transformation result for event ${ev.uuid}: distinct_id must be a string` };
    ev.distinct_id = result.distinct_id;
  }
  return { verdict: 'succeeded', reason: null };
}

export interface Verdicts {
  succeeded: string[];
  failed: string[];
  skipped: string[];
}

const PROPERTY: Record<keyof Verdicts, string> = {
  succeeded: '$transformations_succeeded', failed: '$transformations_failed', skipped: '$transformations_skipped',
};

// The lists an event came with (a transformation replacing its properties does not lose them).
export function startVerdicts(ev: TransformInput): Verdicts {
  const list = (key: keyof Verdicts) => {
    const v = ev.properties[PROPERTY[key]];
    return Array.isArray(v) ? v.map(String) : [];
  };
  return { succeeded: list('succeeded'), failed: list('failed'), skipped: list('skipped') };
}

// The lists set on the transformed event's properties, those that have entries (failed, skipped, succeeded).
export function recordVerdicts(ev: TransformInput, verdicts: Verdicts): void {
  for (const key of ['failed', 'skipped', 'succeeded'] as const) {
    if (verdicts[key].length > 0) ev.properties = { ...ev.properties, [PROPERTY[key]]: verdicts[key] };
  }
}
