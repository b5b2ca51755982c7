// Feature flag request quotas per organization: a limit (none by default) and the usage
// of the current billing period. Counting must cost a request almost nothing, so the meter
// counts in memory and adds its counts to LMDB every `flushMs` (config.quotaFlushMs), through the write
// path (additions, so several meters — threads, processes, nodes — can count for one
// organization); limits and the stored usage are re-read at most once a second. A limit
// of N lets N requests through in a period; the next ones are quota-limited.
import type { QuotaTables } from './tables.js';
import type { StateWrites } from '../state/index.js';
import { addFlagUsage, limitKey, setFlagLimit, usageKey } from './commands.js';
import { billingPeriod } from './period.js';

const REFRESH_MS = 1000;
const DEFAULT_FLUSH_MS = 1000;

interface Cached<T> {
  value: T;
  readAt: number;
}

function cached<T>(cache: Map<string, Cached<T>>, key: string, now: number, read: () => T): T {
  const hit = cache.get(key);
  if (hit && now >= hit.readAt && now - hit.readAt < REFRESH_MS) return hit.value;
  const value = read();
  cache.set(key, { value, readAt: now });
  return value;
}

export function createFlagMeter(store: QuotaTables, writes: StateWrites, opts: { flushMs?: number } = {}) {
  const flushMs = opts.flushMs ?? DEFAULT_FLUSH_MS;
  // `${org}\0${period}` → requests counted here and not yet in LMDB.
  let pending = new Map<string, number>();
  // The counts of the flushes under way: still counted until their write has landed and the
  // stored counts are read again (without them, usage read during a flush fell short by
  // them, and a limit set from it was reached early). A slow write can still be in flight
  // when the next flush starts: each flush adds its counts here and takes them off again.
  const flushing = new Map<string, number>();
  const stored = new Map<string, Cached<number>>();
  const limits = new Map<string, Cached<number | null>>();
  let timer: NodeJS.Timeout | null = null;
  // Another node's limit or counts reach this one through its appliers: forget what was read.
  writes.onApplied((kind, origin) => {
    if (kind === setFlagLimit.kind) limits.clear();
    else if (kind === addFlagUsage.kind && origin === 'elsewhere') stored.clear();
  });
  // The period of the last call: every request asks, and months change rarely.
  let lastPeriod = { key: '', start: 0, end: 0 };

  function periodKey(now: number): string {
    if (now < lastPeriod.start || now >= lastPeriod.end) {
      const p = billingPeriod(now);
      lastPeriod = { key: p.key, start: Date.parse(p.start), end: Date.parse(p.end) };
    }
    return lastPeriod.key;
  }

  const meter = {
    /** The organization's feature flag request limit per period; null is unlimited. */
    quota: (orgId: string): number | null => (store.quota.get(limitKey(orgId)) as number | null | undefined) ?? null,

    async setQuota(orgId: string, limit: number | null): Promise<void> {
      await writes.submit(setFlagLimit, { organization_id: orgId, limit });
    },

    /** Requests counted in the period of `now`, this meter's unflushed ones included. */
    usage(orgId: string, now: number): number {
      const period = periodKey(now);
      const key = `${orgId}\0${period}`;
      const count = cached(stored, key, now, () => (store.quota.get(usageKey(orgId, period)) as number | undefined) ?? 0);
      return count + (pending.get(key) ?? 0) + (flushing.get(key) ?? 0);
    },

    /** Counts one feature flag request (a /decide, /flags or local-evaluation call) of the organization. */
    record(orgId: string, now: number): void {
      const key = `${orgId}\0${periodKey(now)}`;
      pending.set(key, (pending.get(key) ?? 0) + 1);
      if (!timer) {
        timer = setTimeout(() => { void meter.flush(); }, flushMs);
        timer.unref();
      }
    },

    /** Whether the organization has used up its feature flag requests for the period of `now`. */
    exceeded(orgId: string, now: number): boolean {
      const limit = cached(limits, orgId, now, () => meter.quota(orgId));
      return limit !== null && meter.usage(orgId, now) >= limit;
    },

    /** Adds the counts made here to LMDB. Runs `flushMs` after a count; await it before closing the store. */
    async flush(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      if (pending.size === 0) return;
      const counts = pending;
      pending = new Map();
      for (const [key, n] of counts) flushing.set(key, (flushing.get(key) ?? 0) + n);
      try {
        await writes.submit(addFlagUsage, { counts: [...counts].map(([key, n]) => [...key.split('\0'), n] as [string, string, number]) });
      } catch {
        // Not counted yet: they ride on the next flush.
        for (const [key, n] of counts) pending.set(key, (pending.get(key) ?? 0) + n);
        return;
      } finally {
        for (const [key, n] of counts) {
          const left = (flushing.get(key) ?? 0) - n;
          if (left > 0) flushing.set(key, left);
          else flushing.delete(key);
        }
      }
      for (const key of counts.keys()) stored.delete(key);
    },

    // The quota as the API and the CLI show it.
    report(orgId: string, now: number) {
      const period = billingPeriod(now);
      return {
        limit: meter.quota(orgId),
        usage: meter.usage(orgId, now),
        period_start: period.start,
        period_end: period.end,
        quota_limited: meter.exceeded(orgId, now),
      };
    },
  };
  return meter;
}

export type FlagMeter = ReturnType<typeof createFlagMeter>;
