// Trends shown as one total per series (PostHog's "total value" displays): a big number,
// a pie, a world map (./world-map.ts), or — for the bar and table displays — horizontal
// bars largest first.
import { isRecord, type Json } from '../query.js';
import type { InsightData } from '../types.js';
import { grid, valueAxis, valueLabel } from './axes.js';
import { describeDateRange, seriesName } from './describe.js';
import { frame } from './frame.js';
import { FAINT, HEIGHT, INK, MUTED, WIDTH, formatNumber, formatPercent, seriesColor } from './theme.js';
import { worldMapChart } from './world-map.js';
import type { ChartPlatform } from './platform.js';

const MAX_BARS = 20;
const MAX_SLICES = 10;

interface Total {
  name: string;
  value: number;
  previous: boolean;
}

function totals(items: Json[]): Total[] {
  const actions = new Set(items.map((item) => (isRecord(item.action) ? item.action.order : null)));
  return items.map((item) => ({
    name: seriesName(item, actions.size > 1),
    value: typeof item.aggregated_value === 'number' && Number.isFinite(item.aggregated_value) ? item.aggregated_value : 0,
    previous: item.compare_label === 'previous',
  }));
}

function boldNumber(insight: InsightData, p: ChartPlatform, subtitle: string, all: Total[]): Record<string, unknown> {
  const current = all.find((t) => !t.previous) ?? all[0];
  const previous = all.find((t) => t.previous);
  const f = frame(p, insight.name, subtitle, []);
  const graphic: unknown[] = [
    { type: 'text', left: 'center', top: HEIGHT / 2 - 90, style: { text: current ? formatNumber(current.value) : '–', fontSize: 96, fontWeight: 'bold', fill: INK } },
    { type: 'text', left: 'center', top: HEIGHT / 2 + 30, style: { text: current?.name ?? '', fontSize: 18, fill: MUTED, width: WIDTH - 200, overflow: 'truncate' } },
  ];
  if (current && previous) {
    const change = previous.value === 0 ? null : (current.value - previous.value) / Math.abs(previous.value);
    const words = change === null
      ? `Previous period: ${formatNumber(previous.value)}`
      : `${change >= 0 ? '▲' : '▼'} ${formatPercent(Math.abs(change))} from the previous period (${formatNumber(previous.value)})`;
    graphic.push({ type: 'text', left: 'center', top: HEIGHT / 2 + 66, style: { text: words, fontSize: 15, fill: change === null ? FAINT : change >= 0 ? '#1a7f56' : '#c23a2b' } });
  }
  return { ...f.components, graphic };
}

function pie(insight: InsightData, p: ChartPlatform, subtitle: string, all: Total[]): Record<string, unknown> {
  const sorted = all.filter((t) => t.value > 0).sort((a, b) => b.value - a.value);
  const slices = sorted.slice(0, MAX_SLICES).map((t, i) => ({ name: t.name, value: t.value, itemStyle: { color: seriesColor(i) } }));
  const rest = sorted.slice(MAX_SLICES).reduce((sum, t) => sum + t.value, 0);
  if (rest > 0) slices.push({ name: `${sorted.length - MAX_SLICES} more`, value: rest, itemStyle: { color: '#b9bfc7' } });
  const sum = slices.reduce((s, t) => s + t.value, 0);
  const f = frame(p, insight.name, subtitle, slices.map((s) => ({ name: s.name, color: s.itemStyle.color })));
  return {
    ...f.components,
    series: [{
      type: 'pie', radius: ['34%', '62%'], center: ['50%', (f.top + HEIGHT) / 2 / HEIGHT * 100 + '%'], data: slices,
      label: { formatter: (p: { name: string; value: number }) => `${p.name}\n${formatNumber(p.value)} (${formatPercent(p.value / sum)})`, color: INK, fontSize: 12, lineHeight: 17, width: 200, overflow: 'truncate' },
      labelLayout: { hideOverlap: true }, emphasis: { disabled: true },
    }],
  };
}

function bars(insight: InsightData, p: ChartPlatform, subtitle: string, all: Total[]): Record<string, unknown> {
  const sorted = [...all].sort((a, b) => b.value - a.value).slice(0, MAX_BARS).reverse();
  const f = frame(p, insight.name, all.length > MAX_BARS ? `${subtitle} · largest ${MAX_BARS} of ${all.length}` : subtitle, []);
  return {
    ...f.components,
    grid: { ...grid(f.top), right: 80 },
    xAxis: valueAxis(),
    yAxis: { type: 'category', data: sorted.map((t) => t.name), axisLabel: { color: INK, fontSize: 12, width: 260, overflow: 'truncate' }, axisTick: { show: false }, axisLine: { lineStyle: { color: FAINT } } },
    series: [{
      type: 'bar', barMaxWidth: 28,
      data: sorted.map((t, i) => ({ value: t.value, itemStyle: { color: seriesColor(sorted.length - 1 - i) } })),
      label: { show: true, position: 'right', formatter: (p: { value: number }) => formatNumber(p.value), ...valueLabel },
      emphasis: { disabled: true },
    }],
  };
}

export function totalsChart(insight: InsightData, p: ChartPlatform, items: Json[], display: string, source: Json): Record<string, unknown> {
  const subtitle = ['Trends', 'total', describeDateRange(source.dateRange, insight.timezone), insight.timezone].join(' · ');
  const all = totals(items);
  if (display === 'BoldNumber') return boldNumber(insight, p, subtitle, all);
  if (display === 'ActionsPie') return pie(insight, p, subtitle, all);
  if (display === 'WorldMap') return worldMapChart(insight, p, items, subtitle);
  return bars(insight, p, subtitle, all);
}
