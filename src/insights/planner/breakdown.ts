// Breakdown by event or person properties, or HogQL expressions over the event (type
// "hogql", ./hogql-row.ts): one (`breakdown`) or several (`breakdowns`, whose values are
// lists, one element per property). The top N values (or combinations) by event count over
// the queried range are kept, every other one folded into PostHog's "other" value, and a
// missing property shown as PostHog's "null" value.
import type { BreakdownFilter } from '../schemas.js';
import { QueryError } from './errors.js';
import { hogqlBreakdown, type HogQLRowContext } from './hogql-row.js';
import { groupPropertyText, propertyText, type PropertySource } from './properties.js';
import { int, join, sql, text, type Sql } from './sql.js';

export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
export const DEFAULT_BREAKDOWN_LIMIT = 25;

export interface BreakdownPart {
  key: string;
  source: PropertySource | 'hogql' | 'group';
  /** The value's text over the planners' events row (NULL when absent). */
  text: Sql;
  /** Whether it reads the event's person. */
  persons: boolean;
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

function sourceOfType(type: string | null | undefined, attr: string): BreakdownPart['source'] {
  const t = type ?? 'event';
  if (t !== 'event' && t !== 'person' && t !== 'hogql' && t !== 'group') throw new QueryError(`Breakdowns of type "${t}" are not supported`, attr);
  return t;
}

// `groupIndex`: the group type a group breakdown reads (required for one, ignored otherwise).
function part(ctx: HogQLRowContext, key: string, source: BreakdownPart['source'], normalizeUrl: boolean, attr: string, groupIndex?: number | null): BreakdownPart {
  if (source === 'hogql') return { key, source, normalizeUrl, ...hogqlBreakdown(ctx, key, attr) };
  if (source === 'group') {
    if (groupIndex === null || groupIndex === undefined) throw new QueryError('A group breakdown needs its group type index', attr.replace(/(breakdown|property)$/, (m) => (m === 'property' ? 'group_type_index' : 'breakdown_group_type_index')));
    return { key, source, normalizeUrl, text: groupPropertyText(groupIndex, key), persons: false };
  }
  return { key, source, normalizeUrl, text: propertyText(source, key), persons: source === 'person' };
}

export function breakdownOf(filter: BreakdownFilter | null | undefined, ctx: HogQLRowContext): Breakdown | null {
  const common = { limit: filter?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT, hideOther: filter?.breakdown_hide_other_aggregation === true };
  const many = filter?.breakdowns;
  // As PostHog: a `breakdowns` list, when given, is the breakdown.
  if (many !== null && many !== undefined && many.length > 0) {
    const parts = many.map((b, i) => part(ctx, String(b.property), sourceOfType(b.type, `breakdownFilter.breakdowns.${i}.type`), b.normalize_url === true, `breakdownFilter.breakdowns.${i}.property`, b.group_type_index));
    return { ...parts[0], parts, multiple: true, asList: true, ...common };
  }
  const raw = filter?.breakdown;
  if (raw === null || raw === undefined) return null;
  const one = part(ctx, Array.isArray(raw) ? raw[0] : raw, sourceOfType(filter?.breakdown_type, 'breakdownFilter.breakdown_type'), filter?.breakdown_normalize_url === true, 'breakdownFilter.breakdown', filter?.breakdown_group_type_index);
  return { ...one, parts: [one], multiple: false, asList: Array.isArray(raw), ...common };
}

export function breakdownUsesPersons(b: Breakdown | null): boolean {
  return b !== null && b.parts.some((p) => p.persons);
}

function partValueSql(p: BreakdownPart): Sql {
  const x = p.text;
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
