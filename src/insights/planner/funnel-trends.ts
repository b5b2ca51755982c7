// FunnelsQuery with funnelVizType trends → one statement over the funnel's tries (funnels.ts,
// a try per step-1 event): a person enters the funnel in the interval of a try's first step;
// per person and entrance period the furthest step any try started there reached; per period
// the persons who reached funnelFromStep (default the first) and of them those who reached
// funnelToStep (default the last), and PostHog's conversion rate: to / from × 100 rounded to
// two places (0 when none reached the from step). Every period of the range gets a point;
// with a breakdown, one series per value (a person's value by the funnel's attribution),
// ordered by value as PostHog sorts them. The actors of a point (FunnelsActorsQuery with
// funnelTrendsEntrancePeriodStart and funnelTrendsDropOff): the persons counted in it.
import type { FunnelsQuery } from '../schemas.js';
import { breakdownValueOf } from './breakdown.js';
import { toNumber, type Plan, type PlanContext } from './context.js';
import { bucketOfDay, type Cell, type CellActors } from './cells.js';
import { bucketsBetween, dayLabel, dayString, isoWithOffset } from './dates.js';
import { QueryError } from './errors.js';
import { funnelCtes, funnelText, unitsAsActors, type FunnelResult, type FunnelTrendsItem } from './funnels.js';
import { funnelTrendsSelect, writtenOrNone } from './hogql-text.js';
import { int, join, raw, sql, type Sql } from './sql.js';
import { bucketSql, localUs } from './time-sql.js';
import { roundHalfEven2 } from './time-to-convert.js';

/** funnelFromStep and funnelToStep of the trends view, PostHog's defaults filled in (0 reads as unset, as PostHog's `or`). */
export function trendsSteps(query: FunnelsQuery): { from: number; to: number } {
  const f = (query.funnelsFilter ?? {}) as Record<string, unknown>;
  const steps = query.series.length;
  for (const key of ['funnelFromStep', 'funnelToStep']) {
    const v = f[key];
    if (v !== null && v !== undefined && !Number.isSafeInteger(v)) throw new QueryError(`${key} must be an integer`, `funnelsFilter.${key}`);
  }
  const from = (f.funnelFromStep as number | null | undefined) || 0;
  const to = (f.funnelToStep as number | null | undefined) || steps - 1;
  if (to < 1 || to > steps - 1) throw new QueryError(`funnelToStep can only be one of ${Array.from({ length: steps - 1 }, (_, i) => i + 1).join(', ')}`, 'funnelsFilter.funnelToStep');
  if (from < 0 || from >= to) throw new QueryError('funnelFromStep must be before funnelToStep', 'funnelsFilter.funnelFromStep');
  return { from, to };
}

/** The funnel's CTEs and `entered` (pid, b: the entrance period's bucket id, steps: the furthest reached from it). */
function enteredCtes(query: FunnelsQuery, ctx: PlanContext) {
  const interval = query.interval ?? 'day';
  const funnel = funnelCtes(query, ctx, { interval, perEntry: true });
  const { range } = funnel;
  const buckets = bucketsBetween(range.fromLocal, range.toLocal, interval, ctx.weekStart, range.segments);
  const period = bucketSql(localUs(raw('make_timestamp(t.t0)'), range.segments, range.fromUs, range.toUs), interval, ctx.weekStart);
  const ctes = [...funnel.ctes, sql`entered AS (SELECT t.pid, ${period} AS b, max(t.steps) AS steps FROM tries t GROUP BY ALL)`];
  return { ...funnel, ctes, buckets, interval };
}

/**
 * The actors behind a trends point (funnelTrendsEntrancePeriodStart, of one breakdown value
 * when given): who entered then and converted, or with funnelTrendsDropOff who entered,
 * reached funnelFromStep and not funnelToStep.
 */
export function funnelTrendsActors(query: FunnelsQuery, ctx: PlanContext, cell: Cell): CellActors {
  const trends = cell.funnelTrends;
  if (cell.funnelStep !== null) throw new QueryError('funnelStep names a step of the steps view; the trends view\'s points are named by funnelTrendsEntrancePeriodStart', 'source.funnelStep');
  if (trends?.entrance === null || trends?.entrance === undefined) throw new QueryError('funnelTrendsEntrancePeriodStart is required: the entrance period whose actors to list', 'source.funnelTrendsEntrancePeriodStart');
  if (trends.dropOff === null) throw new QueryError('funnelTrendsDropOff is required: true for who dropped off, false for who converted', 'source.funnelTrendsDropOff');
  const { from, to } = trendsSteps(query);
  const { ctes, breakdown, allEvents, buckets, interval } = enteredCtes(query, ctx);
  const bucket = bucketOfDay(buckets, trends.entrance, interval, ctx.weekStart, 'source.funnelTrendsEntrancePeriodStart');
  const where: Sql[] = [sql`x.b = ${int(bucket.id)}`, trends.dropOff ? sql`x.steps >= ${int(from + 1)} AND x.steps < ${int(to + 1)}` : sql`x.steps >= ${int(to + 1)}`];
  return unitsAsActors(query, cell, { ctes, breakdown, allEvents }, 'entered', where);
}

export function planFunnelTrends(query: FunnelsQuery, ctx: PlanContext): Plan<FunnelResult> {
  const { from, to } = trendsSteps(query);
  const { ctes, breakdown, range, buckets, interval, order, windowUs, attribution, attributionStep } = enteredCtes(query, ctx);
  const value = breakdown ? raw('u.bv, ') : raw('');
  const statement = sql`WITH ${join(ctes, ',\n')}
SELECT ${value}x.b, count(*) FILTER (WHERE x.steps >= ${int(from + 1)}) AS reached_from, count(*) FILTER (WHERE x.steps >= ${int(to + 1)}) AS reached_to
FROM entered x${breakdown ? raw(' JOIN unit_value u ON u.pid = x.pid') : raw('')} GROUP BY ALL`;

  return {
    statements: [statement],
    hogql: writtenOrNone(() => funnelTrendsSelect({
      ...funnelText(query, ctx, { range, order, windowUs, breakdown, attribution, attributionStep }), interval, weekStart: ctx.weekStart, from, to,
    })),
    shape([rows]) {
      const days = buckets.map((b) => dayString(b.localMs, interval));
      const labels = buckets.map((b) => dayLabel(b.localMs));
      const byValue = new Map<string, Map<number, { from: number; to: number }>>();
      for (const r of rows) {
        const key = breakdown ? String(r.bv) : '';
        if (!byValue.has(key)) byValue.set(key, new Map());
        byValue.get(key)!.set(toNumber(r.b), { from: toNumber(r.reached_from), to: toNumber(r.reached_to) });
      }
      if (!breakdown && byValue.size === 0) byValue.set('', new Map());
      const item = (periods: Map<number, { from: number; to: number }>): FunnelTrendsItem => ({
        count: buckets.length,
        data: buckets.map((b) => {
          const p = periods.get(b.id);
          return p && p.from > 0 ? roundHalfEven2((p.to / p.from) * 100) : 0;
        }),
        days,
        labels,
      });
      const results = [...byValue].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, periods]) => {
        const out = item(periods);
        if (breakdown) out.breakdown_value = breakdown.source === 'cohort' ? breakdownValueOf(breakdown, key) : breakdown.asList ? [key] : key;
        return out;
      });
      return { results, dateFrom: isoWithOffset(range.fromLocal, range.segments), dateTo: isoWithOffset(range.toLocal, range.segments) };
    },
  };
}
