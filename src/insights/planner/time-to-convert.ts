// FunnelsQuery with funnelVizType time_to_convert → one statement over the funnel's one path
// per person (funnels.ts): for each person who reached funnelToStep (default the last), the
// whole seconds from funnelFromStep (default the first) to it, summed step by step; then
// PostHog's histogram of them: from the floor of the least to the ceiling of the most,
// binCount bins (clamped to 1…90; by default the cube root of the persons, 1…60), each
// ceil(span / bins) seconds wide (60 when that is 0), one bin more at the end; and the
// average rounded to two places (half to even, as ClickHouse rounds floats).
import type { FunnelsQuery } from '../schemas.js';
import { toNumber, type Plan, type PlanContext } from './context.js';
import { isoWithOffset } from './dates.js';
import { QueryError } from './errors.js';
import { funnelCtes, funnelText, type FunnelResult } from './funnels.js';
import { timeToConvertSelect, writtenOrNone } from './hogql-text.js';
import { int, join, raw, sql } from './sql.js';

/** Rounded to two decimals, ties to the even hundredth. */
export function roundHalfEven2(x: number): number {
  const scaled = x * 100;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  const n = Math.abs(diff - 0.5) < 1e-9 ? (floor % 2 === 0 ? floor : floor + 1) : Math.round(scaled);
  return n / 100;
}

// One of time_to_convert's integer settings (null: absent).
function setting(filter: Record<string, unknown>, key: string): number | null {
  const v = filter[key];
  if (v === null || v === undefined) return null;
  if (!Number.isSafeInteger(v)) throw new QueryError(`${key} must be an integer`, `funnelsFilter.${key}`);
  return v as number;
}

export function planTimeToConvert(query: FunnelsQuery, ctx: PlanContext): Plan<FunnelResult> {
  const filter = (query.funnelsFilter ?? {}) as Record<string, unknown>;
  const f = { funnelToStep: setting(filter, 'funnelToStep'), funnelFromStep: setting(filter, 'funnelFromStep'), binCount: setting(filter, 'binCount') };
  const steps = query.series.length;
  if (query.breakdownFilter?.breakdown !== null && query.breakdownFilter?.breakdown !== undefined) {
    throw new QueryError('time_to_convert is not supported by hedgerow with a breakdown', 'breakdownFilter');
  }
  const to = f.funnelToStep ?? steps - 1;
  if (!(to > 0 && to < steps)) throw new QueryError(`funnelToStep can only be one of ${Array.from({ length: steps - 1 }, (_, i) => i + 1).join(', ')} for time to convert`, 'funnelsFilter.funnelToStep');
  const from = f.funnelFromStep ?? 0;
  if (from < 0 || from >= to) throw new QueryError('funnelFromStep must be before funnelToStep', 'funnelsFilter.funnelFromStep');
  const custom = f.binCount === null ? null : Math.min(90, Math.max(1, f.binCount));
  const resolved = funnelCtes(query, ctx);
  const { ctes, range } = resolved;
  const total = join(Array.from({ length: to - from }, (_, i) => raw(`a${from + i + 1}`)), ' + ');
  const binCount = custom === null ? raw('least(60, greatest(1, ceil(cbrt(count(*)))))') : int(custom);
  const statement = sql`WITH ${join(ctes, ',\n')},
samples AS (SELECT ${total} AS v FROM times WHERE a${raw(String(to))} IS NOT NULL),
params AS (SELECT coalesce(floor(min(v)), 0) AS lo, coalesce(ceil(max(v)), 1) AS hi, avg(v) AS average, ${binCount} AS bins FROM samples),
widths AS (SELECT *, CASE WHEN ceil((hi - lo) / bins) > 0 THEN ceil((hi - lo) / bins) ELSE 60 END AS width FROM params)
SELECT w.lo, w.width, w.bins, w.average, floor((s.v - w.lo) / w.width) AS i, count(s.v) AS persons
FROM widths w LEFT JOIN samples s ON TRUE GROUP BY ALL`;
  return {
    statements: [statement],
    hogql: writtenOrNone(() => timeToConvertSelect({ ...funnelText(query, ctx, resolved), from, to, binCount: custom })),
    shape([rows]) {
      const first = rows[0];
      const lo = toNumber(first.lo);
      const width = toNumber(first.width);
      const counts = new Map(rows.filter((r) => r.i !== null).map((r) => [toNumber(r.i), toNumber(r.persons)]));
      const bins: [number, number][] = Array.from({ length: toNumber(first.bins) + 1 }, (_, i) => [lo + i * width, counts.get(i) ?? 0]);
      const average = first.average === null ? null : roundHalfEven2(toNumber(first.average));
      return { results: { bins, average_conversion_time: average }, dateFrom: isoWithOffset(range.fromLocal, range.segments), dateTo: isoWithOffset(range.toLocal, range.segments) };
    },
  };
}
