// Breakdown by event or person properties, or HogQL expressions over the event (type
// "hogql", ./hogql-row.ts): one (`breakdown`) or several (`breakdowns`, whose values are
// lists, one element per property). The top N values (or combinations) by event count over
// the queried range are kept, every other one folded into PostHog's "other" value, and a
// missing property shown as PostHog's "null" value. A cohort breakdown (`breakdown_type:
// "cohort"`, a list of cohort ids and "all") counts each event once for every listed cohort
// its person belongs to ("all": everyone): the row is repeated per cohort (an unnest), and
// the value is the cohort's id.
import type { BreakdownFilter } from '../schemas.js';
import { propertyContext, type PlanContext } from './context.js';
import { QueryError } from './errors.js';
import { hogqlBreakdown, type HogQLRowContext } from './hogql-row.js';
import { cohortCondition, groupPropertyText, propertyText, type PropertySource } from './properties.js';
import { int, join, sql, text, type Sql } from './sql.js';

export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
export const DEFAULT_BREAKDOWN_LIMIT = 25;

export interface BreakdownPart {
  key: string;
  source: PropertySource | 'hogql' | 'group' | 'cohort';
  /** The value's text over the planners' events row (NULL when absent). */
  text: Sql;
  /** Whether it reads the event's person. */
  persons: boolean;
  /** PostHog's normalize_url: trailing "/", "?" and "#" trimmed ("" becomes "/"). */
  normalizeUrl: boolean;
  /** A group breakdown's group type index. */
  groupIndex?: number;
  /** A hogql breakdown that arrayJoins: its text unnests, the event's row repeated per element. */
  arrayJoin?: boolean;
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
  /** Cohort breakdowns: each value's label (the cohort's name; "all users"). */
  labels?: ReadonlyMap<string, string>;
}

function sourceOfType(type: string | null | undefined, attr: string): BreakdownPart['source'] | 'session' {
  const t = type ?? 'event';
  if (t !== 'event' && t !== 'person' && t !== 'hogql' && t !== 'group' && t !== 'cohort' && t !== 'session') throw new QueryError(`Breakdowns of type "${t}" are not supported`, attr);
  return t;
}

// `groupIndex`: the group type a group breakdown reads (required for one, ignored otherwise).
function part(ctx: HogQLRowContext, key: string, source: BreakdownPart['source'] | 'session', normalizeUrl: boolean, attr: string, groupIndex?: number | null): BreakdownPart {
  if (source === 'cohort') throw new QueryError('A cohort breakdown lists cohort ids in breakdown', attr);
  if (source === 'hogql') return { key, source, normalizeUrl, ...hogqlBreakdown(ctx, key, attr) };
  // A session property (e.g. $session_duration): the event's session read as HogQL's session.<key>.
  if (source === 'session') return { key, source: 'hogql', normalizeUrl, ...hogqlBreakdown(ctx, `session.${key}`, attr) };
  if (source === 'group') {
    if (groupIndex === null || groupIndex === undefined) throw new QueryError('A group breakdown needs its group type index', attr.replace(/(breakdown|property)$/, (m) => (m === 'property' ? 'group_type_index' : 'breakdown_group_type_index')));
    return { key, source, normalizeUrl, text: groupPropertyText(groupIndex, key), persons: false, groupIndex };
  }
  return { key, source, normalizeUrl, text: propertyText(source, key), persons: source === 'person' };
}

// The cohorts of a cohort breakdown, each the id's text when the event's person is a member.
function cohortBreakdown(ctx: PlanContext, given: unknown, common: { limit: number; hideOther: boolean }): Breakdown {
  const attr = 'breakdownFilter.breakdown';
  const ids = Array.isArray(given) ? given : [given];
  if (ids.length === 0) throw new QueryError('A cohort breakdown lists cohort ids or "all"', attr);
  const props = propertyContext(ctx);
  const labels = new Map<string, string>();
  const values = ids.map((id, i) => {
    if (id === 'all' || id === 0 || id === '0') {
      labels.set('all', 'all users');
      return sql`${text('all')}`;
    }
    const n = Number(id);
    const cohort = Number.isSafeInteger(n) ? ctx.cohorts.get(n) : undefined;
    if (cohort === undefined) throw new QueryError(`Cohort ${String(id)} does not exist`, `${attr}.${i}`);
    labels.set(String(n), cohort.name ?? `Cohort ${n}`);
    return sql`CASE WHEN ${cohortCondition(n, props, `${attr}.${i}`)} THEN ${text(String(n))} END`;
  });
  const unnest = sql`unnest(list_filter(list_value(${join(values, ', ')}), x -> x IS NOT NULL))`;
  const one: BreakdownPart = { key: 'cohort', source: 'cohort', normalizeUrl: false, text: unnest, persons: true };
  return { ...one, parts: [one], multiple: false, asList: false, ...common, labels };
}

