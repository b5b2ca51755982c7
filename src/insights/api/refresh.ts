// PostHog's refresh modes (SPEC §4.1) and when a cached result may answer for a new one.
// Pure: the age and data position of the cached result in, the decision out.
//   force_cache                 the cached result, or a cache miss; never calculates
//   blocking / async            the cached result when very fresh, else calculate
//                               (async: in the background, answering with a query status)
//   lazy_async                  the cached result when somewhat fresh, else in the background
//   force_blocking / force_async  calculate even with a fresh result cached
//   async_except_on_cache_miss  the cached result when very fresh, in the background when
//                               stale, at once when there is none
// A cached result also stays fresh while the data it was computed from is unchanged (the
// same loaded log position and the same resolved date range).
export const REFRESH_MODES = ['force_cache', 'blocking', 'async', 'lazy_async', 'force_blocking', 'force_async', 'async_except_on_cache_miss'] as const;
export type RefreshMode = (typeof REFRESH_MODES)[number];

export type Decision = 'cached' | 'miss' | 'calculate' | 'calculate_async';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
// Staleness thresholds by the query's interval (none: funnels, events).
const VERY_FRESH: Record<string, number> = { hour: HOUR, day: 6 * HOUR, week: DAY, month: DAY, none: 6 * HOUR };
const SOMEWHAT_FRESH: Record<string, number> = { hour: 2 * HOUR, day: 12 * HOUR, week: DAY, month: DAY, none: 12 * HOUR };

export function staleAfter(interval: string | null, somewhat = false): number {
  const table = somewhat ? SOMEWHAT_FRESH : VERY_FRESH;
  return table[interval ?? 'none'] ?? table.none;
}

/** The mode a request asked for (`refresh`: a mode, or PostHog's older true / false). */
export function refreshMode(raw: unknown, fallback: RefreshMode): RefreshMode | null {
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (raw === true || raw === 'true') return 'blocking';
  if (raw === false || raw === 'false') return 'force_cache';
  return (REFRESH_MODES as readonly unknown[]).includes(raw) ? (raw as RefreshMode) : null;
}

export interface CachedState {
  /** ms since the result was calculated. */
  age: number;
  /** The result's data is what the store holds now (same position, same resolved range). */
  current: boolean;
}

export function decide(mode: RefreshMode, cached: CachedState | null, interval: string | null): Decision {
  const fresh = (somewhat: boolean) => cached !== null && (cached.current || cached.age < staleAfter(interval, somewhat));
  switch (mode) {
    case 'force_cache':
      return cached ? 'cached' : 'miss';
    case 'blocking':
      return fresh(false) ? 'cached' : 'calculate';
    case 'async':
      return fresh(false) ? 'cached' : 'calculate_async';
    case 'lazy_async':
      return fresh(true) ? 'cached' : 'calculate_async';
    case 'force_blocking':
      return 'calculate';
    case 'force_async':
      return 'calculate_async';
    case 'async_except_on_cache_miss':
      return cached === null ? 'calculate' : fresh(false) ? 'cached' : 'calculate_async';
  }
}

/** PostHog's minimum time between refreshes a client may ask for. */
export function minimumRefreshInterval(interval: string | null, rangeDays: number | null): number {
  return interval === 'hour' || (rangeDays !== null && rangeDays <= 7) ? 3 * 60_000 : 15 * 60_000;
}
