// Running a query against the columnar store: validate, resolve what the pure planner
// needs from the data (value-set filters, the project's first event for "all"), plan, run
// the statements, shape the rows into PostHog's response.
import type { HogQLParsePool } from '../hogql/index.js';
import type { Columnar } from './columnar/database.js';
import { queryErrorOf } from './columnar/errors.js';
import type { Plan, PlanContext } from './planner/context.js';
import { actionPropertyLists, type ResolvedAction } from './planner/actions.js';
import { planActors, type ActorsResult } from './planner/actors.js';
import { planEventsQuery, type EventsQueryResult } from './planner/events-query.js';
import { planHogQLQuery, type HogQLQueryResult } from './planner/hogql-query.js';
import { planFunnelTrends } from './planner/funnel-trends.js';
import { planFunnel, type FunnelResult } from './planner/funnels.js';
import { planTimeToConvert } from './planner/time-to-convert.js';
import { planLifecycle, type LifecycleResult } from './planner/lifecycle.js';
import { matchingValues, valueSetKey, valueSetLookups, valueSetQuery, type Properties, type ResolvedCohort } from './planner/properties.js';
import { planRetention, type RetentionResult } from './planner/retention.js';
import { sql } from './planner/sql.js';
import { planStickiness, type StickinessResult } from './planner/stickiness.js';
import { planPaths, type PathsResult } from './planner/paths.js';
import { planTrends, type TrendsResult } from './planner/trends.js';
import { mapPlannedInsights, parseQuery, plannedInsights, type AnalyticsQuery, type HogQLQuery } from './schemas.js';
import { parseHogQLExpressions, parseHogQLSelect, parseHogQLSources } from './hogql.js';
import { hogqlSources } from './planner/hogql-row.js';
import type { PropertyTypes } from '../definitions/index.js';

export interface RunContext {
  projectId: number;
  /** The project's IANA time zone. */
  timezone: string;
  /** 0: weeks start on Sunday, 1: on Monday. */
  weekStart: 0 | 1;
  nowMs: number;
  /** The project's test_account_filters, applied to queries with filterTestAccounts. */
  testAccountFilters?: unknown[];
  /** The project's path_cleaning_filters, applied before a paths query's own with pathReplacements. */
  pathCleaningFilters?: readonly { regex: string; alias: string }[];
  /** The actions the query's series name (ActionsNode), by id, as the API read them. */
  actions?: Record<string, ResolvedAction>;
  /** The cohorts its property filters name (nested ones too), by id, as the API read them. */
  cohorts?: Record<string, ResolvedCohort>;
  /** The types of the properties its HogQL reads, by the project's definitions, as the API read them. */
  propertyTypes?: PropertyTypes;
}

export type QueryResult = ActorsResult | TrendsResult | FunnelResult | RetentionResult | LifecycleResult | StickinessResult | PathsResult | EventsQueryResult | HogQLQueryResult;

/** What a query's answer carries besides PostHog's own fields (api layer adds the cache ones). */
export interface QueryResponse {
  kind: AnalyticsQuery['kind'];
  results: unknown;
  hasMore?: boolean;
  columns?: string[];
  types?: string[] | [string, string][];
  /** HogQLQuery: the query that ran, and how long its steps took (seconds). */
  hogql?: string;
  timings?: { k: string; t: number }[];
  limit?: number;
  offset?: number;
  timezone: string;
  resolved_date_range?: { date_from: string; date_to: string };
}

// The query's own property lists (an ActorsQuery's and those of the insights planned for it),
// and the steps' of the actions it names (the API resolved exactly those:
// ./api/query-service.ts actionsOf).
function propertyLists(query: AnalyticsQuery, actions: PlanContext['actions']): Properties[] {
  const lists: unknown[] = query.kind === 'ActorsQuery' ? [query.properties, query.fixedProperties] : [];
  for (const { query: q } of plannedInsights(query)) {
    lists.push('properties' in q ? q.properties : null);
    if ('series' in q) for (const node of q.series) lists.push(node.properties, node.fixedProperties);
    if (q.kind === 'RetentionQuery') lists.push(q.retentionFilter.targetEntity?.properties, q.retentionFilter.returningEntity?.properties);
    if (q.kind === 'EventsQuery') lists.push(q.fixedProperties);
    if (q.kind === 'HogQLQuery') lists.push(hogqlFilterProperties(q));
  }
  for (const action of actions.values()) lists.push(...actionPropertyLists(action));
  return lists.filter((p) => p !== null && p !== undefined) as Properties[];
}

