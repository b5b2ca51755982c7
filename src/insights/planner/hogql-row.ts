// HogQL where PostHog's insights accept it: a trends series' `math: "hogql"` (math_hogql), a
// breakdown of type "hogql", and property filters of type "hogql" (trends, funnels,
// retention, lifecycle, stickiness, EventsQuery). The runner parses every such text before
// planning (the parser is asynchronous, planners are not) and hands the trees over in the
// plan context; here each is compiled by the HogQL compiler (./hogql/compile.ts) over the
// planners' events row, `e`, with its person as `p`: no user text reaches DuckDB.
import { QueryError } from './errors.js';
import { compileRowExpression, type RowExpression } from './hogql/compile.js';
import { HogQLError, str, type HogNode } from './hogql/expr.js';
import type { ResolvedAction } from './actions.js';
import { hogqlCohorts } from './cohort-people.js';
import { leaves, type Properties, type ResolvedCohort, type ValueSets } from './properties.js';
import { sql, type Sql } from './sql.js';
import type { PropertyTypes } from '../../definitions/index.js';

/** Parsed HogQL expressions of a query, by their text. */
export type HogQLExpressions = ReadonlyMap<string, HogNode>;

export interface HogQLRowContext {
  projectId: number;
  zone: string;
  weekStart: 0 | 1;
  hogql?: HogQLExpressions;
  /** What matchesAction reads: the actions the API resolved, and what their steps' filters need. */
  actions?: ReadonlyMap<number, ResolvedAction>;
  valueSets?: ValueSets;
  cohorts?: ReadonlyMap<number, ResolvedCohort>;
  /** What behavioural cohorts' windows end at (inCohort of one). */
  nowMs?: number;
  /** The types its properties read as, by their definitions (./hogql/property-types.ts). */
  propertyTypes?: PropertyTypes;
}

/** A HogQL text of the query and the field it came from (for errors). */
export interface HogQLSource {
  source: string;
  attr: string;
}

/** `source` compiled over the planners' events row `e`, its person joined as `p`. */
export function rowExpression(ctx: HogQLRowContext, source: string, attr: string, allowArrayJoin = false): RowExpression {
  const node = ctx.hogql?.get(source);
  if (node === undefined) throw new Error(`HogQL not parsed before planning: ${attr}`);
  const properties = { projectId: ctx.projectId, valueSets: ctx.valueSets ?? new Map(), cohorts: ctx.cohorts ?? new Map(), nowMs: ctx.nowMs };
  try {
    return compileRowExpression(node, source, {
      projectId: ctx.projectId, timezone: ctx.zone, weekStart: ctx.weekStart, values: {}, variables: {}, filters: null,
      actions: ctx.actions, properties, cohorts: hogqlCohorts(properties), propertyTypes: ctx.propertyTypes,
    }, allowArrayJoin);
  } catch (err) {
    if (err instanceof HogQLError) throw new QueryError(`${err.message} (in ${attr}: ${source})`, attr);
    throw err;
  }
}

/** A property filter of type "hogql": its expression as the event's condition (no aggregates). */
export function hogqlCondition(ctx: HogQLRowContext, source: string, attr: string): Sql {
  const { expr } = rowExpression(ctx, source, attr);
  if (expr.aggregate !== null) throw new QueryError(`Aggregation '${expr.aggregate}' is not allowed in a property filter: ${source}`, attr);
  return expr.type === 'Bool' ? expr.sql : sql`TRY_CAST(${expr.sql} AS BOOLEAN)`;
}

/**
 * A breakdown of type "hogql": the expression's value as text (NULL stays NULL), whether it
 * reads the person, and whether it arrayJoins (PostHog's: each element its own value).
 */
export function hogqlBreakdown(ctx: HogQLRowContext, source: string, attr: string): { text: Sql; persons: boolean; arrayJoin: boolean } {
  const { expr, persons, arrayJoins } = rowExpression(ctx, source, attr, true);
  if (expr.aggregate !== null) throw new QueryError(`Aggregation '${expr.aggregate}' is not allowed in a breakdown: ${source}`, attr);
  // Two arrays unnested in one select list would pair their elements, where ClickHouse crosses them.
  if (arrayJoins > 1) throw new QueryError(`A breakdown may arrayJoin one array only: ${source}`, attr);
  return { text: str(expr), persons, arrayJoin: arrayJoins > 0 };
}

