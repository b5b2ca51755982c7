// Stickiness: for each series, how many users were active in exactly 1, 2, … intervals of
// the range, as bars.
import { isRecord, numbers, records, text, type Json } from '../query.js';
import type { InsightData } from '../types.js';
import { categoryAxis, grid, valueAxis } from './axes.js';
import { parseInterval } from './dates.js';
import { describeDateRange, seriesName } from './describe.js';
import { frame } from './frame.js';
import { seriesColor } from './theme.js';
import type { ChartPlatform } from './platform.js';

export function stickinessChart(insight: InsightData, p: ChartPlatform, source: Json): Record<string, unknown> {
  const items = records(insight.result);
  const labels = items.map((item) => (Array.isArray(item.labels) ? item.labels : [])).reduce((a, b) => (b.length > a.length ? b : a), []);
  const categories = labels.map((l) => text(l));
  const actions = new Set(items.map((item) => (isRecord(item.action) ? item.action.order : null)));
  const names = items.map((item) => seriesName(item, actions.size > 1));
  const series = items.map((item, i) => ({
    name: names[i], type: 'bar', data: numbers(item.data), color: seriesColor(i), barMaxWidth: 36, emphasis: { disabled: true },
  }));
  const interval = parseInterval(source.interval);
  const unit = { minute: 'minutes', hour: 'hours', day: 'days', week: 'weeks', month: 'months' }[interval];
  const subtitle = ['Stickiness', `users by number of ${unit} active`, describeDateRange(source.dateRange, insight.timezone), insight.timezone];
  const f = frame(p, insight.name, subtitle.join(' · '), names.map((name, i) => ({ name, color: seriesColor(i) })));
  return { ...f.components, grid: grid(f.top), xAxis: categoryAxis(categories), yAxis: valueAxis(), series };
}
