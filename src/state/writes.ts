// The one write path for management state (docs/decisions/0015). Domains submit commands
// (./commands.ts) and get their applier's result back; they never write the management
// databases themselves. Embedded: ./local.ts, an LMDB transaction on this node. With
// NATS (regional ingest nodes): a control stream every node applies in order, the same
// appliers on each; the submitter's promise resolves once its own node has applied it.
import type { CommandSpec } from './commands.js';

export interface StateWrites {
  // Resolves with the applier's result once the command is durable and applied on this
  // node, so a read after it sees the write (read-your-writes); rejects with the applier's
  // error, nothing written. Commands are applied in the order they were submitted.
  submit<P, R>(spec: CommandSpec<P, R>, payload: P): Promise<R>;
}
