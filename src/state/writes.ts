// The one write path for management state (docs/decisions/0015). Domains submit commands
// (./commands.ts) and get their applier's result back; they never write the management
// databases themselves. Embedded: ./local.ts, an LMDB transaction on this node. With
// NATS (regional ingest nodes): ./nats.ts, a control stream every node applies in order,
// the same appliers on each; the submitter's promise resolves once its own node has
// applied it (docs/decisions/0031).
import type { CommandSpec } from './commands.js';

// Whose submission a command applied on this node was: this node's (or this process's) own,
// or another node's, which reached this one through the control stream.
export type CommandOrigin = 'here' | 'elsewhere';
export type AppliedListener = (kind: string, origin: CommandOrigin) => void;

export interface StateWrites {
  // Resolves with the applier's result once the command is durable and applied on this
  // node, so a read after it sees the write (read-your-writes); rejects with the applier's
  // error, nothing written. Commands are applied in the order they were submitted.
  submit<P, R>(spec: CommandSpec<P, R>, payload: P): Promise<R>;
  // Calls `listener` after each command is applied on this node (committed, before its
  // submitter's promise resolves), whoever submitted it: caches in front of management
  // state invalidate here, so a write made on another node reaches them too.
  onApplied(listener: AppliedListener): void;
}
