// The embedded write path: each command applied by its registered applier in an LMDB
// write transaction of its own on this node. lmdb-js runs the applier on this thread while
// its write thread holds the write lock, so the HTTP thread never waits for a consumer's
// long transaction or the disk; a submission resolves once the commit is flushed (durable),
// and everything submitted in one event-loop turn shares the commit. The applier runs in a
// child transaction: when it throws, what it wrote is rolled back.
import type { LogTables } from '../log/tables.js';
import type { AnyCommandSpec, Command, CommandSpec } from './commands.js';
import type { AppliedListener, StateWrites } from './writes.js';

// What applying one command of a sequence came to: the applier's result or its error
// (nothing of the command written, the sequence recorded all the same), or `skipped` when
// the store had already applied that sequence.
export type SequencedOutcome = { status: 'ok'; value: unknown } | { status: 'error'; error: unknown } | { status: 'skipped' };

// Applies commands given as plain data, by kind: what a control-stream follower does with
// each command it reads (and, through submit, this node with its own).
export interface CommandApplier {
  apply(command: Command): Promise<unknown>;
  // Applies the command at position `seq` of a sequence whose applied position the store
  // keeps under positions[`key`], writing the position in the same transaction as the
  // command: exactly once, whoever else applies the same sequence to this store (another
  // process on the data dir, a restart). Throws ControlGapError, writing nothing, when the
  // store stands neither at `seq - 1` nor past `seq`.
  applyAt(command: Command, key: string, seq: number): Promise<SequencedOutcome>;
  // Whether `spec` is the applier registered for its kind.
  has(spec: AnyCommandSpec): boolean;
  // Whether an applier is registered for `kind`.
  knows(kind: string): boolean;
}

export class UnknownCommandError extends Error {}
export class ControlGapError extends Error {}

// `store`: the tables the commands apply to, and the positions a sequence's is kept in.
export function createCommandApplier<T>(store: T & LogTables, specs: readonly AnyCommandSpec<T>[]): CommandApplier {
  const byKind = new Map<string, AnyCommandSpec<T>>();
  for (const spec of specs) {
    if (byKind.has(spec.kind)) throw new Error(`two commands of kind ${spec.kind}`);
    byKind.set(spec.kind, spec);
  }
  const specOf = (command: Command): AnyCommandSpec<T> => {
    const spec = byKind.get(command.kind);
    if (!spec) throw new UnknownCommandError(`no applier is registered for command ${command.kind}`);
    return spec;
  };
  return {
    has: (spec) => byKind.get(spec.kind) === spec,
    knows: (kind) => byKind.has(kind),
    async apply(command) {
      const spec = specOf(command);
      // The payload's type is the spec's: the kind says so (a decoded command carries no types).
      const result = await store.root.transaction(() => store.root.childTransaction(() => spec.apply(store, command.payload as never)));
      await store.root.flushed;
      return result;
    },
    async applyAt(command, key, seq) {
      const spec = specOf(command);
      const outcome = await store.root.transaction((): SequencedOutcome => {
        const at = store.positions.get(key) ?? 0;
        if (at >= seq) return { status: 'skipped' };
        if (at !== seq - 1) throw new ControlGapError(`${key}: at ${at}, cannot apply ${seq}`);
        let result: SequencedOutcome;
        try {
          result = { status: 'ok', value: store.root.childTransaction(() => spec.apply(store, command.payload as never)) };
        } catch (error) {
          // The child transaction is rolled back; the command still takes its place in the sequence.
          result = { status: 'error', error };
        }
        store.positions.put(key, seq);
        return result;
      });
      await store.root.flushed;
      return outcome;
    },
  };
}

export interface LocalWrites extends StateWrites, CommandApplier {}

export function createLocalWrites<T>(store: T & LogTables, specs: readonly AnyCommandSpec<T>[]): LocalWrites {
  const applier = createCommandApplier(store, specs);
  const listeners: AppliedListener[] = [];
  return {
    ...applier,
    async submit<P, R>(spec: CommandSpec<P, R>, payload: P): Promise<R> {
      if (!applier.has(spec)) throw new UnknownCommandError(`command ${spec.kind} is not registered here`);
      try {
        // Applied by `spec` itself (checked above), so the result is its R.
        return (await applier.apply({ kind: spec.kind, payload })) as R;
      } finally {
        for (const listener of listeners) listener(spec.kind, 'here');
      }
    },
    onApplied(listener) {
      listeners.push(listener);
    },
  };
}
