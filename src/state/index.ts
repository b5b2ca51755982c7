// Public face of the management write path (docs/decisions/0015).
export { defineCommand, type AnyCommandSpec, type Command, type CommandSpec } from './commands.js';
export type { AppliedListener, CommandOrigin, StateWrites } from './writes.js';
export {
  createCommandApplier, createLocalWrites, ControlGapError, UnknownCommandError, type CommandApplier, type LocalWrites, type SequencedOutcome,
} from './local.js';
export { createNatsWrites, AppliedElsewhereError, ControlUnavailableError, ForeignStateError, type NatsWrites, type NatsWritesOptions } from './nats.js';
export type { OpenedWrites, WritesOpener } from './open.js';
