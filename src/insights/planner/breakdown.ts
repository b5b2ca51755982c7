// Breakdown by one event or person property: the top N values by event count over the
// queried range, every other value folded into PostHog's "other" value and a missing one
// shown as PostHog's "null" value.
import type { BreakdownFilter } from '../schemas.js';
import { QueryError } from './errors.js';
import { propertyText, type PropertySource } from './properties.js';
import { int, sql, text, type Sql } from './sql.js';

export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
export const DEFAULT_BREAKDOWN_LIMIT = 25;

export interface Breakdown {
  key: string;
  source: PropertySource;
  limit: number;
  /** PostHog reports the value as a one-element list when the breakdown was given as one. */
  asList: boolean;
  hideOther: boolean;
}

export function breakdownOf(filter: BreakdownFilter | null | undefined): Breakdown | null {
  const raw = filter?.breakdown;
  if (raw === null || raw === undefined) return null;
  const key = Array.isArray(raw) ? raw[0] : raw;
  const type = filter?.breakdown_type ?? 'event';
  if (type !== 'event' && type !== 'person') throw new QueryError(`Breakdowns of type "${type}" are not supported`, 'breakdownFilter.breakdown_type');
  return { key, source: type, limit: filter?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT, asList: Array.isArray(raw), hideOther: filter?.breakdown_hide_other_aggregation === true };
}

/** The breakdown value of an event row, the null label when absent. */
export function breakdownValueSql(b: Breakdown): Sql {
  return sql`coalesce(${propertyText(b.source, b.key)}, ${text(BREAKDOWN_NULL)})`;
}

/**
 * `bv` of CTE `base` kept when among the top `limit` values by rows (ties by value), else
 * the "other" value.
 */
export function foldedValueSql(b: Breakdown): Sql {
  return sql`CASE WHEN bv IN (SELECT bv FROM base GROUP BY bv ORDER BY count(*) DESC, bv LIMIT ${int(b.limit)}) THEN bv ELSE ${text(BREAKDOWN_OTHER)} END`;
}

/** Result order: larger totals first, null and then other last. */
export function compareBreakdownValues(a: { value: string; total: number }, b: { value: string; total: number }): number {
  const rank = (v: string) => (v === BREAKDOWN_OTHER ? 2 : v === BREAKDOWN_NULL ? 1 : 0);
  return rank(a.value) - rank(b.value) || b.total - a.total || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
}
