// Nothing silently ignored: every field PostHog's query schema gives the insight kinds
// (listed here from PostHog's frontend/src/queries/schema/schema-general.ts, independently
// of hedgerow's own list) is either honoured (setting it changes the answer on a small event
// set), presentation only (setting it leaves the answer as it was) or refused (a 400 naming
// the field, while its "off" value passes).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIELD_RULES, type ObjectName } from '../../src/insights/fields.js';
import { QueryError } from '../../src/insights/planner/errors.js';
import { parseQuery } from '../../src/insights/schemas.js';
import { ev, PROJECT, run, storePerSuite, type TestStore } from './helpers.js';

const BASE = ['kind', 'version', 'dateRange', 'filterTestAccounts', 'properties', 'aggregation_group_type_index', 'samplingFactor', 'dataColorTheme', 'modifiers', 'tags'];

/** PostHog's fields per object. */
const POSTHOG_FIELDS: Record<ObjectName, string[]> = {
  TrendsQuery: [...BASE, 'interval', 'series', 'trendsFilter', 'calendarHeatmapFilter', 'breakdownFilter', 'compareFilter', 'conversionGoal'],
  FunnelsQuery: [...BASE, 'interval', 'series', 'funnelsFilter', 'breakdownFilter', 'compareFilter'],
  RetentionQuery: [...BASE, 'retentionFilter', 'breakdownFilter'],
  StickinessQuery: [...BASE.filter((f) => f !== 'aggregation_group_type_index'), 'interval', 'intervalCount', 'series', 'stickinessFilter', 'compareFilter'],
  LifecycleQuery: [...BASE, 'interval', 'series', 'lifecycleFilter', 'customAggregationTarget'],
  EventsNode: [
    'kind', 'version', 'event', 'name', 'custom_name', 'math', 'math_multiplier', 'math_property', 'math_property_type', 'math_property_revenue_currency',
    'math_hogql', 'math_group_type_index', 'properties', 'fixedProperties', 'optionalInFunnel', 'limit', 'orderBy',
  ],
  ActionsNode: [
    'kind', 'version', 'id', 'name', 'custom_name', 'math', 'math_multiplier', 'math_property', 'math_property_type', 'math_property_revenue_currency',
    'math_hogql', 'math_group_type_index', 'properties', 'fixedProperties', 'optionalInFunnel',
  ],
  FunnelExclusionEventsNode: [
    'kind', 'version', 'event', 'name', 'custom_name', 'math', 'math_multiplier', 'math_property', 'math_property_type', 'math_property_revenue_currency',
    'math_hogql', 'math_group_type_index', 'properties', 'fixedProperties', 'optionalInFunnel', 'limit', 'orderBy', 'funnelFromStep', 'funnelToStep',
  ],
  FunnelExclusionActionsNode: [
    'kind', 'version', 'id', 'name', 'custom_name', 'math', 'math_multiplier', 'math_property', 'math_property_type', 'math_property_revenue_currency',
    'math_hogql', 'math_group_type_index', 'properties', 'fixedProperties', 'optionalInFunnel', 'funnelFromStep', 'funnelToStep',
  ],
  DateRange: ['date_from', 'date_to', 'explicitDate'],
  BreakdownFilter: ['breakdown_type', 'breakdown_limit', 'breakdown', 'breakdown_normalize_url', 'breakdowns', 'breakdown_group_type_index', 'breakdown_histogram_bin_count', 'breakdown_hide_other_aggregation'],
  // The same BreakdownFilter, as a funnel carries it.
  FunnelsBreakdownFilter: ['breakdown_type', 'breakdown_limit', 'breakdown', 'breakdown_normalize_url', 'breakdowns', 'breakdown_group_type_index', 'breakdown_histogram_bin_count', 'breakdown_hide_other_aggregation'],
  RetentionBreakdownFilter: ['breakdown_type', 'breakdown_limit', 'breakdown', 'breakdown_normalize_url', 'breakdowns', 'breakdown_group_type_index', 'breakdown_histogram_bin_count', 'breakdown_hide_other_aggregation'],
  Breakdown: ['property', 'type', 'normalize_url', 'histogram_bin_count', 'group_type_index'],
  CompareFilter: ['compare', 'compare_to'],
  TrendsFilter: [
    'smoothingIntervals', 'formula', 'formulas', 'formulaNodes', 'display', 'showLegend', 'legendPosition', 'showAlertThresholdLines', 'breakdown_histogram_bin_count',
    'aggregationAxisFormat', 'aggregationAxisPrefix', 'aggregationAxisPostfix', 'decimalPlaces', 'minDecimalPlaces', 'xAxisLabel', 'yAxisLabel', 'showValuesOnSeries',
    'showLabelsOnSeries', 'showPercentStackView', 'stackBreakdownValues', 'yAxisScaleType', 'showMultipleYAxes', 'hiddenLegendIndexes', 'resultCustomizationBy',
    'resultCustomizations', 'goalLines', 'showConfidenceIntervals', 'confidenceLevel', 'showTrendLines', 'showMovingAverage', 'movingAverageIntervals',
    'detailedResultsAggregationType', 'excludeBoxPlotOutliers', 'hideWeekends', 'showAnnotations', 'metricShowChange', 'metricChangeIncreaseColor',
    'metricChangeDecreaseColor', 'metricColorByDirection', 'metricLineIncreaseColor', 'metricLineDecreaseColor', 'metricSummary',
  ],
  FunnelsFilter: [
    'exclusions', 'layout', 'binCount', 'breakdownAttributionType', 'breakdownAttributionValue', 'funnelAggregateByHogQL', 'customAggregationTarget', 'funnelToStep',
    'funnelFromStep', 'funnelOrderType', 'funnelVizType', 'funnelWindowInterval', 'funnelWindowIntervalUnit', 'hiddenLegendBreakdowns', 'funnelStepReference', 'useUdf',
    'resultCustomizations', 'goalLines', 'showTrendLines', 'showLegend', 'legendPosition', 'showValuesOnSeries', 'breakdownSorting', 'showAnnotations',
    'hideIncompleteConversionWindowPeriods',
  ],
  RetentionFilter: [
    'retentionType', 'retentionReference', 'totalIntervals', 'minimumOccurrences', 'returningEntity', 'targetEntity', 'period', 'cumulative', 'timeWindowMode',
    'retentionCustomBrackets', 'aggregationType', 'aggregationProperty', 'aggregationPropertyType', 'customAggregationTarget', 'meanRetentionCalculation', 'display',
    'dashboardDisplay', 'showTrendLines', 'selectedInterval', 'goalLines', 'cohortLabelStartIndex',
  ],
  RetentionEntity: ['id', 'kind', 'name', 'type', 'order', 'uuid', 'custom_name', 'properties'],
  StickinessFilter: ['display', 'showLegend', 'legendPosition', 'showValuesOnSeries', 'showMultipleYAxes', 'hiddenLegendIndexes', 'stickinessCriteria', 'computedAs', 'resultCustomizationBy', 'resultCustomizations'],
  LifecycleFilter: ['showValuesOnSeries', 'showPercentagesOnSeries', 'toggledLifecycles', 'showLegend', 'legendPosition', 'stacked'],
  PathsQuery: [...BASE, 'pathsFilter', 'funnelPathsFilter'],
  PathsFilter: [
    'edgeLimit', 'pathsHogQLExpression', 'includeEventTypes', 'startPoint', 'endPoint', 'pathGroupings', 'excludeEvents', 'stepLimit', 'pathReplacements',
    'localPathCleaningFilters', 'minEdgeWeight', 'maxEdgeWeight', 'pathStartKey', 'pathEndKey', 'pathDropoffKey', 'showFullUrls',
  ],
  PathCleaningFilter: ['regex', 'alias', 'order'],
  FunnelPathsFilter: ['funnelPathType', 'funnelSource', 'funnelStep'],
};

