// The JetStream stream behind the NATS write path (docs/decisions/0031): the one ordered
// history of management commands. Unlike the event stream it is never aged out: a node
// that joins later, or starts from an empty data dir, builds its management state by
// applying it from the first command. Created with these settings when absent; an existing
// stream (say one an operator made with R3) is used as it is.
import { DiscardPolicy, RetentionPolicy, StorageType, type NatsConnection, type StreamInfo } from 'nats';

export const CONTROL_STREAM = 'HEDGEROW_CONTROL';

export const controlSubject = (stream: string) => (stream === CONTROL_STREAM ? 'hedgerow.control' : `hedgerow.control.${stream}`);

// Where a data dir keeps the sequence of the control stream it has applied (the positions
// database, beside the event log consumers'; the '@' keeps it out of embedded retention).
export const controlPositionKey = (streamId: string) => `control@${streamId}`;
export const CONTROL_POSITION_PREFIX = 'control@';

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
    // The history is the state: nothing may be cut out of it.
    deny_delete: true,
    deny_purge: true,
  });
}
