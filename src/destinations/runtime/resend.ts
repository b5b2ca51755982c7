// Sends failed deliveries again (./failed-deliveries.ts), for the API and `hedgerow
// destinations resend`: each kept request once more, oldest first, paced by the function's
// rate limit; one answered below 400 is delivered and forgotten, another stays kept with
// what happened. An endpoint that asks to be left alone (429 or 503 with Retry-After) stops
// the round: the rest stay for later.
import type { FetchOutcome, FetchRequest } from '../fetch/http-fetch.js';
import { failed, retryAfterMs } from '../fetch/fetch-rules.js';
import type { StoredHogFunction } from '../types.js';
import type { DestinationsStore } from './env.js';
import { failedOf, forgetFailed, keepFailed } from './failed-deliveries.js';
import type { FailedDelivery } from './env.js';

// At most this many per round (an API call waits for its round).
export const RESEND_MAX = 100;

export interface ResendResult {
  id: string;
  event_uuid: string;
  delivered: boolean;
  status: number | null;
  error: string | null;
}

export interface ResendRound {
  results: ResendResult[];
  // Kept still, after the round.
  remaining: number;
  // Why the round stopped early, if it did.
  stopped: string | null;
}

export async function resendFailed(
  ds: DestinationsStore, fn: StoredHogFunction, ids: readonly string[] | null, fetch: (r: FetchRequest) => Promise<FetchOutcome>, now: () => number,
): Promise<ResendRound> {
  const wanted = ids === null ? null : new Set(ids);
  const chosen = failedOf(ds, fn.id).filter((f) => wanted === null || wanted.has(f.id)).reverse().slice(0, RESEND_MAX);
  const gap = fn.rate_limit_per_second ? 1000 / fn.rate_limit_per_second : 0;
  const results: ResendResult[] = [];
  let stopped: string | null = null;
  for (const [i, f] of chosen.entries()) {
    if (i > 0 && gap > 0) await new Promise((r) => setTimeout(r, gap));
    let outcome: FetchOutcome;
    try {
      outcome = await fetch(f.request);
    } catch (err) {
      outcome = { ok: false, retryable: true, message: err instanceof Error ? err.message : String(err) };
    }
    const delivered = !failed(outcome);
    const status = outcome.ok ? outcome.status : null;
    const error = delivered ? null : outcome.ok ? `HTTP ${outcome.status}` : outcome.message;
    await ds.root.transaction(() => {
      if (delivered) forgetFailed(ds, f);
      else {
        const again: FailedDelivery = { ...f, resent: f.resent + 1, last_resent_at: new Date(now()).toISOString(), status, error: error! };
        keepFailed(ds, again);
      }
    });
    results.push({ id: f.id, event_uuid: f.event_uuid, delivered, status, error });
    const asked = retryAfterMs(outcome, now());
    if (asked !== null) {
      stopped = `the endpoint answered ${status} with Retry-After: ${Math.ceil(asked / 1000)} s`;
      break;
    }
  }
  return { results, remaining: failedOf(ds, fn.id).length, stopped };
}
