// The query kinds of PostHog's query API that the engine runs, as TypeBox schemas: the
// shapes of the fields the engine reads. Which fields an insight query may carry at all
// (honoured, presentation only, or refused) is fields.ts's list, checked first.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { isActorsKind, parseActorsQuery, type ActorsQueryOf, type InsightActorsSourceOf } from './actors-query.js';
import { checkFields } from './fields.js';
import { lazyChecks } from './lazy-checks.js';
import { QueryError, within } from './planner/errors.js';

const Nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const Loose = { additionalProperties: true } as const;

const Interval = Type.Union([Type.Literal('hour'), Type.Literal('day'), Type.Literal('week'), Type.Literal('month')]);

// Property filters are checked where they are planned (planner/properties.ts).
const Properties = Nullable(Type.Union([Type.Array(Type.Any()), Type.Object({}, Loose)]));

export const DateRangeSchema = Type.Object({
  date_from: Nullable(Type.String()),
  date_to: Nullable(Type.String()),
  explicitDate: Nullable(Type.Boolean()),
}, Loose);

export const MATHS = [
  'total', 'dau', 'weekly_active', 'monthly_active', 'unique_session', 'unique_group',
  'sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99', 'hogql',
  // Per actor (person, or group with aggregation_group_type_index) their events in the interval, aggregated over the actors.
  'avg_count_per_actor', 'min_count_per_actor', 'max_count_per_actor', 'median_count_per_actor',
  'p75_count_per_actor', 'p90_count_per_actor', 'p95_count_per_actor', 'p99_count_per_actor',
  // Persons counted once, at their first event of the series (planner/first-time.ts).
  'first_time_for_user', 'first_matching_event_for_user',
] as const;
export type Math = (typeof MATHS)[number];

// What a series has, whether of events or of an action (PostHog's EntityNode).
const entityFields = {
  name: Nullable(Type.String()),
  custom_name: Nullable(Type.String()),
  math: Nullable(Type.Union(MATHS.map((m) => Type.Literal(m)))),
  math_property: Nullable(Type.String()),
  math_property_type: Nullable(Type.String()),
  math_hogql: Nullable(Type.String()),
  // math unique_group: which group type's keys are counted.
  math_group_type_index: Nullable(Type.Integer({ minimum: 0, maximum: 4 })),
  properties: Properties,
  fixedProperties: Properties,
};

export const EventsNodeSchema = Type.Object({
  kind: Type.Optional(Type.Literal('EventsNode')),
  event: Nullable(Type.String()),
  ...entityFields,
}, Loose);

// A series of the events that match a saved action (src/actions/), by the action's id.
export const ActionsNodeSchema = Type.Object({
  kind: Type.Literal('ActionsNode'),
  id: Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[1-9][0-9]{0,15}$' })]),
  ...entityFields,
}, Loose);

// A series: the events of one name (or all), or those matching an action.
const SeriesNodeSchema = Type.Union([EventsNodeSchema, ActionsNodeSchema]);

// A property (or a one-element list of it); a cohort breakdown's cohort ids and "all".
const BreakdownValue = Type.Union([Type.String(), Type.Integer(), Type.Array(Type.Union([Type.String(), Type.Integer()]), { minItems: 1 })]);

export const BreakdownFilterSchema = Type.Object({
  breakdown: Nullable(BreakdownValue),
  breakdown_type: Nullable(Type.Union([Type.Literal('event'), Type.Literal('person'), Type.Literal('hogql'), Type.Literal('group'), Type.Literal('cohort'), Type.Literal('session')])),
  // breakdown_type group: the group type whose property the breakdown reads.
  breakdown_group_type_index: Nullable(Type.Integer({ minimum: 0, maximum: 4 })),
  breakdown_limit: Nullable(Type.Integer({ minimum: 1, maximum: 1000 })),
  breakdown_hide_other_aggregation: Nullable(Type.Boolean()),
  breakdown_normalize_url: Nullable(Type.Boolean()),
  breakdowns: Nullable(Type.Array(Type.Object({
    property: Type.Union([Type.String(), Type.Number()]),
    type: Nullable(Type.Union([Type.Literal('event'), Type.Literal('person'), Type.Literal('hogql'), Type.Literal('group'), Type.Literal('session')])),
    group_type_index: Nullable(Type.Integer({ minimum: 0, maximum: 4 })),
    normalize_url: Nullable(Type.Boolean()),
  }, Loose), { maxItems: 3 })),
}, Loose);

/** A funnel's: hiding "other" is trends' only. */
const FunnelsBreakdownFilterSchema = Type.Omit(BreakdownFilterSchema, ['breakdown_hide_other_aggregation'], Loose);

