// Public face of the management write path (docs/decisions/0015).
export { defineCommand, type AnyCommandSpec, type Command, type CommandSpec } from './commands.js';
export type { StateWrites } from './writes.js';
export { createCommandApplier, createLocalWrites, UnknownCommandError, type CommandApplier, type LocalWrites } from './local.js';