export function breakdownOf(filter: BreakdownFilter | null | undefined, ctx: PlanContext): Breakdown | null {
  const common = { limit: filter?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT, hideOther: filter?.breakdown_hide_other_aggregation === true };
  const many = filter?.breakdowns;
  // As PostHog: a `breakdowns` list, when given, is the breakdown.
  if (many !== null && many !== undefined && many.length > 0) {
    const parts = many.map((b, i) => {
      const source = sourceOfType(b.type, `breakdownFilter.breakdowns.${i}.type`);
      if (source === 'cohort') throw new QueryError('Cohort breakdowns are given as breakdown_type "cohort" with a list of cohort ids in breakdown', `breakdownFilter.breakdowns.${i}.type`);
      return part(ctx, String(b.property), source, b.normalize_url === true, `breakdownFilter.breakdowns.${i}.property`, b.group_type_index);
    });
    const joined = parts.filter((p) => p.arrayJoin);
    if (joined.length > 1) throw new QueryError('One breakdown of several may arrayJoin: their elements would be paired, not crossed', `breakdownFilter.breakdowns.${parts.lastIndexOf(joined[1])}.property`);
    return { ...parts[0], parts, multiple: true, asList: true, ...common };
  }
  const raw = filter?.breakdown;
  if (raw === null || raw === undefined) return null;
  if (filter?.breakdown_type === 'cohort') return cohortBreakdown(ctx, raw, common);
  // Lists of several values and numbers are cohort breakdowns' only.
  if (typeof raw === 'number' || (Array.isArray(raw) && (raw.length !== 1 || typeof raw[0] !== 'string'))) {
    throw new QueryError('A property breakdown names one property', 'breakdownFilter.breakdown');
  }
  const one = part(ctx, String(Array.isArray(raw) ? raw[0] : raw), sourceOfType(filter?.breakdown_type, 'breakdownFilter.breakdown_type'), filter?.breakdown_normalize_url === true, 'breakdownFilter.breakdown', filter?.breakdown_group_type_index);
  return { ...one, parts: [one], multiple: false, asList: Array.isArray(raw), ...common };
}

export function breakdownUsesPersons(b: Breakdown | null): boolean {
  return b !== null && b.parts.some((p) => p.persons);
}

function partValueSql(p: BreakdownPart): Sql {
  const x = p.text;
  // A cohort's value is never absent (a person in none of them has no row).
  if (p.source === 'cohort') return x;
  const value = p.normalizeUrl ? sql`CASE WHEN rtrim(${x}, '/?#') = '' THEN '/' ELSE rtrim(${x}, '/?#') END` : x;
  return sql`coalesce(${value}, ${text(BREAKDOWN_NULL)})`;
}

/**
 * Funnels and retention break down by the property as it is: PostHog normalizes URLs in
 * trends only. (An arrayJoin repeats the event per element in them too, as ClickHouse does
 * with the expression in their events' SELECT.)
 */
export function refuseTrendsOnlyParts(b: Breakdown | null): void {
  const url = b?.parts.findIndex((p) => p.normalizeUrl) ?? -1;
  if (url >= 0) throw new QueryError('normalize_url is supported in trends breakdowns only', b!.multiple ? `breakdownFilter.breakdowns.${url}.normalize_url` : 'breakdownFilter.breakdown_normalize_url');
}

/** The breakdown value of an event row, the null label when absent (several: their JSON list). */
export function breakdownValueSql(b: Breakdown): Sql {
  if (!b.multiple) return partValueSql(b);
  return sql`to_json(list_value(${join(b.parts.map(partValueSql), ', ')}))::VARCHAR`;
}

/** A value as the SQL side gives it → PostHog's breakdown_value. */
export function breakdownValueOf(b: Breakdown, value: string): string | number | string[] {
  // PostHog's cohort values: the cohort's id as a number, or "all".
  if (b.source === 'cohort') return value === 'all' || value === BREAKDOWN_OTHER ? value : Number(value);
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
