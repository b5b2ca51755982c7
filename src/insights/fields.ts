// Every field PostHog's query schema gives the insight kinds (frontend/src/queries/schema/
// schema-general.ts and the types it draws on), and what hedgerow does with each:
//   honoured      computed as PostHog computes it (its shape is checked by schemas.ts)
//   presentation  only changes how the answer is drawn or run, never the numbers: accepted
//   refused       not implemented: a 400 naming the field, unless its value is one that
//                 means "off" (absent, null, or one of the listed neutral values), so an
//                 imported insight never gets plausible numbers for a question it did not ask
// A field not listed is refused as unknown, as PostHog's models forbid extra fields.
// Property filter lists are checked where they are planned (planner/properties.ts).
import { QueryError } from './planner/errors.js';

export type FieldRule =
  | { use: 'honoured'; object?: ObjectName; list?: boolean }
  | { use: 'presentation' }
  | { use: 'refused'; neutral: readonly unknown[] };

const H: FieldRule = { use: 'honoured' };
const P: FieldRule = { use: 'presentation' };
const object = (name: ObjectName): FieldRule => ({ use: 'honoured', object: name });
const listOf = (name: ObjectName): FieldRule => ({ use: 'honoured', object: name, list: true });
const refused = (...neutral: unknown[]): FieldRule => ({ use: 'refused', neutral });

export type ObjectName =
  | 'TrendsQuery' | 'FunnelsQuery' | 'RetentionQuery' | 'StickinessQuery' | 'LifecycleQuery'
  | 'EventsNode' | 'ActionsNode' | 'FunnelExclusionEventsNode' | 'FunnelExclusionActionsNode' | 'DateRange' | 'BreakdownFilter' | 'FunnelsBreakdownFilter' | 'RetentionBreakdownFilter' | 'Breakdown' | 'CompareFilter'
  | 'TrendsFilter' | 'FunnelsFilter' | 'RetentionFilter' | 'RetentionEntity' | 'StickinessFilter' | 'LifecycleFilter'
  | 'PathsQuery' | 'PathsFilter' | 'PathCleaningFilter' | 'FunnelPathsFilter';

/** InsightsQueryBase and Node: what every insight query has. */
const INSIGHT_BASE: Record<string, FieldRule> = {
  kind: H,
  version: P,
  dateRange: object('DateRange'),
  // The project's test_account_filters (project API), ANDed with the query's properties.
  filterTestAccounts: H,
  properties: H,
  // Groups of that type counted where persons are (trends' persons maths, funnels, retention, lifecycle).
  aggregation_group_type_index: H,
  samplingFactor: refused(1),
  dataColorTheme: P,
  modifiers: refused({}),
  tags: P,
};

/** PostHog's EntityNode: what a series has, whether of events or of an action. */
const ENTITY_NODE: Record<string, FieldRule> = {
  kind: H,
  version: P,
  // The event's or the action's display name in the editor; results name a series by its
  // event or by the action's name.
  name: P,
  custom_name: H,
  math: H,
  math_multiplier: refused(1),
  math_property: H,
  math_property_type: H,
  math_property_revenue_currency: refused(),
  // With math "hogql" (trends): the aggregate, compiled by the HogQL compiler (planner/hogql-row.ts).
  math_hogql: H,
  math_group_type_index: H,
  properties: H,
  fixedProperties: H,
  optionalInFunnel: refused(false),
};

/** A funnel exclusion: which events it matches and between which steps; PostHog reads no maths or names from it. */
const EXCLUSION_NODE: Record<string, FieldRule> = {
  ...Object.fromEntries(Object.keys(ENTITY_NODE).map((k) => [k, P])),
  kind: H,
  properties: H,
  fixedProperties: H,
  funnelFromStep: H,
  funnelToStep: H,
};

