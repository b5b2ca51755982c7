// Cluster handles (src/cluster/) for tests: over a real nats-server, or the embedded twin
// (natsUrl null), with the default timings unless a test scales them down. Each handle a
// test opens stands for one node (its own connections and node name); `closeAll` closes
// what is still open.
import {
  assetTable, clusterSettings, createLeases, DEFAULT_TIMINGS, memoryKv, openCluster, type Cluster, type ClusterRole, type ClusterTimings,
} from '../../src/cluster/index.js';
import { leaseClaims, type RenderClaims } from '../../src/exports/assets/claims.js';
import { createNatsWrites, type NatsWrites, type NatsWritesOptions } from '../../src/state/nats.js';

// The asset table with the default settings: its names (HEDGEROW_CLAIMS, …) for tests that
// reach the assets from outside, as an operator's `nats` CLI would.
export const ASSETS = assetTable({ timings: DEFAULT_TIMINGS, hog: { logRetentionDays: 7, metricRetentionDays: 90 } });

export interface TestClusterOptions {
  timings?: Partial<ClusterTimings>;
  node?: string;
  replicas?: number;
  role?: ClusterRole;
}

export function clusterHandles() {
  let open: Cluster[] = [];
  return {
    async open(natsUrl: string | null, opts: TestClusterOptions = {}): Promise<Cluster> {
      const settings = clusterSettings({
        natsUrl, natsReplicas: opts.replicas ?? 1, clusterTimeScale: 1, exports: { claimTtlMs: 30_000 },
        hog: { logRetentionDays: 7, metricRetentionDays: 90 },
      }, { timings: opts.timings, node: opts.node });
      const cluster = await openCluster(settings, opts.role ?? 'process');
      open.push(cluster);
      return cluster;
    },
    // Closes one handle (a node going away cleanly).
    async close(cluster: Cluster): Promise<void> {
      open = open.filter((c) => c !== cluster);
      await cluster.close();
    },
    async closeAll(): Promise<void> {
      const closing = open;
      open = [];
      for (const c of closing) await c.close().catch(() => undefined);
    },
  };
}

// The NATS write path of a node of its own (a cluster handle with one connection, closed
// with the writes), as each test node's `createNatsWrites` had its own connection before.
export async function natsWrites<T>(natsUrl: string, opts: NatsWritesOptions<T>, timings?: Partial<ClusterTimings>): Promise<NatsWrites> {
  const handles = clusterHandles();
  const cluster = await handles.open(natsUrl, { role: 'command', timings });
  const writes = await createNatsWrites(cluster, opts).catch(async (err: unknown) => { await handles.closeAll(); throw err; });
  return { ...writes, close: async () => { await writes.close(); await handles.closeAll(); } };
}

// Render claims as the embedded service holds them: leases on an in-memory bucket, which
// this one node always gets unless it holds them already.
export function embeddedRenderClaims(): RenderClaims {
  const ttlMs = DEFAULT_TIMINGS.exportClaimTtlMs;
  return leaseClaims(createLeases(memoryKv('TEST_EXPORT_CLAIMS', ttlMs), { node: 'test', ttlMs, shared: false }));
}
