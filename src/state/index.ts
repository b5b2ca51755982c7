// Public face of the management write path (docs/decisions/0015).
export { commandsOn, type AnyCommandSpec, type Command, type CommandSpec } from './commands.js';
export type { AppliedListener, CommandOrigin, StateWrites } from './writes.js';
export {
  createCommandApplier, createLocalWrites, ControlGapError, UnknownCommandError, type CommandApplier, type LocalWrites, type SequencedOutcome,
} from './local.js';
// The NATS path (./nats.ts) is imported from its module, so the domains' appliers, loaded in
// worker threads, do not load the NATS client.
export { AppliedElsewhereError, ControlBehindError, ControlUnavailableError, ForeignStateError } from './errors.js';
export type { DataDirOpener, OpenedDataDir } from './open.js';
