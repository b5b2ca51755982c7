// How a CLI command opens a data dir: the store, and over it the write path the service
// would use, embedded (./local.ts) or, with NATS, the control stream (./nats.ts). The
// service hands the commands an opener (it knows every domain's tables and the NATS
// settings), so a `hedgerow key create` on a node of a cluster reaches every node.
import type { AnyCommandSpec } from './commands.js';
import type { StateWrites } from './writes.js';

export interface OpenedDataDir<T> {
  store: T;
  writes: StateWrites;
  close(): Promise<void>;
}

// `specs`: the commands the CLI command submits, which the embedded write path registers
// (the control stream's applies every command of the service).
export type DataDirOpener<T> = (dataDir: string, specs: readonly AnyCommandSpec<T>[]) => Promise<OpenedDataDir<T>>;
