// Every node's side of shared telemetry (./telemetry-stream.ts): runs in the main thread of
// `serve` on every node of a NATS cluster. It follows the stream with an ordered consumer
// from the sequence its store applied, and applies each batch of messages that arrived
// together in one transaction of the destinations store that also records the sequence
// (so a message is applied once per store, across restarts); and it watches the watcher
// bucket, putting each function's latest record. Messages and records of this data dir's
// own origin are skipped: its deliveries wrote them already.
import { availableBatches, followStream, type FollowerView, type KvWatch, type NatsCluster } from '../../cluster/index.js';
import type { DestinationsStore } from './env.js';
import { applyTelemetry } from './telemetry.js';
import { decodeTelemetry, decodeWatcher, telemetryOrigin, telemetryPositionKey } from './telemetry-stream.js';

export interface TelemetryFollowerOptions {
  ds: DestinationsStore;
  onError(err: Error): void;
}

export interface TelemetryFollower {
  // The last stream sequence this store applied (or skipped as its own).
  applied(): number;
  // Where it stands in the stream (src/cluster/follow.ts): the node's readiness and metrics.
  readonly follower: FollowerView;
  // Puts every function's watcher record from the bucket as it stands now (but this data
  // dir's own, which its store holds already): a node taking the deliveries over starts
  // from the cluster's latest watcher state, not from what it last heard.
  syncWatcher(): Promise<void>;
  close(): Promise<void>;
}

// Messages applied in one transaction at most: it runs on the HTTP thread, and a message
// may hold up to 256 KiB (a node catching up reads full ones).
const BATCH_MAX = 32;
const RETRY_MS = 250;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The stream on the process's bulk connection, the bucket on its control connection.
export async function followTelemetry(cluster: NatsCluster, opts: TelemetryFollowerOptions): Promise<TelemetryFollower> {
  const { ds } = opts;
  const stream = await cluster.jetstream.stream('hogTelemetry');
  const bucket = await cluster.kv('hogWatcher');
  const positionKey = telemetryPositionKey(stream.info);
  const origin = await telemetryOrigin(ds);
  let applied = ds.meta.get(positionKey) ?? 0;
  let closed = false;
  let watch: KvWatch | null = null;

  // The stream through the shared follower (src/cluster/follow.ts: made anew on failure or stall).
  const stopping = new AbortController();
  const following = followStream({
    stream, batchMax: BATCH_MAX, stallMs: cluster.timings.stallMs, signal: stopping.signal, label: `hog_telemetry_${cluster.node}`,
    position: () => applied,
    async apply(batch) {
      const last = batch[batch.length - 1].seq;
      await ds.root.transaction(() => {
        // Another process on this data dir may have applied them already.
        const stored = ds.meta.get(positionKey) ?? 0;
        for (const m of batch) {
          if (m.seq <= stored) continue;
          const message = decodeTelemetry(m.data);
          if (message.origin !== origin) applyTelemetry(ds, message);
        }
        if (last > stored) ds.meta.put(positionKey, last);
      });
      applied = Math.max(applied, last);
    },
    onError: (err) => opts.onError(err as Error),
    onStall: (state) => opts.onError(new Error(`the consumer delivered nothing while the stream held more (${state.lag} behind); made anew`)),
  });
  following.observe(stream.info.state.last_seq);

  const followWatcher = (async () => {
    while (!closed) {
      try {
        watch = await bucket.watch();
        if (closed) watch.stop();
        for await (const batch of availableBatches(watch, BATCH_MAX)) {
          await ds.root.transaction(() => {
            for (const e of batch) {
              if (e.operation !== 'PUT') continue;
              const value = decodeWatcher(e.value);
              if (value.origin !== origin) ds.watcher.put(e.key, value.record);
            }
          });
        }
      } catch (err) {
        if (!closed) opts.onError(err as Error);
      } finally {
        watch = null;
      }
      if (!closed) await sleep(RETRY_MS);
    }
  })();

  return {
    applied: () => applied,
    follower: following,
    async syncWatcher() {
      const latest: [string, ReturnType<typeof decodeWatcher>][] = [];
      for await (const key of await bucket.keys()) {
        const e = await bucket.get(key);
        if (e && e.operation === 'PUT') latest.push([key, decodeWatcher(e.value)]);
      }
      await ds.root.transaction(() => {
        for (const [key, value] of latest) if (value.origin !== origin) ds.watcher.put(key, value.record);
      });
    },
    async close() {
      closed = true;
      stopping.abort();
      watch?.stop();
      await Promise.all([following.done, followWatcher]);
    },
  };
}