/** Date ranges from "all" and first-time retention reach back to the project's first event. */
function needsFirstEvent(query: AnalyticsQuery): boolean {
  return plannedInsights(query).some(({ query: q }) => (q.kind === 'RetentionQuery' && (q.retentionFilter.retentionType ?? 'retention_first_time') === 'retention_first_time')
    || ('dateRange' in q && q.dateRange?.date_from === 'all'));
}

/**
 * filterTestAccounts: the project's test account filters ANDed with the query's properties,
 * so every planner applies them where it applies those (as PostHog adds them to each
 * query's conditions).
 */
function withTestAccountFilters(query: AnalyticsQuery, filters: unknown[]): AnalyticsQuery {
  return mapPlannedInsights(query, (q) => testAccountsIn(q, filters));
}

function testAccountsIn(query: AnalyticsQuery, filters: unknown[]): AnalyticsQuery {
  if (query.kind === 'HogQLQuery') return hogqlTestAccountsIn(query, filters);
  if (query.kind === 'EventsQuery' || query.kind === 'ActorsQuery' || query.filterTestAccounts !== true || filters.length === 0) return query;
  const own = query.properties;
  const values: unknown[] = [{ type: 'AND', values: filters }];
  if (own !== null && own !== undefined) values.unshift(Array.isArray(own) ? { type: 'AND', values: own } : own);
  return { ...query, properties: { type: 'AND', values } } as AnalyticsQuery;
}

/** A HogQLQuery's `filters.properties` (what its {filters} applies) but its session filters (read from sessions, no value sets). */
function hogqlFilterProperties(query: HogQLQuery): unknown {
  const properties = (query.filters as { properties?: unknown } | null | undefined)?.properties;
  return Array.isArray(properties) ? properties.filter((f) => (f as { type?: unknown } | null)?.type !== 'session') : properties;
}

// A HogQLQuery's filters.filterTestAccounts: its {filters} applies the project's test account
// filters with its own properties (PostHog ANDs each with them there).
function hogqlTestAccountsIn(query: HogQLQuery, filters: unknown[]): AnalyticsQuery {
  const given = query.filters as { filterTestAccounts?: unknown; properties?: unknown } | null | undefined;
  if (given?.filterTestAccounts !== true || filters.length === 0) return query;
  const own = given.properties;
  const properties = own === null || own === undefined ? filters
    : Array.isArray(own) ? [...own, ...filters] : { type: 'AND', values: [own, { type: 'AND', values: filters }] };
  return { ...query, filters: { ...given, properties } };
}

// PostHog's pathReplacements: the project's cleaning rules, then the query's own.
function withPathCleaning(query: AnalyticsQuery, rules: readonly { regex: string; alias: string }[]): AnalyticsQuery {
  return mapPlannedInsights(query, (q) => pathCleaningIn(q, rules));
}

function pathCleaningIn(query: AnalyticsQuery, rules: readonly { regex: string; alias: string }[]): AnalyticsQuery {
  if (query.kind !== 'PathsQuery' || query.pathsFilter?.pathReplacements !== true || rules.length === 0) return query;
  const own = query.pathsFilter.localPathCleaningFilters ?? [];
  return { ...query, pathsFilter: { ...query.pathsFilter, localPathCleaningFilters: [...rules.map((r) => ({ regex: r.regex, alias: r.alias })), ...own] } };
}

export async function firstEventMs(db: Columnar, projectId: number): Promise<number | null> {
  const rows = await db.query(sql`SELECT epoch_ms(min(timestamp)) AS t FROM events WHERE project = ${projectId}`);
  const t = rows[0]?.t;
  return t === null || t === undefined ? null : Number(t);
}

