// The embedded twin of the cluster handle (./types.ts): one process, no NATS. Its KV buckets
// are maps in memory (./memory-kv.ts), so the same leases run on them, and a lease is always
// this process's unless it holds it already (claims, export renders); its announcements and
// query statuses stay in this process, as they did; an object store is in memory where the
// asset table says so (query results), absent where the node's disk is the only copy (export
// files) or there is nothing to share (snapshots). No streams: the event log and the
// management writes have their own embedded twins in LMDB (src/log/, src/state/).
import type { AssetTable, KvAsset, ObjectsAsset } from './assets.js';
import { createLeases, type Leases } from './leases.js';
import { memoryKv } from './memory-kv.js';
import type { KvView } from './kv.js';
import { memoryObjects, type ObjectsView } from './objects.js';
import type { ClusterTimings } from './timings.js';
import type { Cluster } from './types.js';

export function openEmbeddedCluster(opts: { node: string; timings: ClusterTimings; assets: AssetTable }): Cluster {
  const buckets = new Map<string, KvView>();
  const stores = new Map<string, ObjectsView>();
  const tables: Leases[] = [];
  const kv = (b: KvAsset) => {
    let view = buckets.get(b.name);
    if (!view) buckets.set(b.name, view = memoryKv(b.name, b.ttlMs));
    return view;
  };
  const resolveKv = (b: KvAsset | string) => (typeof b === 'string' ? opts.assets.kv[b as keyof AssetTable['kv']] : b);
  const resolveObjects = (o: ObjectsAsset | string) => (typeof o === 'string' ? opts.assets.objects[o as keyof AssetTable['objects']] : o);
  return {
    node: opts.node,
    timings: opts.timings,
    assets: opts.assets,
    jetstream: null,
    kv: async (b) => kv(resolveKv(b)),
    async objects(o) {
      const asset = resolveObjects(o);
      if (asset.embedded === 'none') return null;
      let store = stores.get(asset.name);
      if (!store) stores.set(asset.name, store = memoryObjects(asset.ttlMs));
      return store;
    },
    async leases(b, lease = {}) {
      const asset = resolveKv(b);
      const table = createLeases(kv(asset), { node: opts.node, ttlMs: lease.ttlMs ?? asset.ttlMs, renewMs: lease.renewMs, shared: false });
      tables.push(table);
      return table;
    },
    async close() {
      await Promise.all(tables.map((t) => t.close()));
    },
  };
}
