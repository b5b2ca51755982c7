// The worker side of a pool: a worker module's default export is serveTasks(handlers)
// for the pool's task map. A handler takes one input, or a whole batch when it keeps
// state across the batch (the flag evaluator reads each project's definitions version
// once per batch); an error thrown for one input fails that request alone.
import { Piscina, workerData } from 'piscina';
import type { BatchOutcome, FailedItem, InputOf, Kind, OutputOf, TaskMap, TaskMessage } from './tasks.js';
import { countLoaded, LOADED_COUNTER } from './loading.js';
import { collectWhenIdle } from '../memory/index.js';

export type EachHandler<I, O> = (input: I) => O | Promise<O>;

export interface BatchHandler<I, O> {
  batch(inputs: readonly I[]): BatchOutcome<O> | Promise<BatchOutcome<O>>;
}

export type TaskHandlers<T extends TaskMap<T>> = {
  [K in Kind<T>]: EachHandler<InputOf<T, K>, OutputOf<T, K>> | BatchHandler<InputOf<T, K>, OutputOf<T, K>>;
};

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

// Runs `run` on each input; a throw fails that input only.
export function settleEach<I, O>(inputs: readonly I[], run: (input: I) => O): BatchOutcome<O> {
  const outputs = new Array<O>(inputs.length);
  let failed: FailedItem[] | null = null;
  for (let i = 0; i < inputs.length; i++) {
    try {
      outputs[i] = run(inputs[i]);
    } catch (err) {
      (failed ??= []).push({ index: i, error: messageOf(err) });
    }
  }
  return { outputs, failed };
}

async function settleEachAsync<I, O>(inputs: readonly I[], run: EachHandler<I, O>): Promise<BatchOutcome<O>> {
  const outputs = new Array<O>(inputs.length);
  let failed: FailedItem[] | null = null;
  for (let i = 0; i < inputs.length; i++) {
    try {
      outputs[i] = await run(inputs[i]);
    } catch (err) {
      (failed ??= []).push({ index: i, error: messageOf(err) });
    }
  }
  return { outputs, failed };
}

export interface ServeOptions {
  // Runs before each message is handled. Workers that read LMDB end their read snapshot
  // here (store.root.resetReadTxn): lmdb-js ends it only from a timer, and a message taken
  // in the same event-loop turn as the one before would read the store as it was then,
  // missing a write the caller has already been answered for.
  beforeEach?: () => void;
  // ArrayBuffers of an output to move to the calling thread instead of copying them.
  transfer?: (output: unknown) => ArrayBuffer[];
}

// Piscina moves the buffers a result names under its transferable symbol.
function moving(outcome: BatchOutcome<unknown>, transfer: (output: unknown) => ArrayBuffer[]): BatchOutcome<unknown> {
  const buffers = outcome.outputs.flatMap((o) => (o === undefined ? [] : transfer(o)));
  if (buffers.length === 0) return outcome;
  return Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: outcome } as never) as unknown as BatchOutcome<unknown>;
}

// A worker module's default export; called once the module has run, which is when the
// pool may terminate the thread (./loading.ts).
export function serveTasks<T extends TaskMap<T>>(handlers: TaskHandlers<T>, opts: ServeOptions = {}): (message: TaskMessage) => Promise<BatchOutcome<unknown>> {
  countLoaded((workerData as Record<string, Int32Array | undefined> | undefined)?.[LOADED_COUNTER]);
  collectWhenIdle();
  const byKind = new Map<string, EachHandler<unknown, unknown> | BatchHandler<unknown, unknown>>(Object.entries(handlers));
  const { beforeEach, transfer } = opts;
  return async (message) => {
    const handler = byKind.get(message.kind);
    if (!handler) throw new Error(`this worker serves no task of kind "${message.kind}"`);
    beforeEach?.();
    const outcome = await (typeof handler === 'function' ? settleEachAsync(message.inputs, handler) : handler.batch(message.inputs));
    return transfer === undefined ? outcome : moving(outcome, transfer);
  };
}
