// `hedgerow status`: where this data dir stands in the histories it applies: the event log
// (each consumer's position and lag) and, with NATS, the control stream of management
// writes (docs/decisions/0031), and every live process of the cluster as each announces
// itself (./announce.ts). Reads the data dir beside a running server.
import type { Cluster } from '../cluster/index.js';
import type { LogTables } from '../log/tables.js';
import { LMDB_LOG_ID } from '../log/types.js';
import { newestSeq } from '../log/lmdb-log.js';
import { natsLogId, STREAM } from '../log/nats-stream.js';
import { positionsOf, type RegisteredConsumer } from '../log/consumers/index.js';
import { CONTROL_STREAM, controlPositionKey } from '../state/control-stream.js';
import { listNodes, type NodeAnnouncement } from './announce.js';

export interface NodeStatus {
  log: { id: string; last_seq: number };
  consumers: { name: string; position: number; lag_records: number }[];
  control: { stream: string; last_seq: number; applied: number; lag: number } | null;
  // With NATS, the cluster's live processes (this data dir's own among them when it runs).
  nodes: NodeAnnouncement[] | null;
}

// `cluster`: opened read-only (it creates nothing); embedded, the data dir's own log only.
export async function nodeStatus(store: LogTables, cluster: Cluster, consumers: readonly RegisteredConsumer[]): Promise<NodeStatus> {
  let log = { id: LMDB_LOG_ID, last_seq: newestSeq(store) };
  let control: NodeStatus['control'] = null;
  let nodes: NodeStatus['nodes'] = null;
  const { jetstream } = cluster;
  if (jetstream) {
    const info = (stream: 'events' | 'control') => jetstream.streamInfo(stream).catch(() => null);
    const events = await info('events');
    log = events ? { id: natsLogId(events), last_seq: events.state.last_seq } : { id: `nats:${STREAM}:absent`, last_seq: 0 };
    const stream = await info('control');
    if (stream) {
      const id = `nats:${CONTROL_STREAM}:${stream.created}`;
      const applied = store.positions.get(controlPositionKey(id)) ?? 0;
      control = { stream: id, last_seq: stream.state.last_seq, applied, lag: Math.max(0, stream.state.last_seq - applied) };
    } else {
      control = { stream: `nats:${CONTROL_STREAM}:absent`, last_seq: 0, applied: 0, lag: 0 };
    }
    nodes = await listNodes(cluster);
  }
  return {
    log,
    consumers: positionsOf(store, log.id, consumers).map(({ name, position }) => ({ name, position, lag_records: Math.max(0, log.last_seq - position) })),
    control,
    nodes,
  };
}

export function formatStatus(s: NodeStatus): string {
  const lines = [`event log ${s.log.id}: through ${s.log.last_seq}`];
  for (const c of s.consumers) lines.push(`  consumer ${c.name}: at ${c.position}, ${c.lag_records} records behind`);
  if (s.control) lines.push(`control stream ${s.control.stream}: through ${s.control.last_seq}; applied ${s.control.applied}, ${s.control.lag} behind`);
  else lines.push('control stream: none (embedded: management writes are local)');
  if (s.nodes) {
    lines.push(`cluster: ${s.nodes.length} live process${s.nodes.length === 1 ? '' : 'es'}`);
    for (const n of s.nodes) {
      const consumers = n.consumers.map((c) => `${c.name} at ${c.position} (${c.lag_records} behind)`).join(', ');
      const control = n.control ? `; control applied ${n.control.applied} (${n.control.lag} behind)` : '';
      lines.push(`  ${n.role} ${n.name}${n.listen ? ` on ${n.listen}` : ''}: ${n.ready ? 'ready' : 'NOT READY'}, pid ${n.pid} on ${n.host}, ` +
        `version ${n.version}, started ${n.started_at}, seen ${n.announced_at}`);
      lines.push(`    ${consumers || 'no consumers'}${control}${n.claims.length ? `; claims ${n.claims.join(', ')}` : ''}`);
    }
  }
  return lines.join('\n');
}
