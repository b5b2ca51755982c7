// Prometheus metrics, one registry per server instance (tests run several in one
// process). Label values are bounded: route patterns, never raw paths.
import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';
import type { FollowerView } from './cluster/index.js';

// Where one log consumer stands (src/log/consumers/): its position, and how far behind
// the log's end it is, in records and in events (null where the log does not count them).
export interface ConsumerState {
  name: string;
  position: number;
  lagRecords: number;
  lagEvents: number | null;
}

// An insights replica (`hedgerow aggregate`) as this node knows it: its last published
// loaded position and lag, and the queries it answered for this node.
export interface InsightsReplicaState {
  replica: string;
  position: number;
  lagRecords: number;
  answers: number;
  live: boolean;
}

export interface MetricSources {
  consumers: () => ConsumerState[];
  logPending: () => number;
  deadLetters: () => number;
  // With NATS: where this node stands in the control stream of management writes
  // (docs/decisions/0031); null on an embedded node.
  control?: () => { applied: number; lag: number } | null;
}

export function createMetrics(opts: MetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Counted per request as a plain increment (prom-client hashes the label values on
  // every inc, even through a child: about a microsecond); added to the counter when
  // it is scraped.
  const requestCounts = new Map<string, Map<string, Map<number, { n: number }>>>();
  const requests = new Counter({
    name: 'hedgerow_http_requests_total', help: 'HTTP requests by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const, registers: [registry],
    collect() {
      for (const [route, byMethod] of requestCounts) {
        for (const [method, byStatus] of byMethod) {
          for (const [status, cell] of byStatus) {
            if (cell.n === 0) continue;
            this.inc({ route, method, status: String(status) }, cell.n);
            cell.n = 0;
          }
        }
      }
    },
  });
  const ingested = new Counter({
    name: 'hedgerow_events_ingested_total', help: 'Events accepted into the event log', registers: [registry],
  });
  const dropped = new Counter({
    name: 'hedgerow_events_dropped_total', help: 'Events dropped at capture, by reason',
    labelNames: ['reason'] as const, registers: [registry],
  });
  const ackLatency = new Histogram({
    name: 'hedgerow_capture_ack_seconds', help: 'Time from request decoded to durable acknowledgement',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1], registers: [registry],
  });
  const authFailures = new Counter({
    name: 'hedgerow_auth_failures_total', help: 'Failed management authentication attempts by reason',
    labelNames: ['reason'] as const, registers: [registry],
  });
  new Gauge({
    name: 'hedgerow_log_backlog_records', help: 'Log records appended but not yet applied by every consumer (the largest lag)',
    registers: [registry], collect() { this.set(Math.max(0, ...opts.consumers().map((c) => c.lagRecords))); },
  });
  new Gauge({
    name: 'hedgerow_consumer_position', help: 'Last log sequence each consumer applied',
    labelNames: ['consumer'] as const, registers: [registry],
    collect() { for (const c of opts.consumers()) this.set({ consumer: c.name }, c.position); },
  });
  new Gauge({
    name: 'hedgerow_consumer_lag_records', help: 'Log records appended but not yet applied, per consumer',
    labelNames: ['consumer'] as const, registers: [registry],
    collect() { for (const c of opts.consumers()) this.set({ consumer: c.name }, c.lagRecords); },
  });
  new Gauge({
    name: 'hedgerow_consumer_lag_events', help: 'Events appended but not yet applied, per consumer (embedded log)',
    labelNames: ['consumer'] as const, registers: [registry],
    collect() { for (const c of opts.consumers()) if (c.lagEvents !== null) this.set({ consumer: c.name }, c.lagEvents); },
  });
  const consumerFailures = new Counter({
    name: 'hedgerow_consumer_failures_total',
    help: 'Consumer failures: batch_split (a batch failed and was applied piece by piece), given_up (an event went to the consumer\'s fallback), set_aside (a record or event set aside), restart (its thread restarted)',
    labelNames: ['consumer', 'kind'] as const, registers: [registry],
  });
  new Gauge({
    name: 'hedgerow_log_dead_letters', help: 'Log records and events the consumers set aside (`hedgerow dead-letters`)',
    registers: [registry], collect() { this.set(opts.deadLetters()); },
  });
  new Gauge({
    name: 'hedgerow_control_applied_seq', help: 'Sequence of the control stream (management writes) this node has applied; NATS only',
    registers: [registry], collect() { const c = opts.control?.(); if (c) this.set(c.applied); },
  });
  new Gauge({
    name: 'hedgerow_control_lag_commands', help: 'Management commands in the control stream this node has not applied yet; NATS only',
    registers: [registry], collect() { const c = opts.control?.(); if (c) this.set(c.lag); },
  });
  new Gauge({
    name: 'hedgerow_log_pending_events', help: 'Events waiting for a durable log commit',
    registers: [registry], collect() { this.set(opts.logPending()); },
  });
  // The stream followers of the main thread (src/cluster/follow.ts: the control stream's, the
  // hog telemetry's), each registered by its owner under a name of its own.
  const followers = new Map<string, FollowerView>();
  const watchFollower = (name: string, follower: FollowerView) => { followers.set(name, follower); };
  new Gauge({
    name: 'hedgerow_stream_follower_lag_messages', help: 'Messages known to be in the stream and not yet applied, per stream follower; NATS only',
    labelNames: ['follower'] as const, registers: [registry],
    collect() { for (const [name, f] of followers) this.set({ follower: name }, f.state().lag); },
  });
  new Gauge({
    name: 'hedgerow_stream_follower_behind_seconds',
    help: 'How long the oldest message known to be in the stream and not yet applied has been known, per stream follower (0: caught up); past the stall bound the node is not ready',
    labelNames: ['follower'] as const, registers: [registry],
    collect() { for (const [name, f] of followers) this.set({ follower: name }, f.state().behindMs / 1000); },
  });
  new Gauge({
    name: 'hedgerow_stream_follower_end_unknown_seconds',
    help: 'Since each stream follower last learnt its stream\'s end (read every quarter of the stall bound); past the stall bound the node is not ready',
    labelNames: ['follower'] as const, registers: [registry],
    collect() { for (const [name, f] of followers) this.set({ follower: name }, f.state().unknownMs / 1000); },
  });
  const counted = new Map<string, number>();
  new Counter({
    name: 'hedgerow_stream_follower_stalls_total', help: 'Consumers each stream follower abandoned as stalled and made anew',
    labelNames: ['follower'] as const, registers: [registry],
    collect() {
      for (const [name, f] of followers) {
        // Increased by none at first, so each follower's count shows from 0.
        const n = f.stalls();
        this.inc({ follower: name }, Math.max(0, n - (counted.get(name) ?? 0)));
        counted.set(name, n);
      }
    },
  });
  // The insights module, started after the metrics exist, says where its replicas stand.
  let insightsReplicas: (() => InsightsReplicaState[]) | null = null;
  const replicas = () => insightsReplicas?.() ?? [];
  const watchInsightsReplicas = (source: () => InsightsReplicaState[]) => { insightsReplicas = source; };
  new Gauge({
    name: 'hedgerow_insights_replica_position', help: 'Last log sequence each live insights replica has loaded (its last status)',
    labelNames: ['replica'] as const, registers: [registry],
    collect() { this.reset(); for (const r of replicas()) if (r.live) this.set({ replica: r.replica }, r.position); },
  });
  new Gauge({
    name: 'hedgerow_insights_replica_lag_records', help: 'Stream records each live insights replica has not loaded yet (its last status)',
    labelNames: ['replica'] as const, registers: [registry],
    collect() { this.reset(); for (const r of replicas()) if (r.live) this.set({ replica: r.replica }, r.lagRecords); },
  });
  new Gauge({
    name: 'hedgerow_insights_replica_answers', help: 'Queries each insights replica answered for this node since it started',
    labelNames: ['replica'] as const, registers: [registry],
    collect() { this.reset(); for (const r of replicas()) this.set({ replica: r.replica }, r.answers); },
  });
  function observeRequest(route: string, method: string, status: number) {
    let byMethod = requestCounts.get(route);
    if (!byMethod) requestCounts.set(route, byMethod = new Map());
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, byStatus = new Map());
    const cell = byStatus.get(status);
    if (cell) cell.n++;
    else byStatus.set(status, { n: 1 });
  }
  return { registry, requests, observeRequest, ingested, dropped, ackLatency, authFailures, consumerFailures, watchInsightsReplicas, watchFollower };
}

export type Metrics = ReturnType<typeof createMetrics>;
