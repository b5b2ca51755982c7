// The result cache, in LMDB: a query's last response under a key of the query itself
// (canonical JSON: key order does not matter), the project, its time zone and week start;
// with the time and the loaded log position it was calculated at.
import { createHash } from 'node:crypto';
import type { InsightsTables } from '../tables.js';
import type { QueryResponse } from '../run.js';

export interface CachedResult {
  response: QueryResponse;
  /** ms since the epoch. */
  calculatedAt: number;
  position: number;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/**
 * `testAccountFilters`: the project's, when the query applies them; `definitions`: the actions
 * and cohorts it names, as they are (keys without either stay as they were).
 */
export function cacheKey(query: unknown, projectId: number, timezone: string, weekStart: number, testAccountFilters?: unknown[], definitions?: unknown): string {
  const text = JSON.stringify(canonical({
    query, project: projectId, timezone, weekStart, ...(testAccountFilters?.length ? { testAccountFilters } : {}), ...(definitions ? { definitions } : {}),
  }));
  return `cache_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

export function readCached(store: InsightsTables, key: string): CachedResult | undefined {
  return store.insightCache.get(key) as CachedResult | undefined;
}

export function writeCached(store: InsightsTables, key: string, entry: CachedResult): Promise<boolean> {
  return store.insightCache.put(key, entry);
}

/** Drops results calculated before `olderThan` (ms): run at start-up. */
export async function pruneCache(store: InsightsTables, olderThan: number): Promise<number> {
  let dropped = 0;
  await store.root.transaction(() => {
    for (const { key, value } of store.insightCache.getRange({})) {
      if ((value as CachedResult).calculatedAt < olderThan) {
        store.insightCache.remove(key);
        dropped++;
      }
    }
  });
  return dropped;
}
