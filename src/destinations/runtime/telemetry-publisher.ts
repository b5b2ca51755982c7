// The delivering node's side of shared telemetry (./telemetry-stream.ts): what its
// transactions wrote (logs, metric increments, watcher records) is gathered here after
// each commit and published every quarter second: the batches merged into messages of
// bounded size on the stream, each function's latest watcher record put in the bucket.
// Publishing never holds up a delivery. What cannot be published yet (NATS away) waits and
// is tried again, up to a bound beyond which the oldest is dropped: the other nodes then
// miss it, this node's own store has it (telemetry is not exactly once: docs/decisions/0034).
import { randomUUID } from 'node:crypto';
import type { NatsCluster } from '../../cluster/index.js';
import type { WatcherRecord } from './env.js';
import type { TelemetryBatch, TelemetryOut } from './telemetry.js';
import { encodeTelemetry, encodeWatcher } from './telemetry-stream.js';

export interface TelemetryPublisherOptions {
  origin: number;
  onError(err: Error): void;
}

export interface TelemetryPublisher extends TelemetryOut {
  // Publishes what is waiting (tests, and close).
  flush(): Promise<void>;
  close(): Promise<void>;
}

const FLUSH_MS = 250;
// Well below NATS's default max_payload (1 MiB).
const MESSAGE_BYTES = 256 * 1024;
// Log lines and metric increments waiting at most; beyond, the oldest are dropped.
const MAX_WAITING = 100_000;

// Roughly what an entry weighs encoded: enough to keep a message under MESSAGE_BYTES.
const weightOf = (line: TelemetryBatch['logs'][number]) => 64 + line[0].length + line[3].instance_id.length + line[3].message.length * 3;

// On the cluster handle of the destinations consumer's thread (its one connection).
export async function openTelemetryPublisher(cluster: NatsCluster, opts: TelemetryPublisherOptions): Promise<TelemetryPublisher> {
  const stream = await cluster.jetstream.stream('hogTelemetry');
  const bucket = await cluster.kv('hogWatcher');
  const { js } = stream;
  // Message ids `<process>.<n>`: a message published again after a lost acknowledgement
  // is dropped by the stream's duplicate window.
  const processId = randomUUID();
  let sent = 0;
  let metrics: TelemetryBatch['metrics'] = [];
  let logs: TelemetryBatch['logs'] = [];
  const watchers = new Map<string, WatcherRecord>();
  let dropped = 0;
  // The message being published, kept until acknowledged.
  let unacknowledged: { id: string; data: Uint8Array } | null = null;
  let running: Promise<void> | null = null;

  async function publishOnce(): Promise<void> {
    for (;;) {
      if (!unacknowledged) {
        if (metrics.length === 0 && logs.length === 0) break;
        let bytes = 0;
        let n = 0;
        while (n < logs.length && (n === 0 || bytes + weightOf(logs[n]) <= MESSAGE_BYTES)) bytes += weightOf(logs[n++]);
        unacknowledged = { id: `${processId}.${++sent}`, data: encodeTelemetry({ origin: opts.origin, metrics, logs: logs.slice(0, n) }) };
        metrics = [];
        logs = logs.slice(n);
      }
      // Refused or unanswered, it is published again with the same id at the next turn.
      await js.publish(stream.subject, unacknowledged.data, { msgID: unacknowledged.id });
      unacknowledged = null;
    }
    for (const [id, record] of [...watchers]) {
      await bucket.put(id, encodeWatcher({ origin: opts.origin, record }));
      // A newer record gathered meanwhile stays for the next turn.
      if (watchers.get(id) === record) watchers.delete(id);
    }
    if (dropped > 0) {
      opts.onError(new Error(`hog function telemetry: ${dropped} log lines and metric increments could not be published and were dropped`));
      dropped = 0;
    }
  }

  const flush = () => {
    running ??= publishOnce().catch((err) => opts.onError(err as Error)).finally(() => { running = null; });
    return running;
  };
  const timer = setInterval(() => { void flush(); }, FLUSH_MS);

  return {
    telemetry(batch) {
      metrics.push(...batch.metrics);
      logs.push(...batch.logs);
      const over = metrics.length + logs.length - MAX_WAITING;
      if (over > 0) {
        const fromLogs = Math.min(over, logs.length);
        logs = logs.slice(fromLogs);
        metrics = metrics.slice(over - fromLogs);
        dropped += over;
      }
    },
    watcher(functionId, record) {
      watchers.set(functionId, record);
    },
    flush: async () => {
      await running;
      await flush();
    },
    async close() {
      clearInterval(timer);
      await running;
      await flush();
    },
  };
}
