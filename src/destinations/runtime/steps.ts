// The pipeline's two steps in a Hog worker (docs/decisions/0035):
// - start: a chunk of events prepared (./prepare.ts) and each invocation's program run up
//   to its first fetch (or its end) in the same task, so a delivery costs one round trip
//   to the pool before its request and one after the answer. A function with masking is
//   not run here: most of its invocations are masked, which the consumer decides after.
// - continue: one invocation run from its start or resumed with its fetch's answer.
// An invocation's globals and a suspended program's state leave the worker as bytes
// (./bytes.ts): the consumer stores, holds and sends them back without building them again.
import { fetchRequest } from '../fetch/fetch-rules.js';
import { pack, unpack } from './bytes.js';
import { preparedEvent, prepareOne, type PrepareTask } from './prepare.js';
import { runInvocationSlice, type RunOutcome, type RunTask } from './run-slice.js';

export interface StartTask extends PrepareTask {
  // Per function (index into `functions`): whether to run its programs here. The consumer
  // leaves out functions whose invocations will wait in the store.
  start: boolean[];
}

export type StartOutcome =
  | { fn: number; ev: number; kind: 'filtered' }
  | { fn: number; ev: number; kind: 'filtering_failed' | 'inputs_failed'; message: string }
  | {
    fn: number; ev: number; kind: 'invocation'; mappingIndex: number; maskKey: string | null;
    globals: Uint8Array;
    // The program's first slice, or null when it was not run here.
    slice: RunOutcome | null;
  };

// A slice as the pipeline takes it: its fetch (if any) already made into the request, the
// state as bytes.
function forPipeline(outcome: RunOutcome): RunOutcome {
  if (outcome.fetch === null) return outcome;
  const request = fetchRequest(outcome.fetch.url, outcome.fetch.options);
  const options = { method: request.method, headers: request.headers, body: request.body };
  return { ...outcome, fetch: { url: request.url, options, state: pack(outcome.fetch.state) } };
}

export async function startInvocations(task: StartTask): Promise<StartOutcome[]> {
  const out: StartOutcome[] = [];
  for (const [ev, { ctx, functions }] of task.events.entries()) {
    const event = preparedEvent(ctx);
    for (const fn of functions) {
      const run = task.functions[fn];
      await prepareOne(run, event, (found) => {
        if (found.kind !== 'invocation') {
          out.push({ fn, ev, ...found });
          return;
        }
        const slice = task.start[fn] && run.masking === null
          ? forPipeline(runInvocationSlice({ bytecode: run.bytecode, state: null, response: null, globals: found.globals, secretKeys: run.secretKeys, logsSoFar: 0 }))
          : null;
        out.push({ fn, ev, kind: 'invocation', mappingIndex: found.mappingIndex, maskKey: found.maskKey, globals: pack(found.globals), slice });
      });
    }
  }
  return out;
}

// A run task whose globals and state may be bytes (as the pipeline holds them) or objects
// (invocations queued before they were bytes).
export interface ContinueTask extends Omit<RunTask, 'globals' | 'state'> {
  globals: Uint8Array | Record<string, unknown>;
  state: unknown;
}

export function continueInvocation(task: ContinueTask): RunOutcome {
  const globals = unpack<Record<string, unknown>>(task.globals);
  return forPipeline(runInvocationSlice({ ...task, globals, state: task.state === null ? null : unpack(task.state) }));
}
