// HogQLQuery → one statement (./hogql/compile.ts) and PostHog's response: results as rows,
// columns by their HogQL names, types as [name, ClickHouse type] pairs, the query as `hogql`,
// and hasMore/limit/offset when PostHog's paginator ran (the query had no LIMIT).
import type { HogQLQuery } from '../schemas.js';
import { needsPersons, propertyContext, queryPropertiesWhere, type Plan, type PlanContext } from './context.js';
import { hogqlCohorts } from './cohort-people.js';
import { compileHogQL } from './hogql/compile.js';
import type { HogNode, HogQLFilters } from './hogql/expr.js';
import { parseInstant } from './dates.js';
import { QueryError } from './errors.js';
import { operatorSql, valueSetLookups, type PropertyFilter } from './properties.js';
import { join, sql, type Sql } from './sql.js';
import { resultValue } from './result-value.js';

export interface HogQLQueryResult {
  results: unknown[][];
  columns: string[];
  types: [string, string][];
  hogql: string;
  hasMore?: boolean;
  limit?: number;
  offset?: number;
  timings: { k: string; t: number }[];
}

// HogQLFilters as {filters} applies them (PostHog's): the date range in the project's zone
// (relative dates from now, absolute ones in the zone unless they carry an offset; `all` or
// none: unbounded), the property filters (the runner folded the project's test account
// filters in, with filterTestAccounts) as a condition on the event, session filters on its
// session. Null when none are given.
function filtersOf(query: HogQLQuery, ctx: PlanContext): HogQLFilters | null {
  const f = query.filters as { dateRange?: { date_from?: string | null; date_to?: string | null } | null; properties?: unknown } | null | undefined;
  if (!f || Object.keys(f).length === 0) return null;
  const from = f.dateRange?.date_from;
  const to = f.dateRange?.date_to;
  const fromUs = from && from !== 'all' ? parseInstant(from, ctx, 'filters.dateRange.date_from') * 1000 : null;
  const toUs = to ? parseInstant(to, ctx, 'filters.dateRange.date_to') * 1000 : null;
  // Session filters (a list's, as PostHog's HogQLFilters holds them) read the session's fields.
  const list = Array.isArray(f.properties) ? (f.properties as PropertyFilter[]) : null;
  const sessionFilters = (list ?? []).map((filter, i) => ({ filter, attr: `filters.properties.${i}` })).filter(({ filter }) => filter?.type === 'session');
  const rest = list === null ? f.properties : list.filter((filter) => filter?.type !== 'session');
  const given = Array.isArray(rest) ? rest.length > 0 : rest !== null && rest !== undefined;
  const properties = given ? { condition: queryPropertiesWhere(rest, ctx, 'filters.properties')[0], persons: needsPersons(ctx, rest) } : null;
  for (const { filter, attr } of sessionFilters) {
    if (typeof filter.key !== 'string') throw new QueryError('A property filter needs a key', attr);
    if (valueSetLookups([filter]).length > 0) throw new QueryError(`Session property filters cannot use the operator "${String(filter.operator)}"`, attr);
  }
  const props = propertyContext(ctx);
  const sessions = sessionFilters.length === 0 ? null
    : (valueOf: (key: string) => Sql) => sql`(${join(sessionFilters.map(({ filter, attr }) => sql`coalesce(${operatorSql(filter, valueOf(filter.key), props, attr)}, FALSE)`), ' AND ')})`;
  return { fromUs, toUs, properties, sessions };
}

export function planHogQLQuery(query: HogQLQuery, ctx: PlanContext, ast: HogNode, parseSeconds: number): Plan<HogQLQueryResult> {
  const started = performance.now();
  const variables: Record<string, unknown> = {};
  for (const v of Object.values(query.variables ?? {})) {
    if (v && typeof v === 'object' && typeof (v as { code_name?: unknown }).code_name === 'string') {
      const { code_name, value, isNull } = v as { code_name: string; value?: unknown; isNull?: boolean };
      variables[code_name] = isNull ? null : value ?? null;
    }
  }
  const filters = filtersOf(query, ctx);
  const compiled = compileHogQL(ast, query.query, {
    projectId: ctx.projectId, timezone: ctx.zone, weekStart: ctx.weekStart, values: query.values ?? {}, variables, filters,
    actions: ctx.actions, properties: { projectId: ctx.projectId, valueSets: ctx.valueSets, cohorts: ctx.cohorts },
    cohorts: hogqlCohorts(propertyContext(ctx)), propertyTypes: ctx.propertyTypes,
  });
  const compileSeconds = (performance.now() - started) / 1000;
  return {
    statements: [compiled.statement],
    shape([rows]) {
      const page = compiled.paginated;
      const kept = page ? rows.slice(0, page.limit) : rows;
      const result: HogQLQueryResult = {
        results: kept.map((r) => compiled.columns.map((c, i) => resultValue(r[`c${i}`], c.expr, ctx.zone))),
        columns: compiled.columns.map((c) => c.name),
        types: compiled.columns.map((c) => [c.name, c.type]),
        hogql: query.query,
        timings: [{ k: './parse', t: parseSeconds }, { k: './compile', t: compileSeconds }],
      };
      if (page) Object.assign(result, { hasMore: rows.length > page.limit, limit: page.limit, offset: page.offset });
      return result;
    },
  };
}
