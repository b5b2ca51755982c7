// The embedded write path: each command applied by its registered applier in an LMDB
// write transaction of its own on this node. lmdb-js runs the applier on this thread while
// its write thread holds the write lock, so the HTTP thread never waits for a consumer's
// long transaction or the disk; a submission resolves once the commit is flushed (durable),
// and everything submitted in one event-loop turn shares the commit. The applier runs in a
// child transaction: when it throws, what it wrote is rolled back.
import type { Store } from '../store/env.js';
import type { AnyCommandSpec, Command, CommandSpec } from './commands.js';
import type { StateWrites } from './writes.js';

// Applies commands given as plain data, by kind: what a control-stream follower does with
// each command it reads (and, through submit, this node with its own).
export interface CommandApplier {
  apply(command: Command): Promise<unknown>;
  // Whether `spec` is the applier registered for its kind.
  has(spec: AnyCommandSpec): boolean;
}

export class UnknownCommandError extends Error {}

export function createCommandApplier(store: Store, specs: readonly AnyCommandSpec[]): CommandApplier {
  const byKind = new Map<string, AnyCommandSpec>();
  for (const spec of specs) {
    if (byKind.has(spec.kind)) throw new Error(`two commands of kind ${spec.kind}`);
    byKind.set(spec.kind, spec);
  }
  return {
    has: (spec) => byKind.get(spec.kind) === spec,
    async apply(command) {
      const spec = byKind.get(command.kind);
      if (!spec) throw new UnknownCommandError(`no applier is registered for command ${command.kind}`);
      // The payload's type is the spec's: the kind says so (a decoded command carries no types).
      const result = await store.root.transaction(() => store.root.childTransaction(() => spec.apply(store, command.payload as never)));
      await store.root.flushed;
      return result;
    },
  };
}

export interface LocalWrites extends StateWrites, CommandApplier {}

export function createLocalWrites(store: Store, specs: readonly AnyCommandSpec[]): LocalWrites {
  const applier = createCommandApplier(store, specs);
  return {
    ...applier,
    async submit<P, R>(spec: CommandSpec<P, R>, payload: P): Promise<R> {
      if (!applier.has(spec)) throw new UnknownCommandError(`command ${spec.kind} is not registered here`);
      // Applied by `spec` itself (checked above), so the result is its R.
      return (await applier.apply({ kind: spec.kind, payload })) as R;
    },
  };
}
