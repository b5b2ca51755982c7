// Every process of a NATS cluster (`serve` and `aggregate`) announces itself in the
// JetStream KV bucket HEDGEROW_NODES, so `hedgerow status` on any node lists the cluster
// (docs/decisions/0031). The entry is rewritten every ANNOUNCE_INTERVAL_MS with what the
// process knows of itself (its consumers' positions and lag, the control stream, readiness,
// claims) and the bucket's entries expire NODE_TTL_MS after their last write: a process that
// dies leaves the list within that; one shut down cleanly deletes its entry at once.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { StorageType, type KV, type NatsConnection } from 'nats';
import { connectNats } from '../nats/connect.js';
import { STREAM } from '../log/nats-stream.js';

export const NODES_BUCKET = 'HEDGEROW_NODES';
export const ANNOUNCE_INTERVAL_MS = 5_000;
export const NODE_TTL_MS = 3 * ANNOUNCE_INTERVAL_MS;

export type NodeRole = 'serve' | 'aggregate';

/** What a process says of itself at each refresh. */
export interface NodeState {
  consumers: { name: string; position: number }[];
  control: { applied: number; lag: number } | null;
  ready: boolean;
  claims: string[];
}

export interface NodeAnnouncement {
  name: string;
  role: NodeRole;
  pid: number;
  host: string;
  // Where it answers HTTP (serve), null for an aggregate replica.
  listen: string | null;
  version: string;
  started_at: string;
  announced_at: string;
  // The event stream's last sequence as this process last read it, and each consumer's place.
  events_last_seq: number;
  consumers: { name: string; position: number; lag_records: number }[];
  control: { applied: number; lag: number } | null;
  ready: boolean;
  claims: string[];
}

export interface AnnounceOptions {
  url: string;
  name: string;
  role: NodeRole;
  listen: string | null;
  state(): NodeState;
  onError?(err: Error): void;
  // Replicas of what this creates when missing (HEDGEROW_NATS_REPLICAS; 1 when omitted).
  replicas?: number;
}

/** hedgerow's version, from its package.json (beside dist/ when built). */
export function packageVersion(): string {
  try {
    return String((JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

const text = new TextEncoder();
const fromText = new TextDecoder();
// A KV key admits few characters; a node's name has colons and paths.
const keyOf = (name: string) => createHash('sha256').update(name).digest('hex').slice(0, 32);

const openBucket = (nc: NatsConnection, replicas = 1) =>
  nc.jetstream().views.kv(NODES_BUCKET, { ttl: NODE_TTL_MS, history: 1, storage: StorageType.File, replicas });

export async function announceNode(opts: AnnounceOptions): Promise<{ close(): Promise<void> }> {
  const nc = await connectNats(opts.url, 'hedgerow-announce');
  let kv: KV;
  try {
    kv = await openBucket(nc, opts.replicas);
  } catch (err) {
    await nc.close();
    throw err;
  }
  const jsm = await nc.jetstreamManager();
  const key = keyOf(opts.name);
  const startedAt = new Date().toISOString();
  let lastSeq = 0;
  // An outage is reported once, not at every refresh.
  let failing = false;

  async function announce() {
    try {
      lastSeq = (await jsm.streams.info(STREAM)).state.last_seq;
    } catch {
      // No event stream yet, or NATS unreachable: the last one read.
    }
    const state = opts.state();
    const entry: NodeAnnouncement = {
      name: opts.name, role: opts.role, pid: process.pid, host: hostname(), listen: opts.listen, version: packageVersion(),
      started_at: startedAt, announced_at: new Date().toISOString(), events_last_seq: lastSeq,
      consumers: state.consumers.map((c) => ({ ...c, lag_records: Math.max(0, lastSeq - c.position) })),
      control: state.control, ready: state.ready, claims: state.claims,
    };
    try {
      await kv.put(key, text.encode(JSON.stringify(entry)));
      failing = false;
    } catch (err) {
      if (!failing) opts.onError?.(err as Error);
      failing = true;
    }
  }

  let turn = announce();
  await turn;
  const timer = setInterval(() => { turn = turn.then(announce); }, ANNOUNCE_INTERVAL_MS);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await turn;
      await kv.delete(key).catch(() => undefined);
      await nc.drain().catch(() => nc.close());
    },
  };
}

/** Every live process of the cluster, by role and name. */
export async function listNodes(nc: NatsConnection): Promise<NodeAnnouncement[]> {
  let kv: KV;
  try {
    kv = await nc.jetstream().views.kv(NODES_BUCKET, { bindOnly: true });
  } catch {
    return [];
  }
  const nodes: NodeAnnouncement[] = [];
  let keys: string[] = [];
  try {
    for await (const k of await kv.keys()) keys.push(k);
  } catch {
    keys = []; // No bucket: nobody announced.
  }
  for (const k of keys) {
    const e = await kv.get(k).catch(() => null);
    if (!e || e.operation !== 'PUT') continue;
    try {
      nodes.push(JSON.parse(fromText.decode(e.value)) as NodeAnnouncement);
    } catch {
      // An entry this version cannot read.
    }
  }
  return nodes.sort((a, b) => a.role.localeCompare(b.role) || a.name.localeCompare(b.name));
}
