// The cluster handle over NATS (./types.ts): two connections per process, `bulk` and
// `control` (./assets.ts says which carries what), one in a consumer thread or a CLI
// command; every JetStream asset of the table made from here, with HEDGEROW_NATS_REPLICAS
// replicas when missing and as it is when it exists, and each handle made once per process.
import { nanos, StorageType, type JetStreamManager, type StreamInfo } from 'nats';
import { allAssets, type Asset, type AssetTable, type KvAsset, type ObjectsAsset, type StreamAsset } from './assets.js';
import { connectNats, linkOf } from './connect.js';
import type { KvView } from './kv.js';
import { natsKv } from './nats-kv.js';
import { createLeases, type Leases } from './leases.js';
import type { ObjectsView } from './objects.js';
import type { ClusterTimings } from './timings.js';
import type { Cluster, JetStream, Link, StreamHandle } from './types.js';
import { createPatiently } from './patient.js';

export type ClusterRole =
  // serve, aggregate: two connections, every asset ensured at open.
  | 'process'
  // A consumer thread, which cannot share the main thread's sockets: one connection;
  // assets ensured as used (the process made them already).
  | 'thread'
  // A CLI command: one connection, assets ensured as used.
  | 'command'
  // `hedgerow status`: one connection that fails at once without a server; creates nothing.
  | 'readonly';

export interface NatsClusterOptions {
  url: string;
  replicas: number;
  node: string;
  timings: ClusterTimings;
  assets: AssetTable;
  role: ClusterRole;
  // Names the connections (a consumer thread: its consumer).
  label?: string;
}

function isStreamNotFound(err: unknown): boolean {
  return (err as { api_error?: { err_code?: number } }).api_error?.err_code === 10059;
}

async function infoOrNull(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (isStreamNotFound(err)) return null;
    throw err;
  }
}

export async function openNatsCluster(opts: NatsClusterOptions): Promise<Cluster> {
  const { timings, role } = opts;
  const label = opts.label ? ` ${opts.label}` : '';
  const once = role === 'readonly';
  const creates = role !== 'readonly';
  const links: Link[] = [];
  // Draining waits for the server to take what is still buffered; with none there is nothing
  // left to flush, and the connection is closed at once.
  const close = async () => {
    for (const { nc, connected } of links) {
      if (nc.isClosed()) continue;
      if (connected()) await nc.drain().catch(() => nc.close());
      else await nc.close();
    }
  };
  // Named after this process too (host:pid:random), so the server's connection list tells
  // the nodes apart.
  const connectLink = async (name: string) => {
    const link = linkOf(await connectNats(opts.url, `${name} ${opts.node}`, { once }));
    links.push(link);
    return link;
  };
  let bulk: Link;
  let control: Link;
  try {
    if (role === 'process') {
      bulk = await connectLink(`hedgerow-bulk${label}`);
      control = await connectLink(`hedgerow-control${label}`);
    } else {
      bulk = control = await connectLink(`hedgerow-${role}${label}`);
    }
  } catch (err) {
    await close();
    throw err;
  }
  const linkFor = (c: 'bulk' | 'control') => (c === 'bulk' ? bulk : control);

  // Each handle is made once, by name (a row made from the table's, in tests, too); a failed
  // attempt (NATS away at start) is tried afresh by the next caller.
  const handles = new Map<string, Promise<unknown>>();
  function made<T>(name: string, make: () => Promise<T>): Promise<T> {
    let h = handles.get(name) as Promise<T> | undefined;
    if (!h) {
      handles.set(name, h = make());
      h.catch(() => handles.delete(name));
    }
    return h;
  }
  const jsmOf = (link: Link) => made(`jsm ${link === bulk ? 'bulk' : 'control'}`, () => createPatiently(() => link.nc.jetstreamManager()));

  async function stream(asset: StreamAsset): Promise<StreamHandle> {
    return made(asset.name, async () => {
      const link = linkFor(asset.connection);
      const jsm = await jsmOf(link);
      let info = await createPatiently(() => infoOrNull(jsm, asset.name));
      if (!info && !creates) throw new Error(`stream ${asset.name} does not exist`);
      // Two nodes starting together may both add it: adding a stream with the same settings
      // twice is accepted, and both end up with the one stream.
      info ??= await createPatiently(() => jsm.streams.add({ ...asset.config, name: asset.name, subjects: [asset.subject], num_replicas: opts.replicas }));
      return {
        name: asset.name,
        subject: asset.subject,
        info,
        js: link.nc.jetstream({ timeout: timings.ackTimeoutMs }),
        jsm,
        link,
        current: () => jsm.streams.info(asset.name),
      };
    });
  }

  async function kv(asset: KvAsset): Promise<KvView> {
    return made(`KV_${asset.name}`, async () => {
      const views = control.nc.jetstream().views;
      const bucket = creates
        ? await createPatiently(() => views.kv(asset.name, {
          history: 1, storage: StorageType.File, replicas: opts.replicas, description: asset.description, ...(asset.ttlMs > 0 ? { ttl: asset.ttlMs } : {}),
        }))
        : await views.kv(asset.name, { bindOnly: true });
      return natsKv(bucket, asset.name);
    });
  }

  async function objects(asset: ObjectsAsset): Promise<ObjectsView> {
    return made(`OBJ_${asset.name}`, async () => {
      if (!creates) throw new Error(`object store ${asset.name} is not opened by a read-only command`);
      return createPatiently(() => bulk.nc.jetstream().views.os(asset.name, {
        storage: StorageType.File, replicas: opts.replicas, description: asset.description, ...(asset.ttlMs > 0 ? { ttl: nanos(asset.ttlMs) } : {}),
      }));
    });
  }

  const tables: Leases[] = [];
  const resolveKv = (b: KvAsset | string) => (typeof b === 'string' ? opts.assets.kv[b as keyof AssetTable['kv']] : b);
  const resolveObjects = (o: ObjectsAsset | string) => (typeof o === 'string' ? opts.assets.objects[o as keyof AssetTable['objects']] : o);
  const resolveStream = (s: StreamAsset | string) => (typeof s === 'string' ? opts.assets.streams[s as keyof AssetTable['streams']] : s);

  const jetstream: JetStream = {
    bulk,
    control,
    stream: (s) => stream(resolveStream(s)),
    async streamInfo(s) {
      const asset = resolveStream(s);
      return infoOrNull(await jsmOf(linkFor(asset.connection)), asset.name);
    },
  };

  const cluster: Cluster = {
    node: opts.node,
    timings,
    assets: opts.assets,
    jetstream,
    kv: (b) => kv(resolveKv(b)),
    objects: (o) => objects(resolveObjects(o)),
    async leases(b, lease = {}) {
      const asset = resolveKv(b);
      const view = await kv(asset);
      const table = createLeases(view, { node: opts.node, ttlMs: lease.ttlMs ?? (view.ttlMs || asset.ttlMs), renewMs: lease.renewMs, shared: true });
      tables.push(table);
      return table;
    },
    async close() {
      await Promise.all(tables.map((t) => t.close()));
      await close();
    },
  };

  if (role === 'process') {
    try {
      await Promise.all(allAssets(opts.assets).map((a: Asset) => (a.kind === 'stream' ? stream(a) : a.kind === 'kv' ? kv(a) : objects(a))));
    } catch (err) {
      await close();
      throw err;
    }
  }
  return cluster;
}
