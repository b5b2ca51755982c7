// Words for the subtitle and legends: periods, date ranges, series names.
import { isRecord, text, type Json } from '../query.js';
import { breakdownDisplay } from '../tabular/rows.js';
import { formatRange, type Interval } from './dates.js';

export function intervalWord(interval: Interval): string {
  return { minute: 'by minute', hour: 'hourly', day: 'daily', week: 'weekly', month: 'monthly' }[interval];
}

// The dates a time series covers, as the project's clock reads them.
export function daysRange(days: unknown, interval: Interval, timeZone: string): string {
  if (!Array.isArray(days) || days.length === 0) return '';
  const first = days[0];
  const last = days[days.length - 1];
  if (typeof first !== 'string' || typeof last !== 'string') return '';
  return formatRange(first, last, timeZone, interval === 'hour' || interval === 'minute');
}

const UNITS: Record<string, [string, string]> = {
  h: ['hour', 'hours'], d: ['day', 'days'], w: ['week', 'weeks'], m: ['month', 'months'], q: ['quarter', 'quarters'], y: ['year', 'years'],
};
const STARTS: Record<string, string> = { dStart: 'Today', wStart: 'This week', mStart: 'This month', yStart: 'Year to date', all: 'All time' };

// A query's dateRange for charts whose results carry no dates (funnels, retention).
export function describeDateRange(dateRange: unknown, timeZone: string): string {
  const from = isRecord(dateRange) ? dateRange.date_from : undefined;
  const to = isRecord(dateRange) ? dateRange.date_to : undefined;
  if (typeof from !== 'string' || from === '') return 'Last 7 days';
  if (STARTS[from]) return STARTS[from];
  const rel = /^-(\d+)([hdwmqy])$/.exec(from);
  if (rel && (typeof to !== 'string' || to === '')) {
    const n = Number(rel[1]);
    const [one, many] = UNITS[rel[2]];
    return n === 1 ? `Last ${one}` : `Last ${n} ${many}`;
  }
  return typeof to === 'string' && to !== '' ? formatRange(from, to, timeZone, false) : `Since ${formatRange(from, from, timeZone, false)}`;
}

export function breakdownLabel(value: unknown): string {
  return Array.isArray(value) ? value.map(breakdownDisplay).join(', ') : breakdownDisplay(value);
}

export function actionName(item: Json): string {
  const action = isRecord(item.action) ? item.action : null;
  return text(action?.custom_name) || text(action?.name) || text(item.label);
}

// A trends series in a legend: its event (or custom name), its breakdown value, and which
// period when comparing.
export function seriesName(item: Json, severalSeries: boolean): string {
  let name: string;
  if ('breakdown_value' in item) {
    const value = breakdownLabel(item.breakdown_value);
    name = severalSeries ? `${actionName(item)} · ${value}` : value;
  } else {
    name = actionName(item);
  }
  if (item.compare_label === 'previous') name += ' (previous period)';
  return name || 'Series';
}
