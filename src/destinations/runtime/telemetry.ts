// Per-function logs and metrics (PostHog's log_entries and app_metrics2): gathered while a
// batch is processed and written in the transaction that records the batch's outcome.
// Metrics are counted per hour; logs keep their millisecond. What one write wrote is a
// TelemetryBatch (plain data): with NATS the node that delivers publishes it and every
// other node applies it with the same applyTelemetry (./telemetry-stream.ts).
import { randomInt } from 'node:crypto';
import type { DestinationsStore, FunctionLogEntry, WatcherRecord } from './env.js';

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
  // A transformation that dropped its event (beside succeeded).
  dropped: 'other',
} as const;
export type MetricName = keyof typeof METRIC_KINDS;

const HOUR_MS = 3_600_000;

// Metric increments ([function id, hour start ms, kind, name], n) and log lines under the
// keys their writer chose ([function id, timestamp ms, sequence]).
export interface TelemetryBatch {
  metrics: [functionId: string, hour: number, kind: string, name: string, n: number][];
  logs: [functionId: string, at: number, sequence: number, entry: FunctionLogEntry][];
}

// Where the delivering node hands what it committed, to be shared with the other nodes
// (./telemetry-publisher.ts); absent without NATS.
export interface TelemetryOut {
  telemetry(batch: TelemetryBatch): void;
  watcher(functionId: string, record: WatcherRecord): void;
}

export interface Telemetry {
  count(functionId: string, name: MetricName, n?: number): void;
  log(functionId: string, instanceId: string, level: FunctionLogEntry['level'], message: string): void;
  empty(): boolean;
  // Writes what was gathered and returns it; call inside a write transaction of the
  // destinations store.
  write(store: DestinationsStore): TelemetryBatch;
}

// Keys of log lines written in the same millisecond stay apart by this sequence. It starts
// at a random point so that lines written in the same millisecond by two processes (a
// restarted node, or two nodes one after the other holding the deliveries) do not share a
// key once both are applied to every node's store.
let logSequence = randomInt(2 ** 47);

/** Inside a write transaction: adds the metric increments and puts the log lines under their keys (a line applied twice is one line). */
export function applyTelemetry(store: DestinationsStore, batch: TelemetryBatch): void {
  for (const [functionId, hour, kind, name, n] of batch.metrics) {
    const key: [string, number, string, string] = [functionId, hour, kind, name];
    store.metrics.put(key, (store.metrics.get(key) ?? 0) + n);
  }
  for (const [functionId, at, sequence, entry] of batch.logs) store.logs.put([functionId, at, sequence], entry);
}

interface Count {
  functionId: string;
  name: MetricName;
  hour: number;
  n: number;
}

export function createTelemetry(now: () => number): Telemetry {
  // Each function's counts (a few: one per name and hour), found without a key text made
  // per count (the deliveries count twice per delivery); and all of them in the order first counted.
  const byFunction = new Map<string, Count[]>();
  const counts: Count[] = [];
  let lines: TelemetryBatch['logs'] = [];
  return {
    count(functionId, name, n = 1) {
      const hour = Math.floor(now() / HOUR_MS) * HOUR_MS;
      let mine = byFunction.get(functionId);
      if (mine === undefined) byFunction.set(functionId, (mine = []));
      for (const c of mine) {
        if (c.name === name && c.hour === hour) {
          c.n += n;
          return;
        }
      }
      const c: Count = { functionId, name, hour, n };
      mine.push(c);
      counts.push(c);
    },
    log(functionId, instanceId, level, message) {
      lines.push([functionId, now(), logSequence++, { instance_id: instanceId, level, message }]);
    },
    empty: () => counts.length === 0 && lines.length === 0,
    write(store) {
      const batch: TelemetryBatch = {
        metrics: counts.map(({ functionId, name, hour, n }) => [functionId, hour, METRIC_KINDS[name], name, n]),
        logs: lines,
      };
      applyTelemetry(store, batch);
      counts.length = 0;
      byFunction.clear();
      lines = [];
      return batch;
    },
  };
}
