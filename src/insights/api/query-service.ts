// Answering a query with a refresh mode: from the result cache when the mode allows it,
// calculated at once in the aggregation worker, or in the background with a query status
// to poll. The query API and the insights API both answer through here.
import type { InsightsTables } from '../tables.js';
import { propertyTypesFor, type DefinitionsTables, type PropertyTypes } from '../../definitions/index.js';
import { actionById, projectActions, type ActionRecord, type ActionsTables } from '../../actions/index.js';
import { cohortById, projectCohorts, staticCohortMembers, type FlagsTables } from '../../flags/index.js';
import { COHORT_FILTER_TYPES } from '../../matching/index.js';
import { isObject } from '../../json.js';
import type { ResolvedCohort } from '../planner/properties.js';
import { matchesActionReferences, type ResolvedAction } from '../planner/actions.js';
import { hogqlTexts } from '../planner/hogql-row.js';
import { QueryError } from '../planner/errors.js';
import type { Project } from '../../access/index.js';
import type { InsightsEngine } from '../engine.js';
import { resolvedRangeAt, stalenessInterval } from '../planner/resolved.js';
import type { QueryResponse, RunContext } from '../run.js';
import { isActionEntity, parseQuery, plannedInsights, type AnalyticsQuery } from '../schemas.js';
import { cacheKey, readCached, writeCached, type CachedResult } from './cache.js';
import { decide, minimumRefreshInterval, staleAfter, type RefreshMode } from './refresh.js';
import type { QueryStatus, Statuses } from './statuses.js';

export interface QueryServiceDeps {
  // Actions are read for the series that name them (ActionsNode), cohorts for the filters.
  // Definitions give the types HogQL reads properties as.
  store: InsightsTables & ActionsTables & FlagsTables & DefinitionsTables;
  engine: InsightsEngine;
  statuses: Statuses;
  now(): number;
  newId(): string;
  /** A status that could not be recorded (NATS unreachable): the poll then reads it lost. */
  onStatusError?(err: Error): void;
}

/** What a cached or fresh result adds to its response (PostHog's cache fields). */
export interface ResultFields {
  is_cached: boolean;
  last_refresh: string;
  next_allowed_client_refresh: string;
  cache_target_age: string;
  cache_key: string;
  hogql: string | null;
  modifiers: Record<string, never>;
  timings: { k: string; t: number }[];
}

export type Answer =
  | { kind: 'result'; response: QueryResponse; fields: ResultFields; queryStatus: QueryStatus | null }
  | { kind: 'miss'; cacheKey: string }
  | { kind: 'started'; queryStatus: QueryStatus; cached: { response: QueryResponse; fields: ResultFields } | null };

export interface AnswerOptions {
  mode: RefreshMode;
  clientQueryId?: string | null;
  insightId?: number | null;
}

export function runContext(
  project: Project, now: number, actions?: Record<string, ResolvedAction>, cohorts?: Record<string, ResolvedCohort>, propertyTypes?: PropertyTypes,
): RunContext {
  return {
    projectId: project.id, timezone: project.timezone, weekStart: project.week_start_day === 1 ? 1 : 0, nowMs: now, testAccountFilters: project.test_account_filters ?? [],
    pathCleaningFilters: project.path_cleaning_filters ?? [],
    ...(actions ? { actions } : {}), ...(cohorts ? { cohorts } : {}), ...(propertyTypes ? { propertyTypes } : {}),
  };
}

/**
 * The types of the properties the query's HogQL may read (its texts name them), by the
 * project's definitions as they are now; undefined when none. They go with the query to
 * where it is compiled, and into its cache key: a definition whose type changed asks
 * another question.
 */
export function propertyTypesOf(store: DefinitionsTables, projectId: number, query: AnalyticsQuery): PropertyTypes | undefined {
  return propertyTypesFor(store, projectId, plannedInsights(query).flatMap(({ query: q }) => hogqlTexts(q)));
}

