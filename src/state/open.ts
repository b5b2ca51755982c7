// How a process opens the write path over a data dir: embedded (./local.ts) or, with
// NATS, the control stream (./nats.ts). The service wires one for `serve` and hands one to
// the CLI commands, so a `hedgerow key create` on a node of a cluster reaches every node.
import type { Store } from '../store/env.js';
import type { StateWrites } from './writes.js';

export interface OpenedWrites {
  writes: StateWrites;
  close(): Promise<void>;
}

export type WritesOpener = (store: Store) => Promise<OpenedWrites>;
