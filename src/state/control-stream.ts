// The JetStream stream behind the NATS write path (docs/decisions/0031): the one ordered
// history of management commands. Unlike the event stream it is never aged out: a node
// that joins later, or starts from an empty data dir, builds its management state from a
// snapshot and the commands after it, or from the first command. Only the snapshot taker
// cuts it, up to the oldest snapshot kept (docs/decisions/0033). Created with these
// settings when absent; an existing stream (say one an operator made with R3) is used as it is.
import { DiscardPolicy, RetentionPolicy, StorageType, type NatsConnection, type StreamInfo } from 'nats';

export const CONTROL_STREAM = 'HEDGEROW_CONTROL';

export const controlSubject = (stream: string) => (stream === CONTROL_STREAM ? 'hedgerow.control' : `hedgerow.control.${stream}`);

// Where a data dir keeps the sequence of the control stream it has applied (the positions
// database, beside the event log consumers'; the '@' keeps it out of embedded retention).
export const controlPositionKey = (streamId: string) => `control@${streamId}`;
export const CONTROL_POSITION_PREFIX = 'control@';

// A stream made anew starts its sequence again: its creation time tells the two apart.
export const controlStreamId = (info: StreamInfo) => `nats:${info.config.name}:${info.created}`;

// What a node that has applied through `applied` is told when the stream now starts after
// the next command it needs: it was offline while the stream was compacted past it.
export function behindMessage(streamId: string, applied: number, firstHeld: number): string {
  return `control stream ${streamId} starts at ${firstHeld} (compacted after a snapshot), but this data dir has applied only ` +
    `through ${applied}: it cannot catch up by replay. Rejoin from a snapshot: stop this node, empty its data dir ` +
    '(HEDGEROW_DATA) and start it again; it restores the newest snapshot (docs/decisions/0033)';
}

// Commands a node may republish with the same id after a lost acknowledgement are dropped
// by JetStream within this window.
const DUPLICATE_WINDOW_NS = 2 * 60 * 1e9;

function isStreamNotFound(err: unknown): boolean {
  return (err as { api_error?: { err_code?: number } }).api_error?.err_code === 10059;
}

export async function ensureControlStream(nc: NatsConnection, name: string, replicas: number): Promise<StreamInfo> {
  const jsm = await nc.jetstreamManager();
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
  }
  // Two nodes starting together may both get here: adding a stream with the same settings
  // twice is accepted, and both end up with the one stream.
  return await jsm.streams.add({
    name,
    subjects: [controlSubject(name)],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.New,
    num_replicas: replicas,
    max_age: 0,
    max_msgs: -1,
    max_bytes: -1,
    duplicate_window: DUPLICATE_WINDOW_NS,
    // No single command may be cut out (a hole is a gap every follower halts at); a purge
    // of its beginning is how the snapshot taker bounds it (docs/decisions/0033). A stream
    // made earlier with deny_purge keeps it, and is then never compacted.
    deny_delete: true,
    deny_purge: false,
  });
}
