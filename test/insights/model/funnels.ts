// Funnels as PostHog states them, one actor at a time over its events in the range, in time
// order. Ordered: a step-1 event opens a path (the latest one replaces an earlier), a step's
// event extends the path at the step before it when within the window of the path's first
// event (a step the path already reached keeps its first time); the actor's furthest step, and its conversion times, are those of the first path
// that reached it. Strict: any other event of the actor breaks the paths waiting for their
// next step. Unordered: from any step's event, the steps done within the window, any order.
import { avg, quantile } from './stats.js';
import { matchesAction, matchesAll, type Context, type Filter, type SeriesNode } from './match.js';
import { breakdownKeys, breakdownsOf, type TrendsQuery } from './trends.js';
import { addDays, midnight } from './time.js';
import type { ModelEvent } from './world.js';

export interface FunnelsQuery {
  series: SeriesNode[];
  dateRange: { date_from: string; date_to: string };
  properties?: Filter[];
  filterTestAccounts?: boolean;
  aggregation_group_type_index?: number;
  breakdownFilter?: TrendsQuery['breakdownFilter'];
  funnelsFilter?: { funnelOrderType?: 'ordered' | 'strict' | 'unordered'; funnelWindowInterval?: number; funnelWindowIntervalUnit?: 'minute' | 'hour' | 'day' | 'week' };
}

export interface FunnelStepModel {
  count: number;
  /** Actors who reached the step, and those of the step before who did not. */
  reached: Set<string>;
  dropped: Set<string>;
  average: number | null;
  median: number | null;
}

const UNIT_S = { minute: 60, hour: 3600, day: 86_400, week: 604_800 };

interface Path { start: number; times: number[] }

/** Breakdown key (JSON) → each actor's furthest step (0-based) and the path that reached it. */
function funnelActors(q: FunnelsQuery, c: Context): Map<string, Map<string, { max: number; path: Path | null }>> {
  const f = q.funnelsFilter ?? {};
  const order = f.funnelOrderType ?? 'ordered';
  const windowS = (f.funnelWindowInterval ?? 14) * UNIT_S[f.funnelWindowIntervalUnit ?? 'day'];
  const start = midnight(q.dateRange.date_from, c.tz);
  const end = midnight(addDays(q.dateRange.date_to, 1), c.tz);
  const breakdowns = breakdownsOf(q);
  const stepsOf = (e: ModelEvent) => q.series.flatMap((node, k) => ((node.kind === 'ActionsNode' ? matchesAction(e, node.id!, c) : e.event === node.event) && matchesAll(e, node.properties, c) ? [k] : []));
  const actorOf = (e: ModelEvent) => (q.aggregation_group_type_index === undefined ? String(e.person) : (e.props[`$group_${q.aggregation_group_type_index}`] as string | undefined) ?? null);

  // Per breakdown value, per actor: its events (strict funnels read all of them).
  const byKey = new Map<string, Map<string, Array<{ ts: number; steps: number[] }>>>();
  for (const e of c.world.events) {
    if (e.ts < start || e.ts >= end || !matchesAll(e, q.properties, c) || (q.filterTestAccounts && !matchesAll(e, c.testFilters, c))) continue;
    const steps = stepsOf(e);
    const actor = actorOf(e);
    if (actor === null || (!steps.length && order !== 'strict')) continue;
    for (const key of breakdownKeys(e, breakdowns, (q.breakdownFilter?.breakdowns?.length ?? 0) > 0, c)) {
      const id = JSON.stringify(key ?? null);
      if (!byKey.has(id)) byKey.set(id, new Map());
      const actors = byKey.get(id)!;
      if (!actors.has(actor)) actors.set(actor, []);
      actors.get(actor)!.push({ ts: e.ts, steps });
    }
  }

  const out = new Map<string, Map<string, { max: number; path: Path | null }>>();
  for (const [key, actors] of byKey) {
    const results = new Map<string, { max: number; path: Path | null }>();
    for (const [actor, events] of actors) {
      events.sort((a, b) => a.ts - b.ts);
      const r = order === 'unordered' ? { max: unordered(events, q.series.length, windowS), path: null } : ordered(events, q.series.length, windowS, order === 'strict');
      if (r.max >= 0) results.set(actor, r);
    }
    out.set(key, results);
  }
  return out;
}

