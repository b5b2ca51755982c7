// Lifecycle: per period, stacked bars of new, resurrecting and returning users above the
// axis and dormant users (negative counts) below it.
import { numbers, records, type Json } from '../query.js';
import type { InsightData } from '../types.js';
import { categoryAxis, grid, valueAxis } from './axes.js';
import { formatBucket, parseInterval } from './dates.js';
import { actionName, daysRange, intervalWord } from './describe.js';
import { frame } from './frame.js';
import { LIFECYCLE } from './theme.js';
import type { ChartPlatform } from './platform.js';

export function lifecycleChart(insight: InsightData, p: ChartPlatform, source: Json): Record<string, unknown> {
  const items = records(insight.result);
  const interval = parseInterval(source.interval);
  const dated = items.find((item) => Array.isArray(item.days)) ?? items[0];
  const days = dated && Array.isArray(dated.days) ? dated.days : [];
  const shown = LIFECYCLE.filter((s) => items.some((item) => item.status === s.status));
  const series = shown.map((s) => ({
    name: s.name, type: 'bar', stack: 'lifecycle', color: s.color, barMaxWidth: 40,
    data: numbers(items.find((item) => item.status === s.status)?.data),
    emphasis: { disabled: true },
  }));
  const event = items[0] ? actionName(items[0]).replace(/ - (new|returning|resurrecting|dormant)$/, '') : '';
  const subtitle = ['Lifecycle', event, intervalWord(interval), daysRange(days, interval, insight.timezone), insight.timezone].filter(Boolean);
  const f = frame(p, insight.name, subtitle.join(' · '), shown.map((s) => ({ name: s.name, color: s.color })));
  return {
    ...f.components, grid: grid(f.top),
    xAxis: { ...categoryAxis(days.map((d) => formatBucket(d, interval, insight.timezone))), axisLine: { onZero: true } },
    yAxis: valueAxis(), series,
  };
}
