// The date range a query resolves to at a given now, as its response reports it
// (resolved_date_range), without planning it: tells whether a cached result still covers
// the same days. Null when the range depends on data (date_from "all") or the kind has none.
import type { AnalyticsQuery } from '../schemas.js';
import { isoWithOffset, resolveRange, type TimeContext } from './dates.js';
import { TOTAL_VALUE_DISPLAYS } from './trends.js';

export function resolvedRangeAt(query: AnalyticsQuery, ctx: TimeContext): { date_from: string; date_to: string } | null {
  if (query.kind === 'EventsQuery' || query.kind === 'RetentionQuery' || query.kind === 'HogQLQuery' || query.kind === 'ActorsQuery') return null;
  if (query.dateRange?.date_from === 'all') return null;
  let interval = query.kind === 'FunnelsQuery' || query.kind === 'PathsQuery' ? 'day' : (query.interval ?? 'day');
  if (query.kind === 'TrendsQuery' && TOTAL_VALUE_DISPLAYS.has(query.trendsFilter?.display ?? '')) interval = 'day';
  const range = resolveRange(query.dateRange, interval as 'day', ctx);
  return { date_from: isoWithOffset(range.fromLocal, range.segments), date_to: isoWithOffset(range.toLocal, range.segments) };
}

/** The interval staleness is judged by (PostHog's): the query's interval, none for funnels and events. */
export function stalenessInterval(query: AnalyticsQuery): string | null {
  if (query.kind === 'RetentionQuery') return (query.retentionFilter.period ?? 'Day').toLowerCase();
  if (query.kind === 'FunnelsQuery' || query.kind === 'EventsQuery') return null;
  // Actors age as their insight.
  if (query.kind === 'ActorsQuery') return query.source ? stalenessInterval(query.source.source) : null;
  // HogQL results and paths (no interval of their own) age like a day-interval insight (PostHog's).
  if (query.kind === 'HogQLQuery' || query.kind === 'PathsQuery') return 'day';
  return query.interval ?? 'day';
}
