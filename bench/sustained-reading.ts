// The reading of one bench/sustained run (one offered rate), pure: per stage, whether its
// lag stayed bounded, when it caught up, how fresh its probes were; and the markdown
// tables for RESULTS.md.
import { percentile } from './fixed-rate.js';

export type StageKey = 'event_store' | 'insights' | 'destinations' | 'deliveries';

export interface Sample {
  // Seconds since the load started.
  t: number;
  // Taken while the load ran (the last of them as it ended).
  loading: boolean;
  // Events the server accepted (hedgerow_events_ingested_total).
  ingested: number;
  // Events behind, per stage: the three consumers' hedgerow_consumer_lag_events, and the
  // deliveries the every-event webhook has not made yet (accepted − the sink's count).
  lag: Record<StageKey, number>;
  // The sink's requests per destination.
  delivered: { a: number; b: number; c: number };
  // Server CPU (µs, all threads) and resident memory (kB) so far.
  cpu: number;
  rssKb: number;
}

export interface Probe {
  id: string;
  // ms since the epoch: the 200 of its capture request, then when each stage showed it.
  ackedAt: number;
  stored?: number;
  insights?: number;
  delivered?: number;
}

export const STAGES: { key: StageKey; label: string; probe: 'stored' | 'insights' | 'delivered' | null; seenBy: string }[] = [
  { key: 'event_store', label: 'event store (with persons)', probe: 'stored', seenBy: 'events API, by uuid' },
  { key: 'insights', label: 'insights', probe: 'insights', seenBy: 'an insights count' },
  { key: 'destinations', label: 'destinations consumer', probe: null, seenBy: '' },
  { key: 'deliveries', label: 'deliveries (every-event webhook)', probe: 'delivered', seenBy: 'the sink' },
];

// A lag "keeps growing" when, over the second half of the load, it grew faster than this
// share of the offered rate and ended above GROWING_END_S seconds of events: a lag that
// sways with batches around a level, or stays under a couple of seconds, is bounded.
export const GROWING_SHARE = 0.05;
export const GROWING_END_S = 2;

/** Least-squares slope of y over t. */
export function slope(points: readonly [number, number][]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mt = points.reduce((a, [t]) => a + t, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [t, y] of points) {
    num += (t - mt) * (y - my);
    den += (t - mt) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

export interface StageReading {
  max: number;
  atLoadEnd: number;
  // Events/s the lag grew by over the second half of the load.
  growth: number;
  bounded: boolean;
  // Seconds after the load ended until the lag was 0 (null: not within the drain).
  caughtUpAfter: number | null;
}

export function readStage(samples: readonly Sample[], key: StageKey, loadSeconds: number, rate: number): StageReading {
  const during = samples.filter((s) => s.loading);
  const secondHalf = during.filter((s) => s.t >= loadSeconds / 2).map((s): [number, number] => [s.t, s.lag[key]]);
  const atLoadEnd = during.length ? during[during.length - 1].lag[key] : NaN;
  const growth = slope(secondHalf);
  const caught = samples.find((s) => !s.loading && s.lag[key] <= 0);
  return {
    max: Math.max(...during.map((s) => s.lag[key])),
    atLoadEnd,
    growth,
    bounded: !(growth > GROWING_SHARE * rate && atLoadEnd > GROWING_END_S * rate),
    caughtUpAfter: caught ? Math.max(0, caught.t - loadSeconds) : null,
  };
}

export interface Freshness { p50: number; p99: number; max: number; seen: number; total: number }
export function freshness(probes: readonly Probe[], field: 'stored' | 'insights' | 'delivered'): Freshness {
  const ms = Float64Array.from(probes.filter((p) => p[field] !== undefined).map((p) => p[field]! - p.ackedAt)).sort();
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms.length ? ms[ms.length - 1] : NaN, seen: ms.length, total: probes.length };
}

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const sec = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(ms < 10_000 ? 2 : 1) : '–');

/** The per-stage table of one rate. */
export function stageTable(samples: readonly Sample[], probes: readonly Probe[], loadSeconds: number, rate: number, drainSeconds: number): { lines: string[]; bounded: boolean } {
  const lines = [
    '| stage | lag max (events) | lag at load end | lag growth, 2nd half (events/s) | bounded | caught up after load end | freshness p50 / p99 / max s (probes seen) | seen by |',
    '|---|---:|---:|---:|---|---:|---|---|',
  ];
  let all = true;
  for (const stage of STAGES) {
    const r = readStage(samples, stage.key, loadSeconds, rate);
    all &&= r.bounded;
    const f = stage.probe ? freshness(probes, stage.probe) : null;
    lines.push(`| ${stage.label} | ${fmt(r.max)} | ${fmt(r.atLoadEnd)} | ${fmt(r.growth)} | ${r.bounded ? 'yes' : '**no**'} | ${r.caughtUpAfter === null ? `not in ${drainSeconds} s` : `${r.caughtUpAfter.toFixed(0)} s`} | ` +
      `${f ? `${sec(f.p50)} / ${sec(f.p99)} / ${sec(f.max)} (${f.seen}/${f.total})` : '–'} | ${stage.seenBy || '–'} |`);
  }
  return { lines, bounded: all };
}

/** The lag over time, one row every `everyS` seconds (and the last sample). */
export function timelineTable(samples: readonly Sample[], everyS: number): string[] {
  const lines = [
    '| t s | accepted | event store lag | insights lag | destinations lag | deliveries lag | delivered a / b / c | server cores | RSS MB |',
    '|---:|---:|---:|---:|---:|---:|---|---:|---:|',
  ];
  let next = 0;
  for (const [i, s] of samples.entries()) {
    const last = i === samples.length - 1;
    if (s.t + 0.25 < next && !last) continue;
    next = s.t + everyS;
    const prev = samples[Math.max(0, i - 1)];
    const cores = i === 0 ? NaN : (s.cpu - prev.cpu) / 1e6 / (s.t - prev.t);
    lines.push(`| ${s.t.toFixed(0)} | ${fmt(s.ingested)} | ${fmt(s.lag.event_store)} | ${fmt(s.lag.insights)} | ${fmt(s.lag.destinations)} | ${fmt(s.lag.deliveries)} | ` +
      `${fmt(s.delivered.a)} / ${fmt(s.delivered.b)} / ${fmt(s.delivered.c)} | ${Number.isFinite(cores) ? cores.toFixed(2) : '–'} | ${fmt(s.rssKb / 1024)} |`);
  }
  return lines;
}
