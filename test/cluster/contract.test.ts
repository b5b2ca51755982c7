// The cluster handle's two implementations pass one contract (./contract.ts): the embedded
// twin, and NATS against a real nats-server (each node a handle of its own, as a `serve`
// process opens it: two connections, every asset made at start).
import { overNats, type Asset, type Cluster } from '../../src/cluster/index.js';
import { clusterHandles } from '../helpers/cluster-handle.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { runClusterContract, TIMINGS } from './contract.js';

const embedded = clusterHandles();
runClusterContract({
  name: 'embedded',
  replicas: 1,
  async nodes() {
    const one = await embedded.open(null, { timings: TIMINGS });
    return { one, other: one };
  },
  async inspect(cluster: Cluster, asset: Asset) {
    if (asset.kind === 'stream') return { present: cluster.jetstream !== null };
    if (asset.kind === 'kv') return { present: true, ttlMs: (await cluster.kv(asset)).ttlMs };
    return { present: (await cluster.objects(asset)) !== null };
  },
  keeps: (asset) => asset.kind === 'kv' || (asset.kind === 'objects' && asset.embedded === 'memory'),
  close: () => embedded.closeAll(),
});

const nats = natsServerForSuite();
const handles = clusterHandles();
const NS_PER_MS = 1e6;
runClusterContract({
  name: 'NATS',
  replicas: 1,
  setup: () => nats.start(),
  teardown: () => nats.close(),
  async nodes() {
    const url = nats.server().url;
    return { one: await handles.open(url, { timings: TIMINGS }), other: await handles.open(url, { timings: TIMINGS }) };
  },
  async inspect(cluster: Cluster, asset: Asset) {
    if (!overNats(cluster)) return { present: false };
    const stream = asset.kind === 'stream' ? asset.name : asset.kind === 'kv' ? `KV_${asset.name}` : `OBJ_${asset.name}`;
    const jsm = await cluster.jetstream.control.nc.jetstreamManager();
    const info = await jsm.streams.info(stream).catch(() => null);
    return info ? { present: true, ttlMs: info.config.max_age / NS_PER_MS, replicas: info.config.num_replicas } : { present: false };
  },
  keeps: () => true,
  close: () => handles.closeAll(),
});
