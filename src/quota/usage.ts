// The feature flag quota of an organization as the API and the CLI show it.
import type { Store } from '../store/env.js';
import { flagQuota, flagUsage, isFlagQuotaExceeded } from './meter.js';
import { billingPeriod } from './period.js';

export function flagQuotaReport(store: Store, orgId: string, now: number) {
  const period = billingPeriod(now);
  return {
    limit: flagQuota(store, orgId),
    usage: flagUsage(store, orgId, now),
    period_start: period.start,
    period_end: period.end,
    quota_limited: isFlagQuotaExceeded(store, orgId, now),
  };
}

/** A limit as given: a whole number, or null / "unlimited" for none. */
export function parseLimit(raw: unknown): number | null | undefined {
  if (raw === null || raw === 'unlimited') return null;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
