// The write path as a control stream would run it (docs/decisions/0015), in one process:
// every submitted command is encoded with msgpack into one ordered list, and every node
// decodes and applies the list in order with the production applier (src/state/local.ts
// createCommandApplier). A submission resolves with the first node's result once that
// node has applied it. The contract suite runs against it beside the embedded path, and
// the replication test uses two nodes to show the appliers deterministic.
import { decode, encode } from '@msgpack/msgpack';
import type { Store } from '../../src/tables.js';
import {
  createCommandApplier, UnknownCommandError, type AnyCommandSpec, type AppliedListener, type Command, type CommandApplier, type CommandSpec, type StateWrites,
} from '../../src/state/index.js';

interface Node {
  applier: CommandApplier;
  applied: number;
  // The chain of this node's applications, in stream order.
  tail: Promise<unknown>;
}

export interface ReplicatedWrites extends StateWrites {
  // The commands as they travelled, encoded.
  readonly stream: readonly Uint8Array[];
  // Resolves once every node has applied the whole stream.
  settled(): Promise<void>;
}

export function createReplicatedWrites(stores: readonly Store[], specs: readonly AnyCommandSpec<Store>[]): ReplicatedWrites {
  const stream: Uint8Array[] = [];
  const nodes: Node[] = stores.map((store) => ({ applier: createCommandApplier(store, specs), applied: 0, tail: Promise.resolve() }));
  const listeners: AppliedListener[] = [];
  return {
    stream,
    onApplied(listener) {
      listeners.push(listener);
    },
    async submit<P, R>(spec: CommandSpec<P, R>, payload: P): Promise<R> {
      if (!nodes[0].applier.has(spec)) throw new UnknownCommandError(`command ${spec.kind} is not registered here`);
      const bytes = encode({ kind: spec.kind, payload }, { ignoreUndefined: true });
      stream.push(bytes);
      const results = nodes.map((node) => {
        const applied = node.tail.then(() => node.applier.apply(decode(bytes) as Command));
        node.tail = applied.catch(() => undefined).then(() => { node.applied++; });
        return applied;
      });
      for (const other of results.slice(1)) other.catch(() => undefined);
      try {
        return (await results[0]) as R;
      } finally {
        for (const listener of listeners) listener(spec.kind, 'here');
      }
    },
    async settled() {
      await Promise.all(nodes.map((n) => n.tail));
    },
  };
}
