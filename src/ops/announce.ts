// Every process of a cluster (`serve` and `aggregate`) announces itself in the KV bucket
// HEDGEROW_NODES, so `hedgerow status` on any node lists the cluster (docs/decisions/0031).
// The entry is a lease (src/cluster/leases.ts) on a key of its own, held with what the
// process knows of itself (its consumers' positions and lag, the control stream, readiness,
// claims), rewritten every third of the bucket's TTL (the timings' nodeTtlMs, 15 s): a
// process that dies leaves the list one TTL after its last write; one shut down cleanly
// releases (deletes) its entry at once. Embedded, the entry stays in the process.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Cluster, KvView } from '../cluster/index.js';

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
  name: string;
  role: NodeRole;
  listen: string | null;
  state(): NodeState;
  onError?(err: Error): void;
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

export async function announceNode(cluster: Cluster, opts: AnnounceOptions): Promise<{ close(): Promise<void> }> {
  const leases = await cluster.leases('nodes');
  const startedAt = new Date().toISOString();
  let lastSeq = 0;
  // An outage is reported once, not at every renewal.
  let failing = false;

  async function entry(): Promise<Uint8Array> {
    try {
      lastSeq = (await cluster.jetstream?.streamInfo('events'))?.state.last_seq ?? lastSeq;
    } catch {
      // NATS unreachable: the last one read.
    }
    const state = opts.state();
    const announced: NodeAnnouncement = {
      name: opts.name, role: opts.role, pid: process.pid, host: hostname(), listen: opts.listen, version: packageVersion(),
      started_at: startedAt, announced_at: new Date().toISOString(), events_last_seq: lastSeq,
      consumers: state.consumers.map((c) => ({ ...c, lag_records: Math.max(0, lastSeq - c.position) })),
      control: state.control, ready: state.ready, claims: state.claims,
    };
    return text.encode(JSON.stringify(announced));
  }

  // Kept: a renewal refused (the entry lapsed while NATS was away) writes it anew.
  const lease = await leases.hold(keyOf(opts.name), {
    keep: true,
    value: entry,
    async renewed() { failing = false; },
    failed(err) {
      if (!failing) opts.onError?.(err);
      failing = true;
    },
  });
  return {
    async close() {
      await lease.release();
      await leases.close();
    },
  };
}

/** Every live process of the cluster, by role and name. */
export async function listNodes(cluster: Cluster): Promise<NodeAnnouncement[]> {
  let kv: KvView;
  try {
    kv = await cluster.kv('nodes');
  } catch {
    return []; // No bucket: nobody announced.
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
