// Feature flag request quotas per organization: a limit (none by default) and the usage
// of the current billing period. Counting must cost a request almost nothing, so each
// thread counts in memory and adds its counts to LMDB about once a second (additions,
// so several threads and processes can count for one organization); limits and the
// stored usage are re-read at most once a second. A limit of N lets N requests through
// in a period; the next ones are quota-limited.
import type { Store } from '../store/env.js';
import { billingPeriod } from './period.js';

const REFRESH_MS = 1000;
const FLUSH_MS = 1000;
const RESOURCE = 'feature_flag_requests';

interface Cached<T> {
  value: T;
  readAt: number;
}

interface Meter {
  // `${org}\0${period}` → requests counted here and not yet in LMDB.
  pending: Map<string, number>;
  stored: Map<string, Cached<number>>;
  limits: Map<string, Cached<number | null>>;
  timer: NodeJS.Timeout | null;
}

const meters = new WeakMap<Store, Meter>();

// The period of the last call: every request asks, and months change rarely.
let lastPeriod = { key: '', start: 0, end: 0 };
function periodKey(now: number): string {
  if (now < lastPeriod.start || now >= lastPeriod.end) {
    const p = billingPeriod(now);
    lastPeriod = { key: p.key, start: Date.parse(p.start), end: Date.parse(p.end) };
  }
  return lastPeriod.key;
}

function meterOf(store: Store): Meter {
  let m = meters.get(store);
  if (!m) meters.set(store, (m = { pending: new Map(), stored: new Map(), limits: new Map(), timer: null }));
  return m;
}

const usageKey = (orgId: string, period: string) => ['usage', orgId, RESOURCE, period];

function cached<T>(cache: Map<string, Cached<T>>, key: string, now: number, read: () => T): T {
  const hit = cache.get(key);
  if (hit && now >= hit.readAt && now - hit.readAt < REFRESH_MS) return hit.value;
  const value = read();
  cache.set(key, { value, readAt: now });
  return value;
}

/** The organization's feature flag request limit per period; null is unlimited. */
export function flagQuota(store: Store, orgId: string): number | null {
  return (store.quota.get(['limit', orgId, RESOURCE]) as number | null | undefined) ?? null;
}

export function setFlagQuota(store: Store, orgId: string, limit: number | null): void {
  store.quota.putSync(['limit', orgId, RESOURCE], limit);
  meters.get(store)?.limits.delete(orgId);
}

/** Requests counted in the period of `now`, this thread's unflushed ones included. */
export function flagUsage(store: Store, orgId: string, now: number): number {
  const period = periodKey(now);
  const key = `${orgId}\0${period}`;
  const m = meterOf(store);
  const stored = cached(m.stored, key, now, () => (store.quota.get(usageKey(orgId, period)) as number | undefined) ?? 0);
  return stored + (m.pending.get(key) ?? 0);
}

/** Counts one feature flag request (a /decide, /flags or local-evaluation call) of the organization. */
export function recordFlagRequest(store: Store, orgId: string, now: number): void {
  const m = meterOf(store);
  const key = `${orgId}\0${periodKey(now)}`;
  m.pending.set(key, (m.pending.get(key) ?? 0) + 1);
  if (!m.timer) {
    m.timer = setTimeout(() => flushFlagUsage(store), FLUSH_MS);
    m.timer.unref();
  }
}

/** Whether the organization has used up its feature flag requests for the period of `now`. */
export function isFlagQuotaExceeded(store: Store, orgId: string, now: number): boolean {
  const limit = cached(meterOf(store).limits, orgId, now, () => flagQuota(store, orgId));
  return limit !== null && flagUsage(store, orgId, now) >= limit;
}

/** Adds this thread's counts to LMDB. Runs a second after a count; call it before closing the store. */
export function flushFlagUsage(store: Store): void {
  const m = meters.get(store);
  if (!m) return;
  if (m.timer) clearTimeout(m.timer);
  m.timer = null;
  if (m.pending.size === 0) return;
  const pending = m.pending;
  m.pending = new Map();
  store.quota.transactionSync(() => {
    for (const [key, n] of pending) {
      const [orgId, period] = key.split('\0');
      const k = usageKey(orgId, period);
      store.quota.putSync(k, ((store.quota.get(k) as number | undefined) ?? 0) + n);
      m.stored.delete(key);
    }
  });
}