const CompareFilter = Type.Object({ compare: Nullable(Type.Boolean()), compare_to: Nullable(Type.String()) }, Loose);

const FormulaNode = Type.Object({ formula: Type.String(), custom_name: Nullable(Type.String()) }, Loose);

// What every query over series of events has: the series, their interval and date range,
// and the properties every event must have.
const GroupTypeIndex = Type.Integer({ minimum: 0, maximum: 4 });

const seriesFields = (maxSeries: number) => ({
  series: Type.Array(SeriesNodeSchema, { minItems: 1, maxItems: maxSeries }),
  interval: Nullable(Interval),
  dateRange: Nullable(DateRangeSchema),
  properties: Properties,
  filterTestAccounts: Nullable(Type.Boolean()),
  // Count the groups of this type (their keys) where persons are counted (planner/context.ts actorOf).
  aggregation_group_type_index: Nullable(GroupTypeIndex),
});

/**
 * The trends displays the engine answers: the same series drawn as lines, bars or areas,
 * cumulated, or one total per series. Others (heatmaps, box plots) ask another question.
 */
export const TRENDS_DISPLAYS = [
  'ActionsLineGraph', 'ActionsBar', 'ActionsStackedBar', 'ActionsUnstackedBar', 'ActionsAreaGraph', 'ActionsLineGraphCumulative',
  'BoldNumber', 'ActionsPie', 'ActionsTable', 'WorldMap', 'ActionsBarValue',
] as const;

export const TrendsQuerySchema = Type.Object({
  kind: Type.Literal('TrendsQuery'),
  ...seriesFields(26),
  breakdownFilter: Nullable(BreakdownFilterSchema),
  compareFilter: Nullable(CompareFilter),
  trendsFilter: Nullable(Type.Object({
    display: Nullable(Type.Union(TRENDS_DISPLAYS.map((d) => Type.Literal(d)))),
    smoothingIntervals: Nullable(Type.Integer({ minimum: 1, maximum: 1000 })),
    formula: Nullable(Type.String()),
    formulas: Nullable(Type.Array(Type.String())),
    formulaNodes: Nullable(Type.Array(FormulaNode)),
  }, Loose)),
}, Loose);

