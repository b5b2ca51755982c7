// The JetStream stream behind the NATS log. Created with these settings when
// absent; an existing stream (say one an operator made with R3) is used as it is.
import { RetentionPolicy, StorageType, type NatsConnection, type StreamInfo } from 'nats';

export const STREAM = 'HEDGEROW_EVENTS';
export const SUBJECT = 'hedgerow.events';

// Consumers keep their own positions; the stream is a bounded buffer.
const MAX_AGE_NS = 7 * 24 * 3600 * 1e9;

function isStreamNotFound(err: unknown): boolean {
  return (err as { api_error?: { err_code?: number } }).api_error?.err_code === 10059;
}

export async function ensureStream(nc: NatsConnection, replicas: number): Promise<StreamInfo> {
  const jsm = await nc.jetstreamManager();
  try {
    return await jsm.streams.info(STREAM);
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
  }
  const info = await jsm.streams.add({
    name: STREAM,
    subjects: [SUBJECT],
    // File storage: an acknowledged message is in the server's files, not only its memory.
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    num_replicas: replicas,
    max_age: MAX_AGE_NS,
  });
  return info;
}

// A stream made anew starts its sequence again: its creation time tells the two apart.
export const natsLogId = (info: StreamInfo) => `nats:${STREAM}:${info.created}`;
