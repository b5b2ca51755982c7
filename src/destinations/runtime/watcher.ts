// PostHog's hog watcher (nodejs/src/cdp/services/monitoring/hog-watcher.service.ts): a token
// bucket per function (10,000 tokens, 10 back a second) from which each finished
// invocation pays for its time: its synchronous Hog time costs up to 100 tokens per
// 500 ms beyond 50 ms, each fetch up to 20 per 4.9 s beyond 100 ms (linear, not capped).
// PostHog's current watcher charges nothing for an error; hedgerow charges a failed
// invocation CDP_WATCHER_COST_ERROR (100), the cost PostHog's earlier watcher charged, so
// a function that keeps failing is degraded and then disabled too (docs/decisions/0021).
// rating = tokens / 10,000: below 0 disabled, at most 0.8 degraded, else healthy. A state
// holds at least 60 s before it changes on its own; a disabled function stays disabled
// until an update that leaves it enabled takes it back as degraded, with 8,000 tokens.
import type { WatcherRecord } from './env.js';
import type { ExecutionTiming } from '../../hog/index.js';
import { WatcherState } from '../types.js';

export interface WatcherSettings {
  bucketSize: number;
  refillPerSecond: number;
  // How long a state holds before it may change on its own.
  stateLockMs: number;
}

export const WATCHER_DEFAULTS: WatcherSettings = { bucketSize: 10_000, refillPerSecond: 10, stateLockMs: 60_000 };
const THRESHOLD_DEGRADED = 0.8;
const COSTS = {
  hog: { lower: 50, upper: 550, cost: 100 },
  async_function: { lower: 100, upper: 5000, cost: 20 },
};
export const ERROR_COST = 100;

export function invocationCost(timings: readonly ExecutionTiming[], failed: boolean): number {
  let cost = failed ? ERROR_COST : 0;
  for (const t of timings) cost += timingCost(t.kind, t.durationMs);
  return cost;
}

/** What one timing of an invocation costs (invocationCost sums these, whole numbers, and ERROR_COST for a failure). */
export function timingCost(kind: ExecutionTiming['kind'], durationMs: number): number {
  const c = COSTS[kind];
  return Math.round(c.cost * (Math.max(durationMs - c.lower, 0) / (c.upper - c.lower)));
}

export function freshRecord(settings: WatcherSettings, nowMs: number, epoch: number): WatcherRecord {
  return { tokens: settings.bucketSize, at: Math.round(nowMs / 1000), state: WatcherState.healthy, lockedUntil: 0, epoch };
}

/** The record's tokens refilled to `nowMs`. */
export function tokensAt(record: WatcherRecord, settings: WatcherSettings, nowMs: number): number {
  const elapsed = Math.max(Math.round(nowMs / 1000) - record.at, 0);
  return Math.min(record.tokens + elapsed * settings.refillPerSecond, settings.bucketSize);
}

function stateFor(tokens: number, settings: WatcherSettings): number {
  const rating = tokens / settings.bucketSize;
  if (rating < 0) return WatcherState.disabled;
  if (rating <= THRESHOLD_DEGRADED) return WatcherState.degraded;
  return WatcherState.healthy;
}

/** A function updated to enabled since the record was written: disabled comes back degraded. */
export function acknowledgeEpoch(record: WatcherRecord, epoch: number, settings: WatcherSettings, nowMs: number): WatcherRecord {
  if (epoch <= record.epoch) return record;
  if (record.state !== WatcherState.disabled) return { ...record, epoch };
  return {
    tokens: settings.bucketSize * THRESHOLD_DEGRADED, at: Math.round(nowMs / 1000), state: WatcherState.degraded,
    lockedUntil: nowMs + settings.stateLockMs, epoch,
  };
}

/** The record after an invocation that cost `cost`. */
export function observe(record: WatcherRecord, cost: number, settings: WatcherSettings, nowMs: number): WatcherRecord {
  const tokens = tokensAt(record, settings, nowMs) - cost;
  const next: WatcherRecord = { ...record, tokens, at: Math.round(nowMs / 1000) };
  const wanted = stateFor(tokens, settings);
  const frozen = record.state === WatcherState.disabled || record.state >= WatcherState.forcefullyDegraded;
  if (wanted !== record.state && !frozen && nowMs >= record.lockedUntil) {
    next.state = wanted;
    next.lockedUntil = nowMs + settings.stateLockMs;
  }
  return next;
}

/** What the API shows as `status`: only for a function that runs (PostHog: {state: 0, tokens: 0} otherwise). */
export function statusOf(record: WatcherRecord | undefined, fn: { enabled: boolean; watcher_epoch: number }, settings: WatcherSettings, nowMs: number) {
  if (!fn.enabled) return { state: WatcherState.unknown, rating: 0, tokens: 0 };
  const r = acknowledgeEpoch(record ?? freshRecord(settings, nowMs, 0), fn.watcher_epoch, settings, nowMs);
  const tokens = tokensAt(r, settings, nowMs);
  return { state: r.state, rating: tokens / settings.bucketSize, tokens: Math.round(tokens) };
}
