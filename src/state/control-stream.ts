// The JetStream stream behind the NATS write path (docs/decisions/0031): the one ordered
// history of management commands. Unlike the event stream it is never aged out: a node
// that joins later, or starts from an empty data dir, builds its management state from a
// snapshot and the commands after it, or from the first command. Only the snapshot taker
// cuts it, up to the oldest snapshot kept (docs/decisions/0033). Its settings are a row of
// the cluster's asset table (src/cluster/assets.ts); an existing stream (say one an operator
// made with R3) is used as it is.
import type { StreamInfo } from 'nats';
import { CONTROL_STREAM, controlSubject } from '../cluster/index.js';

export { CONTROL_STREAM, controlSubject };

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
