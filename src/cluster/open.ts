// Opening the cluster handle: over NATS when NATS_URL is set (./nats.ts), else the embedded
// twin (./embedded.ts). The one place that reads NATS_URL and HEDGEROW_NATS_REPLICAS. What it
// needs is plain data (ClusterSettings), so a consumer thread opens its own from what the
// main thread passes it.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { assetTable } from './assets.js';
import { openEmbeddedCluster } from './embedded.js';
import { openNatsCluster, type ClusterRole } from './nats.js';
import { clusterTimings, type ClusterTimings } from './timings.js';
import type { Cluster } from './types.js';

export interface ClusterSettings {
  natsUrl: string | null;
  replicas: number;
  node: string;
  timings: ClusterTimings;
  hog: { logRetentionDays: number; metricRetentionDays: number };
}

// The slice of the config the cluster reads.
export interface ClusterConfig {
  natsUrl: string | null;
  natsReplicas: number;
  clusterTimeScale: number;
  exports: { claimTtlMs: number };
  hog: { logRetentionDays: number; metricRetentionDays: number };
}

// This process's name in leases and announcements: host, pid and a random part (a restarted
// process is another holder).
export const processNode = () => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export function clusterSettings(config: Readonly<ClusterConfig>, opts: { timings?: Partial<ClusterTimings>; node?: string } = {}): ClusterSettings {
  return {
    natsUrl: config.natsUrl,
    replicas: config.natsReplicas,
    node: opts.node ?? processNode(),
    timings: clusterTimings(config, opts.timings),
    hog: { logRetentionDays: config.hog.logRetentionDays, metricRetentionDays: config.hog.metricRetentionDays },
  };
}

export async function openCluster(settings: ClusterSettings, role: ClusterRole = 'process', label?: string): Promise<Cluster> {
  const assets = assetTable(settings);
  if (!settings.natsUrl) return openEmbeddedCluster({ node: settings.node, timings: settings.timings, assets });
  return openNatsCluster({ url: settings.natsUrl, replicas: settings.replicas, node: settings.node, timings: settings.timings, assets, role, label });
}