export const FIELD_RULES: Record<ObjectName, Record<string, FieldRule>> = {
  TrendsQuery: {
    ...INSIGHT_BASE,
    interval: H,
    series: listOf('EventsNode'),
    trendsFilter: object('TrendsFilter'),
    // Only read by the CalendarHeatmap display, which schemas.ts does not accept.
    calendarHeatmapFilter: P,
    breakdownFilter: object('BreakdownFilter'),
    compareFilter: object('CompareFilter'),
    conversionGoal: refused(),
  },
  FunnelsQuery: {
    ...INSIGHT_BASE,
    // The trends view's entrance periods (planner/funnel-trends.ts); the other views have none.
    interval: H,
    series: listOf('EventsNode'),
    funnelsFilter: object('FunnelsFilter'),
    breakdownFilter: object('FunnelsBreakdownFilter'),
    compareFilter: refused({}, { compare: false }),
  },
  RetentionQuery: {
    ...INSIGHT_BASE,
    retentionFilter: object('RetentionFilter'),
    breakdownFilter: object('RetentionBreakdownFilter'),
  },
  // PostHog's StickinessQuery omits aggregation_group_type_index (so refuses it): a series
  // counts groups by its math unique_group.
  StickinessQuery: {
    ...Object.fromEntries(Object.entries(INSIGHT_BASE).filter(([k]) => k !== 'aggregation_group_type_index')),
    interval: H,
    // Spans of that many days counted back from date_to (planner/stickiness.ts; other intervals: 1 only).
    intervalCount: H,
    series: listOf('EventsNode'),
    stickinessFilter: object('StickinessFilter'),
    compareFilter: object('CompareFilter'),
  },
  LifecycleQuery: {
    ...INSIGHT_BASE,
    interval: H,
    series: listOf('EventsNode'),
    lifecycleFilter: object('LifecycleFilter'),
    customAggregationTarget: refused(false),
  },
  PathsQuery: {
    ...INSIGHT_BASE,
    // PostHog follows persons' paths whatever the group type; the actors of a group type are not listed yet.
    aggregation_group_type_index: refused(),
    pathsFilter: object('PathsFilter'),
    // Paths before, after or between a funnel's steps (planner/paths.ts).
    funnelPathsFilter: object('FunnelPathsFilter'),
  },
  FunnelPathsFilter: {
    funnelPathType: H,
    // A FunnelsQuery, its own fields checked as one (schemas.ts parseQuery).
    funnelSource: H,
    funnelStep: H,
  },
  PathsFilter: {
    includeEventTypes: H,
    startPoint: H,
    endPoint: H,
    stepLimit: H,
    edgeLimit: H,
    minEdgeWeight: H,
    maxEdgeWeight: H,
    excludeEvents: H,
    pathGroupings: H,
    localPathCleaningFilters: listOf('PathCleaningFilter'),
    // The project's path_cleaning_filters (project API), applied before the local ones (run.ts).
    pathReplacements: H,
    // With includeEventTypes "hogql": the event's path item (planner/paths.ts, HogQL compiler).
    pathsHogQLExpression: H,
    // Which persons an InsightActorsQuery over the paths lists (actors-query.ts takes them out
    // of its source; planner/paths.ts pathsActors): a PathsQuery of its own refuses them, as
    // its edges never depend on them.
    pathStartKey: refused(),
    pathEndKey: refused(),
    pathDropoffKey: refused(),
    showFullUrls: P,
  },
  // Applied in list order; `order` is the editor's.
  PathCleaningFilter: { regex: H, alias: H, order: P },
  EventsNode: {
    ...ENTITY_NODE,
    event: H,
    // A series node is never queried as a data node: its row limit and order have no use.
    limit: P,
    orderBy: P,
  },
  // The action's id (src/actions/): the series is the events that match it.
  ActionsNode: { ...ENTITY_NODE, id: H },
  // A funnel's exclusion (planner/funnel-exclusions.ts): the events, or an action's, that
  // disqualify a try when they come between its steps funnelFromStep and funnelToStep.
  FunnelExclusionEventsNode: { ...EXCLUSION_NODE, event: H, limit: P, orderBy: P },
  FunnelExclusionActionsNode: { ...EXCLUSION_NODE, id: H },
  DateRange: { date_from: H, date_to: H, explicitDate: H },
  BreakdownFilter: {
    breakdown_type: H,
    breakdown_limit: H,
    breakdown: H,
    // Trends only (funnels and retention refuse it, planner/breakdown.ts).
    breakdown_normalize_url: H,
    // Several properties at once (trends): values are lists, labels joined with "::".
    breakdowns: listOf('Breakdown'),
    breakdown_group_type_index: H,
    breakdown_histogram_bin_count: refused(),
    breakdown_hide_other_aggregation: H,
  },
  // Funnels: one property or several (each value a list, as in trends).
  FunnelsBreakdownFilter: {
    breakdown_type: H,
    breakdown_limit: H,
    breakdown: H,
    breakdown_normalize_url: refused(false),
    breakdowns: listOf('Breakdown'),
    breakdown_group_type_index: H,
    breakdown_histogram_bin_count: refused(),
    // PostHog reads it for trends only; a funnel's folded values stay.
    breakdown_hide_other_aggregation: P,
  },
  // Retention: one property, given either way (planner/retention.ts refuses a second), or cohorts.
  RetentionBreakdownFilter: {
    breakdown_type: H,
    breakdown_limit: H,
    breakdown: H,
    breakdown_normalize_url: refused(false),
    breakdowns: listOf('Breakdown'),
    breakdown_group_type_index: H,
    breakdown_histogram_bin_count: refused(),
    // PostHog reads it for trends only.
    breakdown_hide_other_aggregation: P,
  },
  Breakdown: {
    property: H,
    type: H,
    normalize_url: H,
    histogram_bin_count: refused(),
    group_type_index: H,
  },
  // compare_to moves the compared period (trends, stickiness) and only with compare on, as PostHog.
  CompareFilter: { compare: H, compare_to: H },
  TrendsFilter: {
    smoothingIntervals: H,
    formula: H,
    formulas: H,
    formulaNodes: H,
    display: H,
    breakdown_histogram_bin_count: refused(),
    ...presentation(
      'showLegend', 'legendPosition', 'showAlertThresholdLines', 'aggregationAxisFormat', 'aggregationAxisPrefix',
      'aggregationAxisPostfix', 'decimalPlaces', 'minDecimalPlaces', 'xAxisLabel', 'yAxisLabel', 'showValuesOnSeries',
      'showLabelsOnSeries', 'showPercentStackView', 'stackBreakdownValues', 'yAxisScaleType', 'showMultipleYAxes',
      'hiddenLegendIndexes', 'resultCustomizationBy', 'resultCustomizations', 'goalLines', 'showConfidenceIntervals',
      'confidenceLevel', 'showTrendLines', 'showMovingAverage', 'movingAverageIntervals', 'detailedResultsAggregationType',
      'excludeBoxPlotOutliers', 'hideWeekends', 'showAnnotations', 'metricShowChange', 'metricChangeIncreaseColor',
      'metricChangeDecreaseColor', 'metricColorByDirection', 'metricLineIncreaseColor', 'metricLineDecreaseColor', 'metricSummary',
    ),
  },
  FunnelsFilter: {
    exclusions: listOf('FunnelExclusionEventsNode'),
    breakdownAttributionType: H,
    breakdownAttributionValue: H,
    funnelAggregateByHogQL: refused(),
    customAggregationTarget: refused(false),
    funnelOrderType: H,
    funnelVizType: H,
    funnelWindowInterval: H,
    funnelWindowIntervalUnit: H,
    // Read by the time_to_convert view (planner/time-to-convert.ts: the histogram's bins and
    // the steps timed) and the trends view (planner/funnel-trends.ts: the steps whose
    // conversion rate is drawn); the steps view's answer is the same with or without them.
    binCount: H,
    funnelFromStep: H,
    funnelToStep: H,
    hideIncompleteConversionWindowPeriods: P,
    // Engine choice in PostHog (its UDF or SQL), the same answer.
    useUdf: P,
    // Percentages against the first or the previous step: drawn from the same counts.
    funnelStepReference: P,
    ...presentation(
      'layout', 'hiddenLegendBreakdowns', 'resultCustomizations', 'goalLines', 'showTrendLines', 'showLegend',
      'legendPosition', 'showValuesOnSeries', 'breakdownSorting', 'showAnnotations',
    ),
  },
  RetentionFilter: {
    retentionType: H,
    totalIntervals: H,
    returningEntity: object('RetentionEntity'),
    targetEntity: object('RetentionEntity'),
    period: H,
    minimumOccurrences: H,
    cumulative: H,
    timeWindowMode: refused('strict_calendar_dates'),
    retentionCustomBrackets: refused(),
    aggregationType: refused('count'),
    aggregationProperty: refused(),
    aggregationPropertyType: refused('event'),
    customAggregationTarget: refused(false),
    // Percentages against the cohort or the previous period: drawn from the same counts.
    retentionReference: P,
    ...presentation('meanRetentionCalculation', 'display', 'dashboardDisplay', 'showTrendLines', 'selectedInterval', 'goalLines', 'cohortLabelStartIndex'),
  },
  RetentionEntity: { id: H, kind: H, type: H, properties: H, ...presentation('name', 'order', 'uuid', 'custom_name') },
  StickinessFilter: {
    stickinessCriteria: H,
    // cumulative: each bar the actors active in n intervals or more (planner/stickiness.ts).
    computedAs: H,
    ...presentation('display', 'showLegend', 'legendPosition', 'showValuesOnSeries', 'showMultipleYAxes', 'hiddenLegendIndexes', 'resultCustomizationBy', 'resultCustomizations'),
  },
  LifecycleFilter: {
    // PostHog returns all four statuses and the chart hides the toggled ones.
    toggledLifecycles: P,
    ...presentation('showValuesOnSeries', 'showPercentagesOnSeries', 'showLegend', 'legendPosition', 'stacked'),
  },
};