/** Breakdown key (JSON) → steps; a funnel without a breakdown has the key "null". */
export function funnels(q: FunnelsQuery, c: Context): Map<string, FunnelStepModel[]> {
  const order = q.funnelsFilter?.funnelOrderType ?? 'ordered';
  const out = new Map<string, FunnelStepModel[]>();
  for (const [key, results] of funnelActors(q, c)) {
    const steps: FunnelStepModel[] = q.series.map((_, k) => {
      const reached = new Set([...results].filter(([, r]) => r.max >= k).map(([a]) => a));
      const dropped = k === 0 ? new Set<string>() : new Set([...results].filter(([, r]) => r.max === k - 1).map(([a]) => a));
      const times = k === 0 || order === 'unordered' ? [] : [...results.values()].filter((r) => r.max >= k).map((r) => (r.path!.times[k] - r.path!.times[k - 1]) / 1000);
      return { count: reached.size, reached, dropped, average: times.length ? avg(times) : null, median: times.length ? quantile(times, 0.5) : null };
    });
    if (steps[0].count > 0) out.set(key, steps);
  }
  return out;
}

function ordered(events: Array<{ ts: number; steps: number[] }>, n: number, windowS: number, strict: boolean): { max: number; path: Path | null } {
  let entered: Array<Path | null> = Array(n).fill(null);
  let max = -1;
  let path: Path | null = null;
  for (const e of events) {
    const next = [...entered];
    const updated = new Set<number>();
    for (let k = n - 1; k >= 0; k--) {
      if (!e.steps.includes(k)) continue;
      if (k === 0) {
        next[0] = { start: e.ts, times: [e.ts] };
        updated.add(0);
      } else {
        const before = entered[k - 1];
        if (!before || (e.ts - before.start) / 1000 > windowS) continue;
        // A step already reached from the same step-1 event keeps its first time.
        if (entered[k] && entered[k]!.start === before.start) continue;
        next[k] = { start: before.start, times: [...before.times, e.ts] };
        updated.add(k);
      }
      if (k > max) {
        max = k;
        path = next[k];
      }
    }
    if (strict) for (let k = 0; k < n - 1; k++) if (!updated.has(k) && !e.steps.includes(k + 1)) next[k] = null;
    entered = next;
  }
  return { max, path };
}

function unordered(events: Array<{ ts: number; steps: number[] }>, n: number, windowS: number): number {
  let best = -1;
  for (const anchor of events) {
    if (!anchor.steps.length) continue;
    const done = new Set<number>();
    for (const e of events) if (e.ts >= anchor.ts && (e.ts - anchor.ts) / 1000 <= windowS) for (const k of e.steps) done.add(k);
    best = Math.max(best, Math.min(done.size, n) - 1);
  }
  return best;
}

/**
 * time_to_convert: each actor's seconds from step `from` to step `to` on its path, as PostHog's
 * histogram: from the floor of the least to the ceiling of the most, `bins` bins (default the
 * cube root of the actors, 1…60) ceil(span / bins) wide (60 when 0), and one bin more.
 */
export function timeToConvert(q: FunnelsQuery, c: Context, from: number, to: number, binCount?: number): { bins: Array<[number, number]>; average: number | null } {
  const seconds = [...funnelActors(q, c).get('null')!.values()].filter((r) => r.max >= to).map((r) => (r.path!.times[to] - r.path!.times[from]) / 1000);
  const bins = binCount ?? Math.min(60, Math.max(1, Math.ceil(Math.cbrt(seconds.length))));
  const lo = seconds.length ? Math.floor(Math.min(...seconds)) : 0;
  const hi = seconds.length ? Math.ceil(Math.max(...seconds)) : 1;
  const width = Math.ceil((hi - lo) / bins) || 60;
  const out = Array.from({ length: bins + 1 }, (_, i): [number, number] => [lo + i * width, seconds.filter((v) => Math.floor((v - lo) / width) === i).length]);
  return { bins: out, average: seconds.length ? avg(seconds) : null };
}