type Query = Record<string, unknown>;
const chrome = [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }];
const pageview = { kind: 'EventsNode', event: '$pageview' };
const signup = { kind: 'EventsNode', event: 'signup' };
const range = { date_from: '-7d' };

const BASES: Record<string, Query> = {
  TrendsQuery: { kind: 'TrendsQuery', series: [pageview], dateRange: range, interval: 'day' },
  FunnelsQuery: { kind: 'FunnelsQuery', series: [pageview, signup], dateRange: { date_from: '-14d' } },
  RetentionQuery: {
    kind: 'RetentionQuery', dateRange: { date_from: '-7d' },
    retentionFilter: { targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' }, period: 'Day', totalIntervals: 7 },
  },
  StickinessQuery: { kind: 'StickinessQuery', series: [pageview], dateRange: range, interval: 'day' },
  LifecycleQuery: { kind: 'LifecycleQuery', series: [pageview], dateRange: range, interval: 'day' },
  PathsQuery: { kind: 'PathsQuery', dateRange: { date_from: '-14d' }, pathsFilter: {} },
};

/** Where each object is walked: the kind it is tried in, its path there, what it needs to be whole. */
const oneBreakdown = (q: Query) => { q.breakdownFilter = { breakdowns: [{ property: '$browser' }] }; };
// A page view, a signup and a page view again, no "other" event from the first to the last.
const withExclusion = (q: Query) => {
  q.series = [pageview, signup, pageview];
  q.funnelsFilter = { exclusions: [{ kind: 'EventsNode', event: 'other', funnelFromStep: 0, funnelToStep: 2 }] };
};
// Paths after a funnel's first step: a page view, then a click.
const afterPageview = () => ({
  funnelPathType: 'funnel_path_after_step', funnelStep: 1,
  funnelSource: { kind: 'FunnelsQuery', series: [pageview, { kind: 'EventsNode', event: 'click' }], dateRange: { date_from: '-14d' } },
});
const HOSTS: [ObjectName, string, string, ((q: Query) => void)?][] = [
  ['TrendsQuery', 'TrendsQuery', ''], ['FunnelsQuery', 'FunnelsQuery', ''], ['RetentionQuery', 'RetentionQuery', ''],
  ['StickinessQuery', 'StickinessQuery', ''], ['LifecycleQuery', 'LifecycleQuery', ''],
  ['EventsNode', 'TrendsQuery', 'series.0'], ['DateRange', 'TrendsQuery', 'dateRange'], ['BreakdownFilter', 'TrendsQuery', 'breakdownFilter'],
  ['FunnelsBreakdownFilter', 'FunnelsQuery', 'breakdownFilter'], ['RetentionBreakdownFilter', 'RetentionQuery', 'breakdownFilter'], ['Breakdown', 'TrendsQuery', 'breakdownFilter.breakdowns.0', oneBreakdown],
  ['CompareFilter', 'TrendsQuery', 'compareFilter'], ['TrendsFilter', 'TrendsQuery', 'trendsFilter'], ['FunnelsFilter', 'FunnelsQuery', 'funnelsFilter'],
  ['RetentionFilter', 'RetentionQuery', 'retentionFilter'], ['RetentionEntity', 'RetentionQuery', 'retentionFilter.targetEntity'],
  ['FunnelExclusionEventsNode', 'FunnelsQuery', 'funnelsFilter.exclusions.0', withExclusion],
  ['StickinessFilter', 'StickinessQuery', 'stickinessFilter'], ['LifecycleFilter', 'LifecycleQuery', 'lifecycleFilter'],
  ['PathsQuery', 'PathsQuery', ''], ['PathsFilter', 'PathsQuery', 'pathsFilter'],
  ['PathCleaningFilter', 'PathsQuery', 'pathsFilter.localPathCleaningFilters.0', (q) => { q.pathsFilter = { localPathCleaningFilters: [{ regex: '/b', alias: '/x' }] }; }],
  ['FunnelPathsFilter', 'PathsQuery', 'funnelPathsFilter', (q) => { q.funnelPathsFilter = afterPageview(); }],
];

/**
 * For each honoured field (by kind and path): a value that changes the answer on the events
 * below, and what the query needs besides for the field to matter (`base`, set on both
 * sides); `only`: a field whose one accepted value is its default (others are refused).
 */
interface Sample { value?: unknown; base?: (q: Query) => void; only?: unknown }
const withBreakdown = (q: Query) => { q.breakdownFilter = { breakdown: '$browser' }; };
const byGroup = (q: Query) => { q.breakdownFilter = { breakdown_type: 'group', breakdown_group_type_index: 0, breakdown: 'industry' }; };
// Time to convert over a page view, an "other" event and a signup (only person 2 does all three).
const viewOtherSignup = (q: Query) => { q.series = [pageview, { kind: 'EventsNode', event: 'other' }, signup]; q.funnelsFilter = { funnelVizType: 'time_to_convert' }; };
const sumOfAmount = (q: Query) => { (q.series as Query[])[0] = { ...pageview, math: 'sum', math_property: 'amount' }; };
const SAMPLES: Record<string, Sample> = {
  'TrendsQuery kind': { only: 'TrendsQuery' },
  'TrendsQuery dateRange': { value: { date_from: '-1d' } },
  'TrendsQuery properties': { value: chrome },
  'TrendsQuery filterTestAccounts': { value: true },
  'TrendsQuery aggregation_group_type_index': { base: (q) => { (q.series as Query[])[0] = { ...pageview, math: 'dau' }; }, value: 1 },
  'TrendsQuery interval': { value: 'week' },
  'TrendsQuery series': { value: [signup] },
  'TrendsQuery trendsFilter': { value: { display: 'BoldNumber' } },
  'TrendsQuery breakdownFilter': { value: { breakdown: '$browser' } },
  'TrendsQuery compareFilter': { value: { compare: true } },
  'FunnelsQuery kind': { only: 'FunnelsQuery' },
  'FunnelsQuery dateRange': { value: { date_from: '-2d' } },
  'FunnelsQuery properties': { value: chrome },
  'FunnelsQuery filterTestAccounts': { value: true },
  'FunnelsQuery aggregation_group_type_index': { value: 1 },
  'FunnelsQuery series': { value: [pageview, { kind: 'EventsNode', event: 'other' }] },
  'FunnelsQuery funnelsFilter': { value: { funnelWindowInterval: 1 } },
  'FunnelsQuery breakdownFilter': { value: { breakdown: '$browser' } },
  'FunnelsQuery interval': { base: (q) => { q.funnelsFilter = { funnelVizType: 'trends' }; }, value: 'week' },
  'RetentionQuery kind': { only: 'RetentionQuery' },
  'RetentionQuery dateRange': { value: { date_from: '-3d' } },
  'RetentionQuery properties': { value: chrome },
  'RetentionQuery filterTestAccounts': { value: true },
  'RetentionQuery aggregation_group_type_index': { value: 1 },
  'RetentionQuery retentionFilter': { value: { period: 'Week' } },
  'StickinessQuery kind': { only: 'StickinessQuery' },
  'StickinessQuery dateRange': { value: { date_from: '-2d' } },
  'StickinessQuery properties': { value: chrome },
  'StickinessQuery filterTestAccounts': { value: true },
  'StickinessQuery interval': { value: 'week' },
  'StickinessQuery series': { value: [signup] },
  'StickinessQuery compareFilter': { value: { compare: true } },
  'LifecycleQuery kind': { only: 'LifecycleQuery' },
  'LifecycleQuery dateRange': { value: { date_from: '-2d' } },
  'LifecycleQuery properties': { value: chrome },
  'LifecycleQuery filterTestAccounts': { value: true },
  'LifecycleQuery interval': { value: 'week' },
  'LifecycleQuery aggregation_group_type_index': { value: 1 },
  'LifecycleQuery series': { value: [signup] },
  'TrendsQuery series.0.kind': { only: 'EventsNode' },
  'TrendsQuery series.0.event': { value: 'signup' },
  'TrendsQuery series.0.custom_name': { value: 'Views' },
  'TrendsQuery series.0.math': { value: 'dau' },
  'TrendsQuery series.0.math_property': { base: sumOfAmount, value: 'other_amount' },
  'TrendsQuery series.0.math_property_type': { base: sumOfAmount, value: 'person_properties' },
  'TrendsQuery series.0.math_hogql': { base: (q) => { (q.series as Query[])[0] = { ...pageview, math: 'hogql', math_hogql: 'count()' }; }, value: 'sum(toFloat(properties.amount))' },
  'TrendsQuery series.0.math_group_type_index': { base: (q) => { (q.series as Query[])[0] = { ...pageview, math: 'unique_group', math_group_type_index: 0 }; }, value: 1 },
  'TrendsQuery series.0.properties': { value: chrome },
  'TrendsQuery series.0.fixedProperties': { value: chrome },
  'TrendsQuery dateRange.date_from': { value: '-1d' },
  'TrendsQuery dateRange.date_to': { value: '-1d' },
  'TrendsQuery dateRange.explicitDate': { value: true },
  'TrendsQuery breakdownFilter.breakdown': { value: '$browser' },
  'TrendsQuery breakdownFilter.breakdown_type': { base: withBreakdown, value: 'person' },
  'TrendsQuery breakdownFilter.breakdown_limit': { base: withBreakdown, value: 1 },
  'TrendsQuery breakdownFilter.breakdown_hide_other_aggregation': { base: (q) => { q.breakdownFilter = { breakdown: '$browser', breakdown_limit: 1 }; }, value: true },
  'TrendsQuery breakdownFilter.breakdowns': { value: [{ property: '$browser' }, { property: 'amount' }] },
  'TrendsQuery breakdownFilter.breakdowns.0.property': { value: 'amount' },
  'TrendsQuery breakdownFilter.breakdowns.0.type': { value: 'person' },
  'TrendsQuery breakdownFilter.breakdowns.0.normalize_url': { base: (q) => { q.breakdownFilter = { breakdowns: [{ property: '$current_url' }] }; }, value: true },
  'TrendsQuery breakdownFilter.breakdown_group_type_index': { base: byGroup, value: 1 },
  'TrendsQuery breakdownFilter.breakdowns.0.group_type_index': { base: (q) => { q.breakdownFilter = { breakdowns: [{ property: 'industry', type: 'group', group_type_index: 0 }] }; }, value: 1 },
  'FunnelsQuery breakdownFilter.breakdown_group_type_index': { base: byGroup, value: 1 },
  'RetentionQuery breakdownFilter.breakdown_group_type_index': { base: byGroup, value: 1 },
  'TrendsQuery breakdownFilter.breakdown_normalize_url': { base: (q) => { q.breakdownFilter = { breakdown: '$current_url' }; }, value: true },
  'FunnelsQuery breakdownFilter.breakdown': { value: '$browser' },
  'FunnelsQuery breakdownFilter.breakdown_type': { base: withBreakdown, value: 'person' },
  'FunnelsQuery breakdownFilter.breakdown_limit': { base: withBreakdown, value: 1 },
  'TrendsQuery compareFilter.compare': { value: true },
  'TrendsQuery compareFilter.compare_to': { base: (q) => { q.compareFilter = { compare: true }; }, value: '-1d' },
  'TrendsQuery trendsFilter.formula': { value: 'A * 2' },
  'TrendsQuery trendsFilter.formulas': { value: ['A * 2'] },
  'TrendsQuery trendsFilter.formulaNodes': { value: [{ formula: 'A * 2' }] },
  'TrendsQuery trendsFilter.display': { value: 'ActionsLineGraphCumulative' },
  'TrendsQuery trendsFilter.smoothingIntervals': { value: 3 },
  'FunnelsQuery funnelsFilter.breakdownAttributionType': { base: withBreakdown, value: 'last_touch' },
  'FunnelsQuery funnelsFilter.breakdownAttributionValue': { base: (q) => { withBreakdown(q); q.funnelsFilter = { breakdownAttributionType: 'step' }; }, value: 1 },
  'FunnelsQuery funnelsFilter.funnelOrderType': { value: 'strict' },
  'FunnelsQuery funnelsFilter.funnelVizType': { value: 'time_to_convert' },
  'FunnelsQuery funnelsFilter.funnelWindowInterval': { value: 1 },
  'FunnelsQuery funnelsFilter.funnelWindowIntervalUnit': { value: 'hour' },
  'FunnelsQuery funnelsFilter.exclusions': { value: [{ kind: 'EventsNode', event: 'other', funnelFromStep: 0, funnelToStep: 1 }] },
  'FunnelsQuery funnelsFilter.binCount': { base: (q) => { q.funnelsFilter = { funnelVizType: 'time_to_convert' }; }, value: 1 },
  'FunnelsQuery funnelsFilter.funnelFromStep': { base: viewOtherSignup, value: 1 },
  'FunnelsQuery funnelsFilter.funnelToStep': { base: viewOtherSignup, value: 1 },
  'FunnelsQuery funnelsFilter.exclusions.0.kind': { only: 'EventsNode' },
  'FunnelsQuery funnelsFilter.exclusions.0.event': { value: 'nothing' },
  'FunnelsQuery funnelsFilter.exclusions.0.properties': { value: chrome },
  'FunnelsQuery funnelsFilter.exclusions.0.fixedProperties': { value: chrome },
  'FunnelsQuery funnelsFilter.exclusions.0.funnelFromStep': { value: 1 },
  'FunnelsQuery funnelsFilter.exclusions.0.funnelToStep': { value: 1 },
  'StickinessQuery stickinessFilter.stickinessCriteria': { value: { operator: 'gte', value: 2 } },
  'StickinessQuery stickinessFilter.computedAs': { value: 'cumulative' },
  'StickinessQuery intervalCount': { value: 2 },
  'RetentionQuery breakdownFilter.breakdown': { value: '$browser' },
  'RetentionQuery breakdownFilter.breakdown_type': { base: withBreakdown, value: 'person' },
  'RetentionQuery breakdownFilter.breakdown_limit': { base: withBreakdown, value: 1 },
  'RetentionQuery breakdownFilter.breakdowns': { value: [{ property: '$browser' }] },
  'RetentionQuery retentionFilter.retentionType': { value: 'retention_recurring' },
  'RetentionQuery retentionFilter.totalIntervals': { base: (q) => { q.dateRange = null; }, value: 3 },
  'RetentionQuery retentionFilter.returningEntity': { value: { id: 'signup', type: 'events' } },
  'RetentionQuery retentionFilter.targetEntity': { value: { id: 'signup', type: 'events' } },
  'RetentionQuery retentionFilter.period': { value: 'Week' },
  'RetentionQuery retentionFilter.cumulative': { value: true },
  'RetentionQuery retentionFilter.minimumOccurrences': { value: 2 },
  'RetentionQuery retentionFilter.targetEntity.id': { value: 'signup' },
  'RetentionQuery retentionFilter.targetEntity.kind': { only: 'EventsNode' },
  'RetentionQuery retentionFilter.targetEntity.type': { only: 'events' },
  'RetentionQuery retentionFilter.targetEntity.properties': { value: chrome },
  'PathsQuery kind': { only: 'PathsQuery' },
  'PathsQuery dateRange': { value: { date_from: '-2d' } },
  'PathsQuery properties': { value: chrome },
  'PathsQuery filterTestAccounts': { value: true },
  'PathsQuery pathsFilter.includeEventTypes': { value: ['$pageview'] },
  'PathsQuery pathsFilter.startPoint': { value: '/b' },
  'PathsQuery pathsFilter.endPoint': { value: '/b' },
  'PathsQuery pathsFilter.stepLimit': { value: 2 },
  'PathsQuery pathsFilter.edgeLimit': { value: 1 },
  'PathsQuery pathsFilter.minEdgeWeight': { value: 2 },
  'PathsQuery pathsFilter.maxEdgeWeight': { value: 1 },
  'PathsQuery pathsFilter.excludeEvents': { base: (q) => { q.pathsFilter = { includeEventTypes: ['$pageview', 'custom_event'] }; }, value: ['click'] },
  'PathsQuery pathsFilter.pathGroupings': { value: ['/b*'] },
  'PathsQuery funnelPathsFilter': { value: { ...afterPageview(), funnelStep: 2 } },
  'PathsQuery funnelPathsFilter.funnelPathType': { value: 'funnel_path_before_step' },
  'PathsQuery funnelPathsFilter.funnelStep': { value: 2 },
  'PathsQuery funnelPathsFilter.funnelSource': { value: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'click' }, pageview], dateRange: { date_from: '-14d' } } },
  'PathsQuery pathsFilter.pathReplacements': { value: true },
  'PathsQuery pathsFilter.pathsHogQLExpression': { base: (q) => { q.pathsFilter = { includeEventTypes: ['hogql'] }; }, value: "concat(event, '!')" },
  'PathsQuery pathsFilter.localPathCleaningFilters': { value: [{ regex: '/b', alias: '/x' }] },
  'PathsQuery pathsFilter.localPathCleaningFilters.0.regex': { value: '/c' },
  'PathsQuery pathsFilter.localPathCleaningFilters.0.alias': { value: '/y' },
};