// A funnel's exclusion: an EventsNode or ActionsNode (what it matches; its maths and names
// mean nothing here) and the steps between which its events disqualify a try.
const FunnelExclusionSchema = Type.Object({
  kind: Nullable(Type.Union([Type.Literal('EventsNode'), Type.Literal('ActionsNode')])),
  event: Nullable(Type.String()),
  id: Nullable(Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[1-9][0-9]{0,15}$' })])),
  properties: Properties,
  fixedProperties: Properties,
  funnelFromStep: Type.Integer({ minimum: 0 }),
  funnelToStep: Type.Integer({ minimum: 1 }),
}, Loose);
export type FunnelExclusion = Static<typeof FunnelExclusionSchema>;

export const FunnelsQuerySchema = Type.Object({
  kind: Type.Literal('FunnelsQuery'),
  series: Type.Array(SeriesNodeSchema, { minItems: 1, maxItems: 30 }),
  dateRange: Nullable(DateRangeSchema),
  properties: Properties,
  filterTestAccounts: Nullable(Type.Boolean()),
  aggregation_group_type_index: Nullable(GroupTypeIndex),
  breakdownFilter: Nullable(FunnelsBreakdownFilterSchema),
  // Read by the trends view only (planner/funnel-trends.ts): its entrance periods.
  interval: Nullable(Interval),
  funnelsFilter: Nullable(Type.Object({
    funnelWindowInterval: Nullable(Type.Integer({ minimum: 1 })),
    funnelWindowIntervalUnit: Nullable(Type.Union(['second', 'minute', 'hour', 'day', 'week', 'month'].map((u) => Type.Literal(u)))),
    funnelOrderType: Nullable(Type.Union([Type.Literal('ordered'), Type.Literal('strict'), Type.Literal('unordered')])),
    funnelVizType: Nullable(Type.Union([Type.Literal('steps'), Type.Literal('time_to_convert'), Type.Literal('trends')])),
    // funnelFromStep, funnelToStep and binCount are checked where they are read (planner/
    // time-to-convert.ts, funnel-trends.ts): the steps view takes any value of theirs.
    // Events (or an action) that disqualify a try when they come between two of its steps.
    exclusions: Nullable(Type.Array(FunnelExclusionSchema, { maxItems: 10 })),
    breakdownAttributionType: Nullable(Type.Union(['first_touch', 'last_touch', 'all_events', 'step'].map((u) => Type.Literal(u)))),
    breakdownAttributionValue: Nullable(Type.Integer({ minimum: 0 })),
  }, Loose)),
}, Loose);

const RetentionEntity = Type.Object({
  id: Nullable(Type.Union([Type.String(), Type.Number()])),
  kind: Nullable(Type.Union([Type.Literal('EventsNode'), Type.Literal('ActionsNode')])),
  // actions: `id` is an action's (src/actions/), as an ActionsNode's.
  type: Nullable(Type.Union([Type.Literal('events'), Type.Literal('actions')])),
  name: Nullable(Type.String()),
  properties: Properties,
}, Loose);

export const RetentionQuerySchema = Type.Object({
  kind: Type.Literal('RetentionQuery'),
  breakdownFilter: Nullable(Type.Omit(BreakdownFilterSchema, ['breakdown_hide_other_aggregation'], Loose)),
  dateRange: Nullable(DateRangeSchema),
  properties: Properties,
  filterTestAccounts: Nullable(Type.Boolean()),
  aggregation_group_type_index: Nullable(GroupTypeIndex),
  retentionFilter: Type.Object({
    targetEntity: Nullable(RetentionEntity),
    returningEntity: Nullable(RetentionEntity),
    period: Nullable(Type.Union([Type.Literal('Hour'), Type.Literal('Day'), Type.Literal('Week'), Type.Literal('Month')])),
    totalIntervals: Nullable(Type.Integer({ minimum: 1, maximum: 400 })),
    retentionType: Nullable(Type.Union([Type.Literal('retention_first_time'), Type.Literal('retention_recurring')])),
    cumulative: Nullable(Type.Boolean()),
    minimumOccurrences: Nullable(Type.Integer({ minimum: 1, maximum: 1000 })),
  }, Loose),
}, Loose);

export const LifecycleQuerySchema = Type.Object({ kind: Type.Literal('LifecycleQuery'), ...seriesFields(1) }, Loose);

export const StickinessQuerySchema = Type.Object({
  kind: Type.Literal('StickinessQuery'),
  ...seriesFields(26),
  intervalCount: Nullable(Type.Integer({ minimum: 1, maximum: 400 })),
  compareFilter: Nullable(CompareFilter),
  stickinessFilter: Nullable(Type.Object({
    computedAs: Nullable(Type.Union([Type.Literal('non_cumulative'), Type.Literal('cumulative')])),
    stickinessCriteria: Nullable(Type.Object({
      operator: Type.Union([Type.Literal('gte'), Type.Literal('lte'), Type.Literal('exact')]),
      value: Type.Integer({ minimum: 1 }),
    })),
  }, Loose)),
}, Loose);

// Paths: which events are steps, where paths start or end, how items are cleaned and grouped,
// and which edges are answered (planner/paths.ts).
export const PATH_EVENT_TYPES = ['$pageview', '$screen', 'custom_event', 'hogql'] as const;

export const FUNNEL_PATH_TYPES = ['funnel_path_before_step', 'funnel_path_after_step', 'funnel_path_between_steps'] as const;

export const PathsQuerySchema = Type.Object({
  kind: Type.Literal('PathsQuery'),
  dateRange: Nullable(DateRangeSchema),
  properties: Properties,
  filterTestAccounts: Nullable(Type.Boolean()),
  pathsFilter: Nullable(Type.Object({
    includeEventTypes: Nullable(Type.Array(Type.Union(PATH_EVENT_TYPES.map((t) => Type.Literal(t))))),
    startPoint: Nullable(Type.String()),
    endPoint: Nullable(Type.String()),
    stepLimit: Nullable(Type.Integer({ minimum: 0, maximum: 1000 })),
    edgeLimit: Nullable(Type.Integer({ minimum: 0, maximum: 10_000 })),
    minEdgeWeight: Nullable(Type.Integer({ minimum: 0 })),
    maxEdgeWeight: Nullable(Type.Integer({ minimum: 0 })),
    excludeEvents: Nullable(Type.Array(Type.String())),
    pathGroupings: Nullable(Type.Array(Type.String())),
    localPathCleaningFilters: Nullable(Type.Array(Type.Object({ regex: Type.String(), alias: Type.String() }, Loose))),
    // The project's path cleaning rules first (run.ts).
    pathReplacements: Nullable(Type.Boolean()),
    // With includeEventTypes "hogql": each event's path item (pageviews' and screens' too unless their types are included).
    pathsHogQLExpression: Nullable(Type.String()),
    // An InsightActorsQuery's: the step an edge leaves, the step it reaches, the step a path ends at ("n_item").
    pathStartKey: Nullable(Type.String()),
    pathEndKey: Nullable(Type.String()),
    pathDropoffKey: Nullable(Type.String()),
  }, Loose)),
  // Paths before, after or between a funnel's steps, of the persons at that step
  // (planner/paths.ts); funnelSource is parsed as a FunnelsQuery of its own (parseQuery).
  funnelPathsFilter: Nullable(Type.Object({
    funnelPathType: Type.Union(FUNNEL_PATH_TYPES.map((t) => Type.Literal(t))),
    funnelSource: Type.Object({ kind: Type.Literal('FunnelsQuery') }, Loose),
    funnelStep: Nullable(Type.Integer()),
  }, Loose)),
}, Loose);

export const EventsQuerySchema = Type.Object({
  kind: Type.Literal('EventsQuery'),
  select: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 100 }),
  where: Nullable(Type.Array(Type.String({ minLength: 1 }))),
  orderBy: Nullable(Type.Array(Type.String({ minLength: 1 }))),
  limit: Nullable(Type.Integer({ minimum: 1, maximum: 100_000 })),
  offset: Nullable(Type.Integer({ minimum: 0 })),
  event: Nullable(Type.String()),
  properties: Properties,
  fixedProperties: Properties,
  after: Nullable(Type.String()),
  before: Nullable(Type.String()),
  personId: Nullable(Type.String()),
  // Only the events that match this action (src/actions/).
  actionId: Nullable(Type.Integer({ minimum: 1 })),
}, Loose);