async function planFor(query: AnalyticsQuery, ctx: PlanContext, hogql?: HogQLParsePool): Promise<Plan<QueryResult>> {
  switch (query.kind) {
    case 'TrendsQuery': return planTrends(query, ctx);
    case 'FunnelsQuery': {
      const view = query.funnelsFilter?.funnelVizType;
      if (view === 'time_to_convert') return planTimeToConvert(query, ctx);
      return view === 'trends' ? planFunnelTrends(query, ctx) : planFunnel(query, ctx);
    }
    case 'RetentionQuery': return planRetention(query, ctx);
    case 'LifecycleQuery': return planLifecycle(query, ctx);
    case 'StickinessQuery': return planStickiness(query, ctx);
    case 'PathsQuery': return planPaths(query, ctx);
    case 'EventsQuery': return planEventsQuery(query, ctx, await parseHogQLExpressions(query, hogql));
    case 'ActorsQuery': return planActors(query, ctx);
    case 'HogQLQuery': {
      const started = performance.now();
      const ast = await parseHogQLSelect(query.query, hogql);
      return planHogQLQuery(query, ctx, ast, (performance.now() - started) / 1000);
    }
  }
}

/**
 * Validates and runs a query (a bare query or an InsightVizNode / DataTableNode around one).
 * `hogql`: where EventsQuery expressions are parsed (without it, in this thread).
 */
export async function runQuery(db: Columnar, input: unknown, run: RunContext, signal?: AbortSignal, hogql?: HogQLParsePool): Promise<QueryResponse> {
  const query = withPathCleaning(withTestAccountFilters(parseQuery(input), run.testAccountFilters ?? []), run.pathCleaningFilters ?? []);
  const ask = (statement: Parameters<Columnar['query']>[0]) => db.query(statement, signal).catch((err: unknown) => {
    throw (signal?.aborted ? null : queryErrorOf(err)) ?? err;
  });
  const valueSets = new Map<string, string[]>();
  const actions = new Map(Object.values(run.actions ?? {}).map((a) => [a.id, a]));
  const cohorts = new Map(Object.values(run.cohorts ?? {}).map((c) => [c.id, c]));
  // A dynamic cohort's person filters may need value sets too.
  const cohortLists = [...cohorts.values()].filter((c) => !c.is_static).map((c) => c.properties as Properties);
  for (const list of [...propertyLists(query, actions), ...cohortLists]) {
    for (const filter of valueSetLookups(list)) {
      const key = valueSetKey(filter);
      if (valueSets.has(key)) continue;
      const rows = await ask(valueSetQuery(filter, run.projectId));
      valueSets.set(key, matchingValues(filter, rows as { t: string; j: string }[], run.nowMs));
    }
  }
  const ctx: PlanContext = {
    projectId: run.projectId, zone: run.timezone, weekStart: run.weekStart, nowMs: run.nowMs, valueSets, actions, cohorts,
    firstEventMs: needsFirstEvent(query) ? await firstEventMs(db, run.projectId) : null, propertyTypes: run.propertyTypes,
    hogql: await parseHogQLSources(plannedInsights(query).flatMap(({ query: q, attr }) => hogqlSources(q).map((h) => ({ ...h, attr: attr + h.attr }))), hogql),
  };
  const plan = await planFor(query, ctx, hogql);
  const results = [];
  const executing = performance.now();
  for (const statement of plan.statements) results.push(await ask(statement));
  const executeSeconds = (performance.now() - executing) / 1000;
  const shaped = plan.shape(results);
  if ('hogql' in shaped) {
    const { results: rows, timings, ...rest } = shaped;
    return { kind: query.kind, results: rows, ...rest, timings: [...timings, { k: './execute', t: executeSeconds }], timezone: run.timezone };
  }
  const response: QueryResponse = { kind: query.kind, results: shaped.results, timezone: run.timezone };
  if (plan.hogql !== undefined) response.hogql = plan.hogql;
  if ('hasMore' in shaped) response.hasMore = shaped.hasMore;
  if ('dateFrom' in shaped) response.resolved_date_range = { date_from: shaped.dateFrom, date_to: shaped.dateTo };
  if ('columns' in shaped) {
    response.columns = shaped.columns;
    response.types = shaped.types;
    response.limit = shaped.limit;
    response.offset = shaped.offset;
  }
  return response;
}