const NOW = '2024-06-15T12:00:00Z';
const PROBE = '__hedgerow_probe__';

function clone(q: Query): Query {
  return JSON.parse(JSON.stringify(q)) as Query;
}

/** The object at a dotted path, created on the way (a list where the next part is an index). */
function objectAt(q: Query, path: string): Query {
  const parts = path === '' ? [] : path.split('.');
  let at = q as Record<string, unknown>;
  parts.forEach((part, i) => {
    const listNext = /^\d+$/.test(parts[i + 1] ?? '');
    const next = at[part];
    if (typeof next !== 'object' || next === null || (listNext && !Array.isArray(next))) at[part] = listNext ? [] : {};
    at = at[part] as Record<string, unknown>;
  });
  return at as Query;
}

function refusal(q: Query): QueryError | null {
  try {
    parseQuery(q);
    return null;
  } catch (err) {
    if (err instanceof QueryError) return err;
    throw err;
  }
}

const s = suite('insights: every PostHog query field honoured, presentation only or refused');
let store: TestStore;
storePerSuite(s, async (opened) => {
  store = opened;
  await store.loader.load({ events: [
    ev(1, '$pageview', '2024-06-10T10:00:00Z', { $browser: 'Chrome', amount: 1, other_amount: 10, $current_url: 'https://a.example/x/', $group_0: 'acme', $group_1: 'x' }),
    ev(1, 'signup', '2024-06-12T10:00:00Z', { $browser: 'Firefox' }),
    ev(1, '$pageview', '2024-06-15T09:00:00Z', { $browser: 'Chrome', amount: 2, other_amount: 20 }),
    ev(2, '$pageview', '2024-06-14T10:00:00Z', { $browser: 'Safari', amount: 3, $group_1: 'y' }),
    ev(2, 'other', '2024-06-14T10:30:00Z', { $browser: 'Safari' }),
    ev(1, 'other', '2024-06-13T10:00:00Z', { $browser: 'Firefox' }),
    ev(2, 'signup', '2024-06-14T11:00:00Z', { $browser: 'Edge' }),
    ev(3, 'signup', '2024-06-13T10:00:00Z', { $browser: 'Chrome' }),
    ev(3, '$pageview', '2024-06-13T11:00:00Z', { $browser: 'Chrome', amount: 4 }),
    ev(4, '$pageview', '2024-06-01T10:00:00Z', { $browser: 'Firefox', amount: 5 }),
    ev(4, '$pageview', '2024-06-15T08:00:00Z', { $browser: 'Firefox', amount: 6 }),
    // Paths: persons 5 and 6 take /a → /b within minutes (5 on the 12th, then a click, a screen and /c).
    ev(5, '$pageview', '2024-06-12T12:00:00Z', { $current_url: '/a' }), ev(5, '$pageview', '2024-06-12T12:01:00Z', { $current_url: '/b/' }),
    ev(5, 'click', '2024-06-12T12:02:00Z'), ev(5, '$screen', '2024-06-12T12:03:00Z', { $screen_name: 'Home' }),
    ev(5, '$pageview', '2024-06-12T12:04:00Z', { $current_url: '/c' }),
    ev(6, '$pageview', '2024-06-14T13:00:00Z', { $browser: 'Chrome', $current_url: '/a' }), ev(6, '$pageview', '2024-06-14T13:05:00Z', { $browser: 'Chrome', $current_url: '/b' }),
  ], groups: [
    { project_id: PROJECT, type_index: 0, key: 'acme', created_at: '2024-01-01T00:00:00Z', properties: { industry: 'tech' } },
    { project_id: PROJECT, type_index: 1, key: 'x', created_at: '2024-01-01T00:00:00Z', properties: { industry: 'retail' } },
    { project_id: PROJECT, type_index: 1, key: 'y', created_at: '2024-01-01T00:00:00Z', properties: { industry: 'energy' } },
  ] });
});