export const HogQLQuerySchema = Type.Object({
  kind: Type.Literal('HogQLQuery'),
  query: Type.String({ minLength: 1 }),
  values: Nullable(Type.Record(Type.String(), Type.Any())),
  variables: Nullable(Type.Record(Type.String(), Type.Any())),
  filters: Nullable(Type.Object({}, Loose)),
}, Loose);

export type EventsNode = Static<typeof EventsNodeSchema>;
export type ActionsNode = Static<typeof ActionsNodeSchema>;
export type SeriesNode = EventsNode | ActionsNode;
export type BreakdownFilter = Static<typeof BreakdownFilterSchema>;
export type TrendsQuery = Static<typeof TrendsQuerySchema>;
export type FunnelsQuery = Static<typeof FunnelsQuerySchema>;
export type RetentionQuery = Static<typeof RetentionQuerySchema>;
export type LifecycleQuery = Static<typeof LifecycleQuerySchema>;
export type StickinessQuery = Static<typeof StickinessQuerySchema>;
export type EventsQuery = Static<typeof EventsQuerySchema>;
export type HogQLQuery = Static<typeof HogQLQuerySchema>;
export type PathsQuery = Static<typeof PathsQuerySchema>;
export type DateRange = Static<typeof DateRangeSchema>;
export type RetentionEntityValue = Static<typeof RetentionEntity>;

/** Whether a retention entity is an action's (its type or its kind says so) with an id. */
export const isActionEntity = (e: RetentionEntityValue | null | undefined): e is RetentionEntityValue & { id: string | number } =>
  !!e && (e.type === 'actions' || e.kind === 'ActionsNode') && e.id !== null && e.id !== undefined;

export type AnalyticsQuery = TrendsQuery | FunnelsQuery | RetentionQuery | LifecycleQuery | StickinessQuery | PathsQuery | EventsQuery | HogQLQuery | ActorsQuery;
// The insight queries an ActorsQuery may open the persons of.
type InsightQuery = TrendsQuery | FunnelsQuery | RetentionQuery | LifecycleQuery | StickinessQuery | PathsQuery;
export type InsightActorsSource = InsightActorsSourceOf<InsightQuery, FunnelsQuery>;
export type ActorsQuery = ActorsQueryOf<InsightQuery, FunnelsQuery>;
export type QueryKind = AnalyticsQuery['kind'];

// By kind, looked up as data: a kind such as "__proto__" or "constructor" is just unknown.
interface SchemaError { path: string; message: string; errors?: Iterable<SchemaError>[] }

const SCHEMAS = new Map<string, TSchema>([
  ['TrendsQuery', TrendsQuerySchema],
  ['FunnelsQuery', FunnelsQuerySchema],
  ['RetentionQuery', RetentionQuerySchema],
  ['LifecycleQuery', LifecycleQuerySchema],
  ['StickinessQuery', StickinessQuerySchema],
  ['PathsQuery', PathsQuerySchema],
  ['EventsQuery', EventsQuerySchema],
  ['HogQLQuery', HogQLQuerySchema],
]);
const checkOf = lazyChecks(SCHEMAS);

