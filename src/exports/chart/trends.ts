// Trends over time: one line (or bar, or area) per series × breakdown value, the previous
// period of a comparison dashed in its current series' colour, x labels in the project's
// time zone. Total-value displays (pie, number, bar by value) are in ./totals.ts.
import { isRecord, numbers, records, text, type Json } from '../query.js';
import type { InsightData } from '../types.js';
import { categoryAxis, grid, valueAxis, valueLabel } from './axes.js';
import { formatBucket, parseInterval } from './dates.js';
import { daysRange, intervalWord, seriesName } from './describe.js';
import { frame } from './frame.js';
import { formatNumber, mix, seriesColor } from './theme.js';
import { tableChart } from './table-chart.js';
import { totalsChart } from './totals.js';
import type { ChartPlatform } from './platform.js';

type Style = 'line' | 'area' | 'bar';

function styleOf(display: string): Style {
  if (display === 'ActionsAreaGraph') return 'area';
  if (display === 'ActionsBar' || display === 'ActionsStackedBar' || display === 'ActionsUnstackedBar') return 'bar';
  return 'line';
}

// Each series' colour: a previous period takes the colour of the current series it pairs
// with (same action and breakdown), so the two read as one.
function colours(items: Json[]): string[] {
  const keyOf = (item: Json) => JSON.stringify([isRecord(item.action) ? item.action.order : null, item.breakdown_value ?? null]);
  const assigned = new Map<string, number>();
  let next = 0;
  return items.map((item) => {
    const key = keyOf(item);
    let i = assigned.get(key);
    if (i === undefined) assigned.set(key, (i = next++));
    return seriesColor(i);
  });
}

// PostHog's "total value" displays: one number per series.
const TOTAL_DISPLAYS = new Set(['BoldNumber', 'ActionsPie', 'ActionsBarValue', 'ActionsTable', 'WorldMap']);

// Total-value results carry `aggregated_value` beside an empty `data` (PostHog's do, and so
// do hedgerow's), or no `data` at all (older results): either is drawn as totals, and a
// total-value display whose every result has its total is drawn so whatever `data` holds.
function showsTotals(items: Json[], display: string): boolean {
  if (items.length === 0 || !items.every((item) => typeof item.aggregated_value === 'number')) return false;
  return TOTAL_DISPLAYS.has(display) || items.every((item) => !Array.isArray(item.data) || item.data.length === 0);
}

export function trendsChart(insight: InsightData, p: ChartPlatform, source: Json, kindWord = 'Trends'): Record<string, unknown> {
  const items = records(insight.result);
  const trendsFilter = isRecord(source.trendsFilter) ? source.trendsFilter : {};
  const display = text(trendsFilter.display, 'ActionsLineGraph');
  // The table display is the table the CSV export holds (a series per row).
  if (display === 'ActionsTable') return tableChart(insight, p);
  if (showsTotals(items, display)) return totalsChart(insight, p, items, display, source);
  const interval = parseInterval(source.interval);
  const comparing = items.some((item) => item.compare_label);
  const dated = (comparing && items.find((item) => item.compare_label === 'current')) || items[0];
  const days = dated && Array.isArray(dated.days) && dated.days.length > 0 ? dated.days : null;
  const categories = days
    ? days.map((d) => formatBucket(d, interval, insight.timezone))
    : (dated && Array.isArray(dated.labels) ? dated.labels.map((l) => text(l)) : []);
  const style = styleOf(display);
  const actions = new Set(items.map((item) => (isRecord(item.action) ? item.action.order : null)));
  const names = items.map((item) => seriesName(item, actions.size > 1));
  const colors = colours(items).map((c, i) => (items[i].compare_label === 'previous' ? mix(c, '#ffffff', 0.35) : c));
  const showValues = trendsFilter.showValuesOnSeries === true;
  const stacked = style !== 'line' && !comparing && display !== 'ActionsUnstackedBar';
  const series = items.map((item, i) => {
    const previous = item.compare_label === 'previous';
    const data = numbers(item.data);
    return {
      name: names[i], type: style === 'bar' ? 'bar' : 'line', data, color: colors[i],
      stack: stacked ? 'total' : undefined,
      symbol: data.length > 40 ? 'none' : 'circle', symbolSize: 5,
      lineStyle: { width: 2, type: previous ? 'dashed' : 'solid' },
      areaStyle: style === 'area' ? { opacity: 0.18 } : undefined,
      barMaxWidth: 36,
      label: { show: showValues, position: 'top', formatter: (p: { value: number }) => formatNumber(p.value), ...valueLabel },
      emphasis: { disabled: true },
    };
  });
  const timeWords = [kindWord, intervalWord(interval), daysRange(days, interval, insight.timezone), insight.timezone].filter(Boolean);
  const f = frame(p, insight.name, timeWords.join(' · '), names.map((name, i) => ({ name, color: colors[i] })));
  return { ...f.components, grid: grid(f.top), xAxis: categoryAxis(categories), yAxis: valueAxis(), series };
}