/** Whether any filter of type "hogql" in the lists reads the event's person. */
export function hogqlFiltersUsePersons(ctx: HogQLRowContext, lists: readonly unknown[]): boolean {
  return lists.some((p) => leaves(p as Properties).some((f) => f.type === 'hogql' && typeof f.key === 'string' && rowExpression(ctx, f.key, 'properties').persons));
}

interface QueryShape {
  kind?: unknown;
  query?: unknown;
  select?: unknown;
  where?: unknown;
  orderBy?: unknown;
  properties?: unknown;
  fixedProperties?: unknown;
  series?: { math?: unknown; math_hogql?: unknown; properties?: unknown; fixedProperties?: unknown }[];
  breakdownFilter?: { breakdown_type?: unknown; breakdown?: unknown; breakdowns?: { type?: unknown; property?: unknown }[] | null } | null;
  retentionFilter?: { targetEntity?: { properties?: unknown } | null; returningEntity?: { properties?: unknown } | null } | null;
  pathsFilter?: { includeEventTypes?: unknown; pathsHogQLExpression?: unknown } | null;
  /** A HogQLQuery's HogQLFilters. */
  filters?: { properties?: unknown } | null;
}

/** A paths chart's HogQL path item: its expression when the "hogql" event type is asked for (PostHog's rule), else null. */
export function pathsHogQLItem(filter: QueryShape['pathsFilter']): string | null {
  const include = filter?.includeEventTypes;
  const source = filter?.pathsHogQLExpression;
  return Array.isArray(include) && include.includes('hogql') && typeof source === 'string' && source.trim() !== '' ? source : null;
}

/** Every HogQL text a query carries outside a HogQLQuery, to parse before planning. */
export function hogqlSources(query: QueryShape): HogQLSource[] {
  const out: HogQLSource[] = [];
  const filters = (list: unknown, attr: string) => {
    if (list === null || list === undefined || typeof list !== 'object') return;
    for (const f of leaves(list as Properties)) if (f.type === 'hogql' && typeof f.key === 'string') out.push({ source: f.key, attr });
  };
  filters(query.properties, 'properties');
  filters(query.fixedProperties, 'fixedProperties');
  if (query.kind === 'HogQLQuery') filters(query.filters?.properties, 'filters.properties');
  (query.series ?? []).forEach((s, i) => {
    if (s.math === 'hogql') {
      if (typeof s.math_hogql !== 'string' || s.math_hogql.trim() === '') throw new QueryError('Math "hogql" needs a math_hogql expression', `series.${i}.math_hogql`);
      out.push({ source: s.math_hogql, attr: `series.${i}.math_hogql` });
    }
    filters(s.properties, `series.${i}.properties`);
    filters(s.fixedProperties, `series.${i}.fixedProperties`);
  });
  const b = query.breakdownFilter;
  if (b?.breakdowns && b.breakdowns.length > 0) {
    b.breakdowns.forEach((x, i) => {
      if (x.type === 'hogql') out.push({ source: String(x.property), attr: `breakdownFilter.breakdowns.${i}.property` });
      // A session breakdown reads HogQL's session.<property> (planner/breakdown.ts).
      if (x.type === 'session') out.push({ source: `session.${String(x.property)}`, attr: `breakdownFilter.breakdowns.${i}.property` });
    });
  } else if ((b?.breakdown_type === 'hogql' || b?.breakdown_type === 'session') && b.breakdown !== null && b.breakdown !== undefined) {
    const source = String(Array.isArray(b.breakdown) ? b.breakdown[0] : b.breakdown);
    out.push({ source: b.breakdown_type === 'session' ? `session.${source}` : source, attr: 'breakdownFilter.breakdown' });
  }
  filters(query.retentionFilter?.targetEntity?.properties, 'retentionFilter.targetEntity.properties');
  filters(query.retentionFilter?.returningEntity?.properties, 'retentionFilter.returningEntity.properties');
  const pathItem = pathsHogQLItem(query.pathsFilter);
  if (pathItem !== null) out.push({ source: pathItem, attr: 'pathsFilter.pathsHogQLExpression' });
  return out;
}

/** Every HogQL text a query carries: a HogQLQuery's, EventsQuery's select, where and orderBy, and those of hogqlSources. */
export function hogqlTexts(query: QueryShape): string[] {
  const strings = (x: unknown) => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);
  const own = query.kind === 'HogQLQuery' && typeof query.query === 'string' ? [query.query]
    : query.kind === 'EventsQuery' ? [...strings(query.select), ...strings(query.where), ...strings(query.orderBy)] : [];
  return [...own, ...hogqlSources(query).map((s) => s.source)];
}