export const QUERY_KINDS = [...SCHEMAS.keys(), 'ActorsQuery'] as QueryKind[];

/**
 * The deepest error under a union's: a bad value inside an optional object is reported by
 * the field that holds it, not by the object.
 */
function deepest(error: SchemaError): SchemaError {
  let best = error;
  for (const variant of error.errors ?? []) {
    for (const inner of variant) {
      const found = deepest(inner);
      if (found.path.length > best.path.length) best = found;
    }
  }
  return best;
}

function attrOf(path: string): string | null {
  const dotted = path.replace(/^\//, '').replace(/\//g, '.');
  return dotted === '' ? null : dotted;
}

/**
 * The query a request or an insight carries: a bare query, or one wrapped in PostHog's
 * InsightVizNode / DataTableNode (`source`). Throws QueryError naming the first bad field.
 */
export function parseQuery(input: unknown): AnalyticsQuery {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new QueryError('The query must be an object', 'query');
  const node = input as Record<string, unknown>;
  if ((node.kind === 'InsightVizNode' || node.kind === 'DataTableNode' || node.kind === 'DataVisualizationNode') && node.source !== undefined) {
    return parseQuery(node.source);
  }
  const kind = node.kind;
  if (isActorsKind(kind)) return parseActorsQuery<InsightQuery, FunnelsQuery>(node, parseQuery);
  const check = typeof kind === 'string' ? checkOf(kind) : undefined;
  if (check === undefined) {
    throw new QueryError(`Unsupported query kind ${JSON.stringify(kind ?? null)}: supported are ${QUERY_KINDS.join(', ')}`, 'kind');
  }
  checkFields(node);
  if (!check.Check(node)) {
    const found = check.Errors(node).First();
    const first = found ? deepest(found) : undefined;
    const attr = first ? attrOf(first.path) : null;
    throw new QueryError(first ? `${first.message}${attr ? ` at ${attr}` : ''}` : 'Invalid query', attr);
  }
  if (kind === 'PathsQuery') return withFunnelSource(node);
  return node as unknown as AnalyticsQuery;
}

/**
 * The insight queries planned for `query`, each with the prefix its fields are named by in a
 * 400: the query itself (an ActorsQuery: the insight it lists the actors of, named as before
 * from the insight), and a PathsQuery's funnel (funnelPathsFilter.funnelSource). What is
 * resolved before planning (actions, HogQL texts, value sets, test-account filters, the
 * first event) is looked for in each.
 */
export function plannedInsights(query: AnalyticsQuery): { query: AnalyticsQuery; attr: string }[] {
  const insight = query.kind === 'ActorsQuery' ? query.source?.source ?? null : query;
  if (insight === null) return [];
  const funnel = insight.kind === 'PathsQuery' ? insight.funnelPathsFilter?.funnelSource : undefined;
  return funnel ? [{ query: insight, attr: '' }, { query: funnel as unknown as AnalyticsQuery, attr: 'funnelPathsFilter.funnelSource.' }] : [{ query: insight, attr: '' }];
}

/** `query` with `f` applied to each insight query planned for it (plannedInsights). */
export function mapPlannedInsights(query: AnalyticsQuery, f: (insight: AnalyticsQuery) => AnalyticsQuery): AnalyticsQuery {
  if (query.kind === 'ActorsQuery') {
    if (!query.source) return query;
    return { ...query, source: { ...query.source, source: mapPlannedInsights(query.source.source, f) } } as AnalyticsQuery;
  }
  const own = f(query);
  if (own.kind !== 'PathsQuery' || !own.funnelPathsFilter) return own;
  const funnelSource = f(own.funnelPathsFilter.funnelSource as unknown as AnalyticsQuery);
  return { ...own, funnelPathsFilter: { ...own.funnelPathsFilter, funnelSource } } as AnalyticsQuery;
}

// A PathsQuery's funnel (funnelPathsFilter.funnelSource) checked as a FunnelsQuery of its own,
// a bad field named from the PathsQuery.
function withFunnelSource(node: Record<string, unknown>): AnalyticsQuery {
  const filter = node.funnelPathsFilter as Record<string, unknown> | null | undefined;
  if (filter === null || filter === undefined) return node as unknown as AnalyticsQuery;
  const funnelSource = within('funnelPathsFilter.funnelSource', () => parseQuery(filter.funnelSource));
  return { ...node, funnelPathsFilter: { ...filter, funnelSource } } as unknown as AnalyticsQuery;
}