const answer = async (q: Query) => {
  // The project's test account filters (what filterTestAccounts applies): not Chrome.
  const r = await run(store, q, { now: NOW, testAccountFilters: [{ key: '$browser', value: 'Chrome', operator: 'is_not', type: 'event' }], pathCleaningFilters: [{ regex: '^/[ab]$', alias: '/ab' }] });
  // Trends items echo the query's settings in `filter`: an echo, not an answer.
  return JSON.stringify([r.results, r.resolved_date_range], (k, v: unknown) => (k === 'filter' ? undefined : v));
};

s('hedgerow lists exactly the fields PostHog’s schema has, object by object', () => {
  for (const [name, fields] of Object.entries(POSTHOG_FIELDS)) {
    assert.equal(Object.keys(FIELD_RULES[name as ObjectName]).sort(), [...fields].sort(), name);
  }
});

s('each field: honoured changes the answer, presentation leaves it, refused is a 400 naming it', async () => {
  const seen = new Set<string>();
  for (const [name, kind, path, whole] of HOSTS) {
    for (const field of POSTHOG_FIELDS[name]) {
      const attr = path === '' ? field : `${path}.${field}`;
      const key = `${kind} ${attr}`;
      const rule = FIELD_RULES[name][field];
      const base = clone(BASES[kind]);
      whole?.(base);
      const sample = SAMPLES[key];
      // An object whose own fields are walked in HOSTS needs no sample of its own.
      if (rule.use === 'honoured' && sample === undefined) {
        if (rule.object !== undefined && HOSTS.some(([n]) => n === rule.object)) continue;
        assert.unreachable(`${key} is honoured but has no sample`);
      }
      if (rule.use !== 'honoured' && sample !== undefined) assert.unreachable(`${key} has a sample but is ${rule.use}`);
      if (sample !== undefined) seen.add(key);
      sample?.base?.(base);
      const variant = clone(base);
      if (rule.use === 'refused') {
        objectAt(variant, path)[field] = PROBE;
        const err = refusal(variant);
        assert.ok(err, `${key} is refused`);
        assert.is(err!.attr, attr, key);
        objectAt(variant, path)[field] = null;
        assert.is(refusal(variant), null, `${key}: null means off`);
        for (const neutral of rule.neutral) {
          objectAt(variant, path)[field] = neutral;
          assert.is(refusal(variant), null, `${key}: ${JSON.stringify(neutral)} means off`);
        }
      } else if (rule.use === 'presentation') {
        objectAt(variant, path)[field] = PROBE;
        assert.is(await answer(variant), await answer(base), `${key} is presentation only`);
      } else if (sample!.only !== undefined) {
        objectAt(variant, path)[field] = sample!.only;
        assert.is(await answer(variant), await answer(base), key);
        objectAt(variant, path)[field] = PROBE;
        assert.is(refusal(variant)?.attr, attr, `${key}: other values are refused`);
      } else if (path !== '' || field !== 'kind') {
        objectAt(variant, path)[field] = sample!.value;
        assert.is.not(await answer(variant), await answer(base), `${key} changes the answer`);
      }
    }
  }
  assert.equal(Object.keys(SAMPLES).filter((k) => !seen.has(k)), [], 'every sample is used');
});

s('a field PostHog does not have is refused as unknown, wherever it is', () => {
  const q = clone(BASES.TrendsQuery);
  (q.series as Query[])[0] = { ...pageview, evnt: 'typo' };
  assert.is(refusal(q)?.attr, 'series.0.evnt');
  assert.is(refusal({ ...BASES.FunnelsQuery, funnelsFilter: { funnelWindowDays: 3 } })?.attr, 'funnelsFilter.funnelWindowDays');
});

s.run();
