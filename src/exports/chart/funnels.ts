// Funnels: one bar per step with its count and its conversion from the first step, the
// users lost so far as a pale bar above it; with a breakdown, one bar per value per step.
// The time-to-convert view is a histogram, the trends view a trends chart.
import { isRecord, type Json } from '../query.js';
import type { InsightData } from '../types.js';
import { categoryAxis, grid, valueAxis, valueLabel } from './axes.js';
import { breakdownLabel, describeDateRange } from './describe.js';
import { frame } from './frame.js';
import { GHOST, INK, MARGIN, MUTED, WIDTH, formatNumber, formatPercent, seriesColor } from './theme.js';
import { trendsChart } from './trends.js';
import type { ChartPlatform } from './platform.js';

const MAX_BREAKDOWNS = 10;

// Step names wrap within their step's width (the plot less the value axis), four lines at most.
function stepLabel(steps: number): Record<string, unknown> {
  const width = Math.floor((WIDTH - 2 * MARGIN - 70) / Math.max(1, steps)) - 14;
  return { color: INK, fontSize: 12, lineHeight: 16, interval: 0, width, overflow: 'break', height: 64, lineOverflow: 'truncate' };
}

interface Step {
  name: string;
  count: number;
}

function steps(list: unknown[]): Step[] {
  return list.filter(isRecord).map((s) => ({
    name: String(s.custom_name || s.name || s.action_id || 'Step'),
    count: typeof s.count === 'number' && Number.isFinite(s.count) ? s.count : 0,
  }));
}

const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

function stepCategories(list: Step[]): string[] {
  return list.map((s, i) => (i === 0 ? `1. ${s.name}` : `${i + 1}. ${s.name}\n${formatPercent(share(s.count, list[i - 1].count))} of previous`));
}

function stepsChart(insight: InsightData, p: ChartPlatform, list: Step[], context: string): Record<string, unknown> {
  const first = list[0]?.count ?? 0;
  const last = list[list.length - 1]?.count ?? 0;
  const subtitle = ['Funnel', `${list.length} steps`, `${formatPercent(share(last, first))} overall conversion`, context].join(' · ');
  const f = frame(p, insight.name, subtitle, [{ name: 'Converted', color: seriesColor(0) }, { name: 'Dropped off', color: GHOST }]);
  const converted = list.map((s) => {
    const tall = share(s.count, first) > 0.18;
    return {
      value: s.count,
      label: {
        show: true, position: tall ? 'insideTop' : 'top', distance: 8, color: tall ? '#ffffff' : INK, fontSize: 13, fontWeight: 'bold', lineHeight: 18,
        formatter: `${formatNumber(s.count)}\n${formatPercent(share(s.count, first))}`,
      },
    };
  });
  return {
    ...f.components, grid: grid(f.top),
    xAxis: { ...categoryAxis(stepCategories(list)), axisLabel: stepLabel(list.length) },
    yAxis: valueAxis(),
    series: [
      { name: 'Converted', type: 'bar', stack: 'funnel', data: converted, color: seriesColor(0), barMaxWidth: 120, emphasis: { disabled: true } },
      { name: 'Dropped off', type: 'bar', stack: 'funnel', data: list.map((s) => Math.max(0, first - s.count)), color: GHOST, barMaxWidth: 120, emphasis: { disabled: true } },
    ],
  };
}

function breakdownChart(insight: InsightData, p: ChartPlatform, groups: unknown[][], context: string): Record<string, unknown> {
  const all = groups.map((g) => {
    const head = g.find(isRecord);
    return { name: breakdownLabel(head?.breakdown_value ?? head?.breakdown) || 'None', steps: steps(g) };
  });
  const shown = [...all].sort((a, b) => (b.steps[0]?.count ?? 0) - (a.steps[0]?.count ?? 0)).slice(0, MAX_BREAKDOWNS);
  const stepNames = (shown[0]?.steps ?? []).map((s, i) => `${i + 1}. ${s.name}`);
  const words = ['Funnel', `${stepNames.length} steps`, `by breakdown${all.length > shown.length ? `, largest ${shown.length} of ${all.length}` : ''}`, context];
  const f = frame(p, insight.name, words.join(' · '), shown.map((g, i) => ({ name: g.name, color: seriesColor(i) })));
  return {
    ...f.components, grid: grid(f.top),
    xAxis: { ...categoryAxis(stepNames), axisLabel: stepLabel(stepNames.length) },
    yAxis: valueAxis(),
    series: shown.map((g, i) => ({
      name: g.name, type: 'bar', color: seriesColor(i), barMaxWidth: 48, emphasis: { disabled: true },
      data: g.steps.map((s) => s.count),
      label: { show: shown.length <= 6, position: 'top', formatter: (p: { dataIndex: number }) => formatPercent(share(g.steps[p.dataIndex].count, g.steps[0].count)), ...valueLabel, fontSize: 10 },
      labelLayout: { hideOverlap: true },
    })),
  };
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0s';
  const units: [number, string][] = [[86_400, 'd'], [3_600, 'h'], [60, 'm'], [1, 's']];
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [size, unit] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join(' ') || '0s';
}

function timeToConvertChart(insight: InsightData, p: ChartPlatform, result: Json, context: string): Record<string, unknown> {
  const bins = (Array.isArray(result.bins) ? result.bins : []).filter((b): b is number[] => Array.isArray(b) && b.length >= 2);
  const average = typeof result.average_conversion_time === 'number' ? `average ${formatDuration(result.average_conversion_time)}` : '';
  const f = frame(p, insight.name, ['Funnel', 'time to convert', average, context].filter(Boolean).join(' · '), []);
  return {
    ...f.components, grid: grid(f.top),
    xAxis: { ...categoryAxis(bins.map((b) => formatDuration(Number(b[0]))), 'Time to convert'), nameTextStyle: { color: MUTED } },
    yAxis: valueAxis(),
    series: [{ type: 'bar', data: bins.map((b) => Number(b[1]) || 0), color: seriesColor(0), barCategoryGap: '8%', emphasis: { disabled: true } }],
  };
}

export function funnelsChart(insight: InsightData, p: ChartPlatform, source: Json): Record<string, unknown> {
  const { result } = insight;
  const context = [describeDateRange(source.dateRange, insight.timezone), insight.timezone].join(' · ');
  if (isRecord(result)) return timeToConvertChart(insight, p, result, context);
  const list = Array.isArray(result) ? result : [];
  if (list.length > 0 && isRecord(list[0]) && Array.isArray(list[0].data)) {
    // Each point is the conversion rate (%) of the users who entered the funnel that day;
    // PostHog's results name no series (a breakdown's carry its value).
    const named = list.map((item) => (isRecord(item) && !item.label && !('breakdown_value' in item) ? { ...item, label: 'Conversion rate (%)' } : item));
    return trendsChart({ ...insight, result: named }, p, source, 'Funnel conversion trends');
  }
  if (list.length > 0 && Array.isArray(list[0])) return breakdownChart(insight, p, list.filter(Array.isArray), context);
  return stepsChart(insight, p, steps(list), context);
}
