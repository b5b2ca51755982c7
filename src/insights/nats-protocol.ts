// Queries over NATS (docs/decisions/0030): `hedgerow serve` publishes a query to a queue
// group of `hedgerow aggregate` replicas; the one NATS picks answers on the request's reply
// subject with a stream of small messages, each a one-byte tag and a body:
//
//   a  accepted  {replica}             at once: the query reached a live replica
//   r  running                         every second while it waits or runs (liveness)
//   b  behind    {replica, position}   it has not loaded `atLeast` within `waitMs`: ask another
//   p  part      raw bytes             a piece of the response's JSON (max_payload bounds a message)
//   d  done      {replica, position}   the parts, in order, are the whole response
//   f  failed    {message, attr, invalid, cancelled}
//   g  gone                            the replica is shutting down: ask another
//
// Messages of one publisher reach one subscriber in order, so the parts arrive before
// `done`. A caller that hears nothing for a while takes the replica for dead and asks
// again; a cancel goes to every replica (the one running the query stops it).
import type { QueryResponse, RunContext } from './run.js';

export const QUERY_SUBJECT = 'hedgerow.insights.query';
export const QUERY_QUEUE = 'hedgerow-aggregate';
export const CANCEL_SUBJECT = 'hedgerow.insights.cancel';
/** Each replica's loaded position, published every few seconds (metrics of the serve nodes). */
export const STATUS_SUBJECT = 'hedgerow.insights.replicas';

/** How often a replica says it is still at work on a query, and publishes its status. */
export const KEEPALIVE_MS = 1000;
export const STATUS_INTERVAL_MS = 2000;

export interface NatsQueryRequest {
  id: string;
  query: unknown;
  run: RunContext;
  /** The log position the answer must reflect. */
  atLeast: number;
  /** How long the replica may wait to load that far before it answers `behind`. */
  waitMs: number;
}

export interface ReplicaStatus {
  replica: string;
  /** The log position its columnar store has loaded. */
  position: number;
  /** The stream's last sequence when it looked. */
  lastSeq: number;
}

export interface FailedBody { message: string; attr: string | null; invalid: boolean; cancelled: boolean }

export type ReplicaMessage =
  | { type: 'accepted'; replica: string }
  | { type: 'running' }
  | { type: 'behind'; replica: string; position: number }
  | { type: 'part'; data: Uint8Array }
  | { type: 'done'; replica: string; position: number }
  | { type: 'failed'; failure: FailedBody }
  | { type: 'gone' };

const TAGS = { accepted: 0x61, running: 0x72, behind: 0x62, part: 0x70, done: 0x64, failed: 0x66, gone: 0x67 } as const;
const BY_TAG = new Map<number, keyof typeof TAGS>(Object.entries(TAGS).map(([k, v]) => [v, k as keyof typeof TAGS]));

function tagged(tag: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 1);
  out[0] = tag;
  out.set(body, 1);
  return out;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

export function encodeReplicaMessage(m: ReplicaMessage): Uint8Array {
  switch (m.type) {
    case 'accepted': return tagged(TAGS.accepted, json({ replica: m.replica }));
    case 'behind': return tagged(TAGS.behind, json({ replica: m.replica, position: m.position }));
    case 'done': return tagged(TAGS.done, json({ replica: m.replica, position: m.position }));
    case 'failed': return tagged(TAGS.failed, json(m.failure));
    case 'part': return tagged(TAGS.part, m.data);
    case 'running': return tagged(TAGS.running, new Uint8Array(0));
    case 'gone': return tagged(TAGS.gone, new Uint8Array(0));
  }
}

/** null for a message this version does not know. */
export function decodeReplicaMessage(data: Uint8Array): ReplicaMessage | null {
  const type = data.length > 0 ? BY_TAG.get(data[0]) : undefined;
  if (type === undefined) return null;
  const body = data.subarray(1);
  const parsed = () => JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  switch (type) {
    case 'accepted': return { type, replica: String(parsed().replica) };
    case 'behind': { const b = parsed(); return { type, replica: String(b.replica), position: Number(b.position) }; }
    case 'done': { const b = parsed(); return { type, replica: String(b.replica), position: Number(b.position) }; }
    case 'failed': return { type, failure: parsed() as FailedBody };
    case 'part': return { type, data: body };
    case 'running': return { type };
    case 'gone': return { type };
  }
}

/** The response's JSON in pieces of at most `maxBytes`. */
export function responseParts(response: QueryResponse, maxBytes: number): Uint8Array[] {
  const bytes = json(response);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += maxBytes) parts.push(bytes.subarray(at, at + maxBytes));
  if (parts.length === 0) parts.push(bytes);
  return parts;
}

export function joinParts(parts: readonly Uint8Array[]): QueryResponse {
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as QueryResponse;
}
