// Per-function logs and metrics (PostHog's log_entries and app_metrics2): gathered while a
// batch is processed and written in the transaction that records the batch's outcome.
// Metrics are counted per hour; logs keep their millisecond.
import type { DestinationsStore, FunctionLogEntry } from '../../store/destinations.js';

// PostHog's metric kinds per name.
export const METRIC_KINDS = {
  triggered: 'other',
  filtered: 'other',
  filtering_failed: 'other',
  masked: 'other',
  fetch: 'other',
  succeeded: 'success',
  failed: 'failure',
  inputs_failed: 'failure',
  disabled_permanently: 'failure',
} as const;
export type MetricName = keyof typeof METRIC_KINDS;

const HOUR_MS = 3_600_000;

export interface Telemetry {
  count(functionId: string, name: MetricName, n?: number): void;
  log(functionId: string, instanceId: string, level: FunctionLogEntry['level'], message: string): void;
  empty(): boolean;
  // Writes what was gathered; call inside a write transaction of the destinations store.
  write(store: DestinationsStore): void;
}

// Keys of log lines written in the same millisecond stay apart by this sequence.
let logSequence = 0;

export function createTelemetry(now: () => number): Telemetry {
  const counts = new Map<string, { functionId: string; name: MetricName; hour: number; n: number }>();
  const lines: { functionId: string; at: number; entry: FunctionLogEntry }[] = [];
  return {
    count(functionId, name, n = 1) {
      const hour = Math.floor(now() / HOUR_MS) * HOUR_MS;
      const key = `${functionId} ${name} ${hour}`;
      const c = counts.get(key);
      if (c) c.n += n;
      else counts.set(key, { functionId, name, hour, n });
    },
    log(functionId, instanceId, level, message) {
      lines.push({ functionId, at: now(), entry: { instance_id: instanceId, level, message } });
    },
    empty: () => counts.size === 0 && lines.length === 0,
    write(store) {
      for (const { functionId, name, hour, n } of counts.values()) {
        const key: [string, number, string, string] = [functionId, hour, METRIC_KINDS[name], name];
        store.metrics.put(key, (store.metrics.get(key) ?? 0) + n);
      }
      for (const { functionId, at, entry } of lines) store.logs.put([functionId, at, logSequence++], entry);
      counts.clear();
      lines.length = 0;
    },
  };
}