// Every cohort filter in a value (a query, an action's steps, a cohort's groups), with its path.
function cohortFilters(value: unknown, path: string, out: [number, string][]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => cohortFilters(v, path ? `${path}.${i}` : String(i), out));
  } else if (isObject(value)) {
    if (typeof value.type === 'string' && COHORT_FILTER_TYPES.has(value.type) && 'value' in value) {
      const id = Number(value.value);
      if (Number.isSafeInteger(id) && id > 0) out.push([id, path]);
      return;
    }
    for (const [k, v] of Object.entries(value)) cohortFilters(v, path ? `${path}.${k}` : k, out);
  }
}

// A cohort's conditions as filters read them: a leaf without a type is a person property.
function personTyped(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(personTyped);
  if (!isObject(value)) return value;
  if (Array.isArray(value.values)) return { ...value, values: value.values.map(personTyped) };
  return value.type === undefined ? { ...value, type: 'person' } : value;
}

/**
 * The cohorts the query's filters name (and those their conditions name), as they are now;
 * undefined when it names none. A static cohort carries its members. They go where the query
 * runs and into its cache key, as the actions do.
 */
export function cohortsOf(
  store: FlagsTables, projectId: number, query: unknown, actions?: Record<string, ResolvedAction>, testAccounts: unknown[] = [],
): Record<string, ResolvedCohort> | undefined {
  const pending: [number, string][] = [];
  cohortFilters(query, '', pending);
  // A cohort breakdown: the query's, or its source's (an actors query names the insight whose cell it lists).
  for (let node = query, path = ''; isObject(node); node = node.source, path += 'source.') {
    const breakdown = isObject(node.breakdownFilter) ? node.breakdownFilter : null;
    if (breakdown?.breakdown_type !== 'cohort') continue;
    const ids = Array.isArray(breakdown.breakdown) ? breakdown.breakdown : [breakdown.breakdown];
    ids.forEach((id, i) => {
      const n = Number(id);
      if (id !== 'all' && Number.isSafeInteger(n) && n > 0) pending.push([n, `${path}breakdownFilter.breakdown.${i}`]);
    });
  }
  // HogQL names cohorts in its text (IN COHORT, inCohort, cohort_people; a HogQLQuery's, EventsQuery's
  // expressions, an insight's math, breakdown and filters): every live one is resolved.
  if (isObject(query) && hogqlTexts(query).some((text) => /cohort/i.test(text))) {
    for (const c of projectCohorts(store, projectId)) if (!c.deleted) pending.push([c.id, 'query']);
  }
  cohortFilters(testAccounts, 'test_account_filters', pending);
  for (const a of Object.values(actions ?? {})) cohortFilters(a.steps, `action ${a.id}`, pending);
  const out: Record<string, ResolvedCohort> = {};
  while (pending.length > 0) {
    const [id, attr] = pending.pop()!;
    if (Object.hasOwn(out, id)) continue;
    const cohort = cohortById(store, projectId, id);
    if (!cohort || cohort.deleted) throw new QueryError(`Cohort ${id} does not exist`, attr);
    const properties = cohort.is_static ? null : personTyped(cohort.filters.properties);
    out[id] = { id, name: cohort.name, is_static: cohort.is_static, properties, distinctIds: cohort.is_static ? staticCohortMembers(store, projectId, id) : [] };
    if (properties) cohortFilters(properties, `cohort ${id}`, pending);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The actions the cohorts' behavioural conditions name (event_type or seq_event_type
 * "actions", by id), added to those the query names; one not found is left for the planner
 * to refuse, naming the condition.
 */
export function withCohortActions(
  store: ActionsTables, projectId: number, cohorts: Record<string, ResolvedCohort> | undefined, actions?: Record<string, ResolvedAction>,
): Record<string, ResolvedAction> | undefined {
  const ids: number[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isObject(value)) {
      if (value.type === 'behavioral') {
        if (value.event_type === 'actions') ids.push(Number(value.key));
        if (value.seq_event_type === 'actions') ids.push(Number(value.seq_event));
      }
      if (Array.isArray(value.values)) walk(value.values);
    }
  };
  for (const cohort of Object.values(cohorts ?? {})) walk(cohort.properties);
  const out = { ...actions };
  for (const id of ids) {
    if (!Number.isSafeInteger(id) || id <= 0 || Object.hasOwn(out, id)) continue;
    const action = actionById(store, projectId, id);
    if (action && !action.deleted) out[id] = { id: action.id, name: action.name, steps: action.steps };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The live actions the query names (its series, actionId, HogQL's matchesAction), as they are now; undefined when it names none.
 * They go with the query to where it runs, and into its cache key: an action whose steps
 * changed asks another question.
 */
export function actionsOf(store: ActionsTables, projectId: number, asked: AnalyticsQuery): Record<string, ResolvedAction> | undefined {
  const named: [number | string, string][] = [];
  // An ActorsQuery's actions are its insight's; a PathsQuery's, its funnel's.
  for (const { query, attr } of plannedInsights(asked)) {
    if ('series' in query) query.series.forEach((node, i) => { if (node.kind === 'ActionsNode') named.push([node.id, `${attr}series.${i}.id`]); });
    if (query.kind === 'EventsQuery' && typeof query.actionId === 'number') named.push([query.actionId, 'actionId']);
    if (query.kind === 'RetentionQuery') {
      for (const which of ['targetEntity', 'returningEntity'] as const) {
        const entity = query.retentionFilter[which];
        if (isActionEntity(entity)) named.push([entity.id, `${attr}retentionFilter.${which}.id`]);
      }
    }
  }
  const out: Record<string, ResolvedAction> = {};
  const keep = (action: ActionRecord) => { out[action.id] = { id: action.id, name: action.name, steps: action.steps }; };
  for (const [id, attr] of named) {
    const action = actionById(store, projectId, Number(id));
    if (!action || action.deleted) throw new QueryError(`Action ${String(id)} does not exist`, attr);
    keep(action);
  }
  // HogQL's matchesAction(id or name): those found are resolved; the compiler refuses a call
  // whose action is not there (another project's, deleted, or none), naming it.
  let live: ActionRecord[] | null = null;
  for (const ref of plannedInsights(asked).flatMap(({ query }) => hogqlTexts(query)).flatMap(matchesActionReferences)) {
    if (typeof ref === 'number') {
      const action = actionById(store, projectId, ref);
      if (action && !action.deleted) keep(action);
    } else {
      live ??= projectActions(store, projectId).filter((a) => !a.deleted).sort((a, b) => a.id - b.id);
      const action = live.find((a) => a.name === ref);
      if (action) keep(action);
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

// Whether the query asks for the project's test accounts to be left out (a HogQLQuery's in its filters).
function filtersTestAccounts(q: AnalyticsQuery): boolean {
  if (q.kind === 'HogQLQuery') return (q.filters as { filterTestAccounts?: unknown } | null | undefined)?.filterTestAccounts === true;
  return 'filterTestAccounts' in q && q.filterTestAccounts === true;
}

function rangeDays(response: QueryResponse): number | null {
  const r = response.resolved_date_range;
  return r ? (Date.parse(r.date_to) - Date.parse(r.date_from)) / 86_400_000 : null;
}

export function createQueryService(deps: QueryServiceDeps) {
  function fields(query: AnalyticsQuery, key: string, entry: CachedResult, cached: boolean): ResultFields {
    const interval = stalenessInterval(query);
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      is_cached: cached, last_refresh: iso(entry.calculatedAt),
      next_allowed_client_refresh: iso(entry.calculatedAt + minimumRefreshInterval(interval, rangeDays(entry.response))),
      cache_target_age: iso(entry.calculatedAt + staleAfter(interval)), cache_key: key, hogql: entry.response.hogql ?? null, modifiers: {}, timings: entry.response.timings ?? [],
    };
  }

  async function calculate(query: AnalyticsQuery, key: string, context: RunContext, atLeast: number, signal?: AbortSignal): Promise<CachedResult> {
    const { response, position } = await deps.engine.run(query, context, signal, atLeast);
    const entry: CachedResult = { response, calculatedAt: deps.now(), position };
    await writeCached(deps.store, key, entry);
    return entry;
  }

  return {
    /** Validates and answers `input` (a query, or a node wrapping one). Throws QueryError for a bad query. */
    async answer(project: Project, input: unknown, opts: AnswerOptions): Promise<Answer> {
      const query = parseQuery(input);
      const now = deps.now();
      const actions = actionsOf(deps.store, project.id, query);
      const insights = plannedInsights(query).map(({ query: q }) => q);
      const testAccounts = insights.some(filtersTestAccounts) ? project.test_account_filters ?? [] : [];
      const cohorts = cohortsOf(deps.store, project.id, query, actions, testAccounts);
      const context = runContext(project, now, withCohortActions(deps.store, project.id, cohorts, actions), cohorts, propertyTypesOf(deps.store, project.id, query));
      // A paths query with pathReplacements answers by the project's cleaning rules as they are now.
      const paths = insights[0]?.kind === 'PathsQuery' ? insights[0] : undefined;
      const cleaning = paths?.pathsFilter?.pathReplacements === true && context.pathCleaningFilters?.length ? context.pathCleaningFilters : undefined;
      const key = cacheKey(query, project.id, context.timezone, context.weekStart, testAccounts.length ? testAccounts : undefined,
        context.actions || context.cohorts || cleaning || context.propertyTypes
          ? { actions: context.actions, cohorts: context.cohorts, pathCleaning: cleaning, propertyTypes: context.propertyTypes } : undefined);
      const entry = readCached(deps.store, key);
      // What a result must reflect now; a cached one that does is current (unchanged data).
      const position = await deps.engine.position();
      const current = entry !== undefined && entry.position >= position
        && JSON.stringify(entry.response.resolved_date_range ?? null) === JSON.stringify(resolvedRangeAt(query, { zone: context.timezone, weekStart: context.weekStart, nowMs: now, firstEventMs: null }));
      const decision = decide(opts.mode, entry ? { age: now - entry.calculatedAt, current } : null, stalenessInterval(query));
      switch (decision) {
        case 'miss':
          return { kind: 'miss', cacheKey: key };
        case 'cached':
          return { kind: 'result', response: entry!.response, fields: fields(query, key, entry!, true), queryStatus: null };
        case 'calculate': {
          const fresh = await calculate(query, key, context, position);
          return { kind: 'result', response: fresh.response, fields: fields(query, key, fresh, false), queryStatus: null };
        }
        case 'calculate_async': {
          const id = opts.clientQueryId || deps.newId();
          const running = await deps.statuses.get(project.id, id, now);
          const { status, signal } = running && !running.complete ? { status: running, signal: undefined } : await deps.statuses.start(project.id, id, opts.insightId ?? null, now);
          if (signal) {
            calculate(query, key, context, position, signal).then(
              (fresh) => deps.statuses.finish(project.id, id, deps.now(), { results: { ...fresh.response, ...fields(query, key, fresh, false) } }),
              (err: unknown) => deps.statuses.finish(project.id, id, deps.now(), { error: err instanceof Error ? err.message : String(err) }),
            ).catch((err: unknown) => deps.onStatusError?.(err instanceof Error ? err : new Error(String(err))));
          }
          return { kind: 'started', queryStatus: status, cached: entry ? { response: entry.response, fields: fields(query, key, entry, true) } : null };
        }
      }
    },
    status: (projectId: number, id: string) => deps.statuses.get(projectId, id, deps.now()),
    cancel: (projectId: number, id: string) => deps.statuses.cancel(projectId, id, deps.now()),
  };
}

export type QueryService = ReturnType<typeof createQueryService>;
