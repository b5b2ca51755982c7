// GET …/hog_functions/:id/metrics/ and …/metrics/totals/ (PostHog's AppMetricsMixin): counts
// per interval (hour, day or week, in UTC) from `after` (default -7d) to `before` (default
// now), broken down by metric kind (default) or name, with a label per bucket even when
// empty; totals over the range (all time without after and before). Counts are kept per
// hour, so the range is as precise as the hour.
import { errors } from '../../errors.js';
import type { HttpRequest } from '../../http/types.js';
import type { DestinationsStore } from '../runtime/env.js';

export interface MetricsQuery {
  after: number | null;
  before: number | null;
  interval: 'hour' | 'day' | 'week';
  breakdownBy: 'kind' | 'name';
  names: string[];
  kinds: string[];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UNIT_MS: Record<string, number> = { h: HOUR, d: DAY, w: 7 * DAY };

// PostHog's relative dates ("-7d", "-24h", "-2w", "-3m", "-1y"), else an ISO date.
export function parseRelative(raw: string, nowMs: number, name: string): number {
  const m = /^-?(\d+)([hdwmy])$/.exec(raw.trim());
  if (m) {
    const n = Number(m[1]);
    if (m[2] === 'm' || m[2] === 'y') {
      const d = new Date(nowMs);
      d.setUTCMonth(d.getUTCMonth() - (m[2] === 'm' ? n : 12 * n));
      return d.getTime();
    }
    return nowMs - n * UNIT_MS[m[2]];
  }
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw errors.validation(`Invalid date: ${raw}`, name, 'invalid');
  return ms;
}

function choice<T extends string>(req: HttpRequest, name: string, choices: readonly T[], fallback: T): T {
  const raw = req.query.get(name);
  if (raw === null) return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw errors.invalidChoice(raw, name);
  return raw as T;
}

const list = (req: HttpRequest, name: string) => (req.query.get(name) ?? '').split(',').map((s) => s.trim()).filter(Boolean);

export function metricsQuery(req: HttpRequest, nowMs: number, totals: boolean): MetricsQuery {
  const after = req.query.get('after');
  const before = req.query.get('before');
  return {
    after: after ? parseRelative(after, nowMs, 'after') : totals ? null : parseRelative('-7d', nowMs, 'after'),
    before: before ? parseRelative(before, nowMs, 'before') : totals ? null : nowMs,
    interval: choice(req, 'interval', ['hour', 'day', 'week'] as const, 'day'),
    breakdownBy: choice(req, 'breakdown_by', ['name', 'kind'] as const, 'kind'),
    names: list(req, 'name'),
    kinds: list(req, 'kind'),
  };
}

function bucketStart(ms: number, interval: MetricsQuery['interval']): number {
  if (interval === 'hour') return Math.floor(ms / HOUR) * HOUR;
  const day = Math.floor(ms / DAY) * DAY;
  if (interval === 'day') return day;
  // Weeks start on Monday (1970-01-01 was a Thursday).
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  return day - weekday * DAY;
}

function label(ms: number, interval: MetricsQuery['interval']): string {
  const iso = new Date(ms).toISOString();
  return interval === 'hour' ? iso.slice(0, 16) : iso.slice(0, 10);
}

function* counts(store: DestinationsStore, functionId: string, q: MetricsQuery) {
  for (const { key, value } of store.metrics.getRange({ start: [functionId, 0], end: [functionId, Number.MAX_SAFE_INTEGER] })) {
    const [, hour, kind, name] = key;
    if (q.after !== null && hour + HOUR <= q.after) continue;
    if (q.before !== null && hour > q.before) continue;
    if (q.names.length > 0 && !q.names.includes(name)) continue;
    if (q.kinds.length > 0 && !q.kinds.includes(kind)) continue;
    yield { hour, breakdown: q.breakdownBy === 'kind' ? kind : name, count: value };
  }
}

export function metricsSeries(store: DestinationsStore, functionId: string, q: MetricsQuery) {
  const labels: string[] = [];
  const step = q.interval === 'hour' ? HOUR : q.interval === 'day' ? DAY : 7 * DAY;
  for (let at = bucketStart(q.after!, q.interval); at <= q.before!; at += step) labels.push(label(at, q.interval));
  const byBreakdown = new Map<string, Map<string, number>>();
  for (const { hour, breakdown, count } of counts(store, functionId, q)) {
    const l = label(bucketStart(hour, q.interval), q.interval);
    let series = byBreakdown.get(breakdown);
    if (!series) byBreakdown.set(breakdown, (series = new Map()));
    series.set(l, (series.get(l) ?? 0) + count);
  }
  const series = [...byBreakdown.entries()].sort(([a], [b]) => a.localeCompare(b))
    .map(([name, values]) => ({ name, values: labels.map((l) => values.get(l) ?? 0) }));
  return { labels, series };
}

export function metricsTotals(store: DestinationsStore, functionId: string, q: MetricsQuery) {
  const totals: Record<string, number> = {};
  for (const { breakdown, count } of counts(store, functionId, q)) totals[breakdown] = (totals[breakdown] ?? 0) + count;
  return { totals };
}
