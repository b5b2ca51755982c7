// Breakdown by event or person properties: one (`breakdown`) or several (`breakdowns`,
// whose values are lists, one element per property). The top N values (or combinations)
// by event count over the queried range are kept, every other one folded into PostHog's
// "other" value, and a missing property shown as PostHog's "null" value.
import type { BreakdownFilter } from '../schemas.js';
import { QueryError } from './errors.js';
import { propertyText, type PropertySource } from './properties.js';
import { int, join, sql, text, type Sql } from './sql.js';

export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
export const DEFAULT_BREAKDOWN_LIMIT = 25;

export interface BreakdownPart {
  key: string;
  source: PropertySource;
  /** PostHog's normalize_url: trailing "/", "?" and "#" trimmed ("" becomes "/"). */
  normalizeUrl: boolean;
}

export interface Breakdown extends BreakdownPart {
  /** Every property broken down by; one unless `multiple`. `key`/`source` are the first's. */
  parts: BreakdownPart[];
  /** Given as `breakdowns`: values are lists, and in SQL a JSON list's text. */
  multiple: boolean;
  limit: number;
  /** PostHog reports the value as a one-element list when the breakdown was given as one. */
  asList: boolean;
  hideOther: boolean;
}

function sourceOfType(type: string | null | undefined, attr: string): PropertySource {
  const t = type ?? 'event';
  if (t !== 'event' && t !== 'person') throw new QueryError(`Breakdowns of type "${t}" are not supported`, attr);
  return t;
}

export function breakdownOf(filter: BreakdownFilter | null | undefined): Breakdown | null {
  const common = { limit: filter?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT, hideOther: filter?.breakdown_hide_other_aggregation === true };
  const many = filter?.breakdowns;
  // As PostHog: a `breakdowns` list, when given, is the breakdown.
  if (many !== null && many !== undefined && many.length > 0) {
    const parts = many.map((b, i) => ({ key: String(b.property), source: sourceOfType(b.type, `breakdownFilter.breakdowns.${i}.type`), normalizeUrl: b.normalize_url === true }));
    return { ...parts[0], parts, multiple: true, asList: true, ...common };
  }
  const raw = filter?.breakdown;
  if (raw === null || raw === undefined) return null;
  const part = {
    key: Array.isArray(raw) ? raw[0] : raw, source: sourceOfType(filter?.breakdown_type, 'breakdownFilter.breakdown_type'),
    normalizeUrl: filter?.breakdown_normalize_url === true,
  };
  return { ...part, parts: [part], multiple: false, asList: Array.isArray(raw), ...common };
}

export function breakdownUsesPersons(b: Breakdown | null): boolean {
  return b !== null && b.parts.some((p) => p.source === 'person');
}

function partValueSql(p: BreakdownPart): Sql {
  const x = propertyText(p.source, p.key);
  const value = p.normalizeUrl ? sql`CASE WHEN rtrim(${x}, '/?#') = '' THEN '/' ELSE rtrim(${x}, '/?#') END` : x;
  return sql`coalesce(${value}, ${text(BREAKDOWN_NULL)})`;
}

/** Funnels and retention break down by the property as it is (PostHog normalizes URLs in trends). */
export function refuseNormalizedUrl(b: Breakdown | null): void {
  const i = b?.parts.findIndex((p) => p.normalizeUrl) ?? -1;
  if (i >= 0) throw new QueryError('normalize_url is supported in trends breakdowns only', b!.multiple ? `breakdownFilter.breakdowns.${i}.normalize_url` : 'breakdownFilter.breakdown_normalize_url');
}

/** The breakdown value of an event row, the null label when absent (several: their JSON list). */
export function breakdownValueSql(b: Breakdown): Sql {
  if (!b.multiple) return partValueSql(b);
  return sql`to_json(list_value(${join(b.parts.map(partValueSql), ', ')}))::VARCHAR`;
}

/** A value as the SQL side gives it → PostHog's breakdown_value. */
export function breakdownValueOf(b: Breakdown, value: string): string | string[] {
  if (!b.multiple) return b.asList ? [value] : value;
  return value === BREAKDOWN_OTHER ? b.parts.map(() => BREAKDOWN_OTHER) : (JSON.parse(value) as unknown[]).map(String);
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
