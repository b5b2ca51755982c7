// PostHog's masking (hog-masker.service.ts): invocations whose masking hash (an md5 of the
// hash template's value, ./prepare.ts) is the same within `ttl` seconds count together;
// without a threshold only the first passes, with threshold T the 1st, (T+1)th, (2T+1)th…
// pass; the rest are masked. The window starts at the first of them and is not extended.
import type { DestinationsStore } from './env.js';

export interface MaskingRule {
  ttl: number;
  threshold: number | null;
}

/** Counts one invocation and says whether it passes. Inside a write transaction. */
export function passesMasking(store: DestinationsStore, functionId: string, hash: string, rule: MaskingRule, nowMs: number): boolean {
  const key: [string, string] = [functionId, hash];
  const found = store.masks.get(key);
  const live = found !== undefined && found.expiresAt > nowMs;
  const ttlMs = Math.min(Math.max(rule.ttl, 1), 86_400) * 1000;
  const count = live ? found.count + 1 : 1;
  store.masks.put(key, { count, expiresAt: live ? found.expiresAt : nowMs + ttlMs });
  if (rule.threshold === null || rule.threshold <= 0) return count === 1;
  return (count - 1) % rule.threshold === 0;
}

/** Drops counters whose window has ended. */
export function pruneMasks(store: DestinationsStore, nowMs: number): Promise<number> {
  return store.root.transaction(() => {
    let n = 0;
    for (const { key, value } of store.masks.getRange()) {
      if (value.expiresAt <= nowMs) {
        store.masks.remove(key);
        n++;
      }
    }
    return n;
  });
}
