// A management write as a command: plain data (msgpack-encodable: it may travel a control
// stream that every node applies in order, docs/decisions/0015), a kind naming its
// applier, and a payload. The applier is deterministic: it runs inside one LMDB write
// transaction and reads nothing but the payload and the store, so every node that applies
// the same commands in the same order holds the same state. Whatever comes from the clock
// or a random source (uuids, tokens, timestamps, key hashes) is chosen before submission,
// by the node taking the request, and carried in the payload; numeric sequences (flag ids,
// project ids) are assigned by the applier from the store.

export interface Command {
  kind: string;
  payload: unknown;
}

// T: the tables it applies to (its domain's slice of the store; never: whichever).
export interface CommandSpec<P, R, T = never> {
  // Unique across the service: the applier is looked up by it.
  readonly kind: string;
  // Inside the write transaction. A throw leaves nothing of the command written; the
  // submitter gets the error (on every node the same).
  readonly apply: (tables: T, payload: P) => R;
}

// Any command spec over tables T, for a registry of them (payloads differ per kind).
export type AnyCommandSpec<T = never> = CommandSpec<never, unknown, T>;

// How a domain defines its commands, typed with the tables they apply to:
// `const defineCommand = commandsOn<QuotaTables>();` then `defineCommand(kind, apply)`.
export function commandsOn<T>() {
  return <P, R>(kind: string, apply: (tables: T, payload: P) => R): CommandSpec<P, R, T> => ({ kind, apply });
}
