// `hedgerow status`: where this data dir stands in the histories it applies: the event log
// (each consumer's position and lag) and, with NATS, the control stream of management
// writes (docs/decisions/0031). Reads the data dir beside a running server.
import { connect } from 'nats';
import type { Store } from '../store/env.js';
import { LMDB_LOG_ID } from '../log/types.js';
import { newestSeq } from '../log/lmdb-log.js';
import { natsLogId, STREAM } from '../log/nats-stream.js';
import { positionsOf, type RegisteredConsumer } from '../log/consumers/index.js';
import { CONTROL_STREAM, controlPositionKey } from '../state/control-stream.js';

export interface NodeStatus {
  log: { id: string; last_seq: number };
  consumers: { name: string; position: number; lag_records: number }[];
  control: { stream: string; last_seq: number; applied: number; lag: number } | null;
}

async function streamInfo(jsm: Awaited<ReturnType<Awaited<ReturnType<typeof connect>>['jetstreamManager']>>, name: string) {
  try {
    return await jsm.streams.info(name);
  } catch {
    return null;
  }
}

export async function nodeStatus(store: Store, natsUrl: string | null, consumers: readonly RegisteredConsumer[]): Promise<NodeStatus> {
  let log = { id: LMDB_LOG_ID, last_seq: newestSeq(store) };
  let control: NodeStatus['control'] = null;
  if (natsUrl) {
    const nc = await connect({ servers: natsUrl, name: 'hedgerow-status', maxReconnectAttempts: 0 });
    try {
      const jsm = await nc.jetstreamManager();
      const events = await streamInfo(jsm, STREAM);
      log = events ? { id: natsLogId(events), last_seq: events.state.last_seq } : { id: `nats:${STREAM}:absent`, last_seq: 0 };
      const stream = await streamInfo(jsm, CONTROL_STREAM);
      if (stream) {
        const id = `nats:${CONTROL_STREAM}:${stream.created}`;
        const applied = store.positions.get(controlPositionKey(id)) ?? 0;
        control = { stream: id, last_seq: stream.state.last_seq, applied, lag: Math.max(0, stream.state.last_seq - applied) };
      } else {
        control = { stream: `nats:${CONTROL_STREAM}:absent`, last_seq: 0, applied: 0, lag: 0 };
      }
    } finally {
      await nc.close();
    }
  }
  return {
    log,
    consumers: positionsOf(store, log.id, consumers).map(({ name, position }) => ({ name, position, lag_records: Math.max(0, log.last_seq - position) })),
    control,
  };
}

export function formatStatus(s: NodeStatus): string {
  const lines = [`event log ${s.log.id}: through ${s.log.last_seq}`];
  for (const c of s.consumers) lines.push(`  consumer ${c.name}: at ${c.position}, ${c.lag_records} records behind`);
  if (s.control) lines.push(`control stream ${s.control.stream}: through ${s.control.last_seq}; applied ${s.control.applied}, ${s.control.lag} behind`);
  else lines.push('control stream: none (embedded: management writes are local)');
  return lines.join('\n');
}
