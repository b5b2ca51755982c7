// When a hog function was off (disabled or deleted), so that what matched then is not run
// (PostHog's rule: a disabled function's invocations are not made, and those queued are
// dropped). PostHog decides by the function's state when its consumer reads the event, and
// its consumer keeps up with capture; the destinations consumer here may run minutes
// behind, so the time the event was captured decides: an event captured while the function
// was off is not run by it, however late the consumer reads it.
import type { HogFunctionFields, StoredHogFunction } from './types.js';

// Periods kept per function (the oldest dropped): a consumer further behind than the last
// few switches is rare, and the check runs per event.
const KEPT = 8;

const on = (fn: Pick<StoredHogFunction, 'enabled' | 'deleted'>) => fn.enabled && !fn.deleted;

/** What an update changes of the function's off record: set as it goes off, a period closed as it comes on. */
export function offOrOn(existing: StoredHogFunction, fields: HogFunctionFields, now: string): Partial<StoredHogFunction> {
  if (on(existing) && !on(fields)) return { disabled_at: now };
  if (!on(existing) && on(fields)) {
    const from = existing.disabled_at ?? existing.created_at;
    return { disabled_at: undefined, off_periods: [...(existing.off_periods ?? []), [from, now] as [string, string]].slice(-KEPT) };
  }
  return {};
}

/** The periods in epoch ms, flat ([from, to, from, to, …]); null when there are none. */
export function offPeriodsMs(fn: Pick<StoredHogFunction, 'off_periods'>): number[] | null {
  const periods = fn.off_periods;
  if (periods === undefined || periods.length === 0) return null;
  return periods.flatMap(([from, to]) => [Date.parse(from), Date.parse(to)]);
}

/** Whether `capturedMs` lies in one of the periods. */
export function capturedWhileOff(periods: number[], capturedMs: number): boolean {
  for (let i = 0; i < periods.length; i += 2) if (capturedMs >= periods[i] && capturedMs < periods[i + 1]) return true;
  return false;
}

/** When the function last came on again (the end of its last off period), epoch ms; null when never. */
export function resumedAtMs(fn: Pick<StoredHogFunction, 'off_periods'>): number | null {
  const last = fn.off_periods?.at(-1);
  return last === undefined ? null : Date.parse(last[1]);
}