function presentation(...names: string[]): Record<string, FieldRule> {
  return Object.fromEntries(names.map((n) => [n, P]));
}

/** Whether a value means "off" for a refused field. */
function isNeutral(value: unknown, neutral: readonly unknown[]): boolean {
  if (value === null || value === undefined) return true;
  const text = JSON.stringify(value);
  return neutral.some((n) => JSON.stringify(n) === text);
}

// A series (or exclusion) item is of events or of an action, told apart by its kind.
function itemRules(item: unknown, name: ObjectName): ObjectName {
  const actions = typeof item === 'object' && item !== null && (item as { kind?: unknown }).kind === 'ActionsNode';
  if (!actions) return name;
  if (name === 'EventsNode') return 'ActionsNode';
  if (name === 'FunnelExclusionEventsNode') return 'FunnelExclusionActionsNode';
  return name;
}

function walk(value: unknown, name: ObjectName, path: string): void {
  // Shapes (an object where one is due) are schemas.ts's to report.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const rules = FIELD_RULES[name];
  for (const [key, child] of Object.entries(value)) {
    const attr = path === '' ? key : `${path}.${key}`;
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
    if (rule === undefined) throw new QueryError(`Unknown field "${key}" in ${name}`, attr);
    if (rule.use === 'refused') {
      if (!isNeutral(child, rule.neutral)) throw new QueryError(`${attr} is not supported by hedgerow`, attr);
      continue;
    }
    if (rule.use === 'honoured' && rule.object !== undefined) {
      if (rule.list && Array.isArray(child)) child.forEach((item, i) => walk(item, itemRules(item, rule.object!), `${attr}.${i}`));
      else if (!rule.list) walk(child, rule.object, attr);
    }
  }
}

/**
 * Throws QueryError naming the first field of an insight query that hedgerow does not
 * compute (or that PostHog's schema does not have). Kinds without rules pass untouched.
 */
export function checkFields(query: Record<string, unknown>): void {
  const kind = query.kind;
  if (typeof kind === 'string' && Object.hasOwn(FIELD_RULES, kind) && kind.endsWith('Query')) walk(query, kind as ObjectName, '');
}
