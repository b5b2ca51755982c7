// The pipeline's two steps in a Hog worker (docs/decisions/0040):
// - start: a chunk of events prepared (./prepare.ts) and each invocation's program run up
//   to its first fetch (or its end) in the same task, so a delivery costs one round trip
//   to the pool before its request and one after the answer. A function with masking is
//   not run here: most of its invocations are masked, which the consumer decides after.
// - continue: one invocation run from its start, or resumed with its fetch's answer.
// A program suspended at a fetch stays here, by token, with its globals (and so do the
// globals of an invocation not run here): the continue step resumes (or starts) it without
// the state and the globals being copied to the consumer and back (for a webhook sending
// the whole event they were most of a delivery's cost). The consumer
// sends continue steps to the worker that holds the token (./hog-pools.ts). What it holds
// for a crash, and for a worker that lost the program (restarted, or past MAX_SUSPENDED),
// is the event's invocations' globals packed once per event (./bytes.ts); a program lost
// here after its first fetch answered is replayed from its start with that answer, its
// fetch not made again. After a second fetch the state is handed out too: the consumer
// stores it before the request (docs/decisions/0021).
import { threadId } from 'node:worker_threads';
import { fetchRequest } from '../fetch/fetch-rules.js';
import { pack, unpack } from './bytes.js';
import { invocationGlobals, type EventContext } from './globals.js';
import { preparedEvent, prepareOne } from './prepare.js';
import type { RunnableFunction } from './runnable.js';
import { HOG_TIMEOUT_MS, runInvocationSlice, type RunOutcome } from './run-slice.js';
import { withoutShared, withShared, type SharedRef } from './shared-globals.js';

export interface StartTask {
  functions: RunnableFunction[];
  // Each event with the indexes (into `functions`) of the functions to try on it, in
  // execution order. The consumer sends its context packed (./bytes.ts): those bytes are
  // also what its invocations' queue entries keep, so the event is serialized once.
  events: { uuid: string; ctx: Uint8Array | EventContext; functions: number[] }[];
  // Per function (index into `functions`): whether to run its programs here. The consumer
  // leaves out functions whose invocations will wait in the store.
  start: boolean[];
  // Tokens of invocations the consumer did not queue (masked, or queued already): dropped.
  forget: string[];
}

// `${function id} ${mapping index}` → what is an invocation's own in its globals.
type OwnGlobals = Record<string, { source: unknown; inputs: unknown }>;

// The globals of an event's invocations as entries queued before the event's context was
// packed in the consumer kept them: what they share, packed together with what is each one's.
interface EventPackBefore {
  base: Record<string, unknown>;
  own: OwnGlobals;
}

// The globals of an event's invocations, packed: a tag byte (V8's packs start with 0xFF),
// the length of the event context's pack (u32, little-endian), that pack (the consumer's
// bytes, as they came), then the pack of each invocation's own part. The shared globals are
// rebuilt from the context (invocationGlobals) when a worker that lost a program reads them.
// Tag PARTS: the own parts packed whole. Tag PARTS_SHARED: packed without the shared
// globals their inputs hold by reference, with the paths to them (./shared-globals.ts).
const PARTS = 1;
const PARTS_SHARED = 2;

/**
 * `ctx`: the event context's pack; `own`: each invocation's source and inputs; `globals`:
 * the shared globals those were made from (invocationGlobals of the context), whose values
 * the inputs may hold by reference.
 */
export function eventPack(ctx: Uint8Array, own: OwnGlobals, globals: Record<string, unknown>): Uint8Array {
  const split = withoutShared(own, globals);
  const mine = split === null ? pack(own) : pack(split);
  const out = new Uint8Array(5 + ctx.length + mine.length);
  out[0] = split === null ? PARTS : PARTS_SHARED;
  new DataView(out.buffer).setUint32(1, ctx.length, true);
  out.set(ctx, 5);
  out.set(mine, 5 + ctx.length);
  return out;
}

function readEventPack(bytes: Uint8Array): EventPackBefore {
  if (bytes[0] !== PARTS && bytes[0] !== PARTS_SHARED) return unpack<EventPackBefore>(bytes);
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1, true);
  const base = invocationGlobals(unpack<EventContext>(bytes.subarray(5, 5 + length)));
  const rest = bytes.subarray(5 + length);
  if (bytes[0] === PARTS) return { base, own: unpack<OwnGlobals>(rest) };
  const { skeleton, refs } = unpack<{ skeleton: unknown; refs: SharedRef[] }>(rest);
  return { base, own: withShared(skeleton, refs, base) as OwnGlobals };
}

export type StartOutcome =
  | { fn: number; ev: number; kind: 'filtered' }
  | { fn: number; ev: number; kind: 'filtering_failed' | 'inputs_failed'; message: string }
  // `slice`: the program's first slice, or null when it was not run here; `token`: where
  // this worker keeps its program, or its globals when it was not run.
  | { fn: number; ev: number; kind: 'invocation'; mappingIndex: number; maskKey: string | null; slice: StepOutcome | null; token: string | null };

export interface StartResult {
  outcomes: StartOutcome[];
  // Per event (as in the task): its invocations' globals, packed (null when it made none).
  packs: (Uint8Array | null)[];
}

// A slice as the pipeline takes it: its fetch made into the request, the program kept here
// under `token`; `state` (bytes) only when the consumer must store it.
export interface StepOutcome extends Omit<RunOutcome, 'fetch'> {
  fetch: { url: string; options: { method: string; headers: Record<string, string>; body: string | null }; state: unknown; token: string | null } | null;
}

export interface ContinueTask {
  // Where the worker that ran its last slice keeps the program, or the invocation's globals
  // (null: nowhere).
  token: string | null;
  // The function's program: run from its start, or replayed. Null when the worker keeps the
  // program under the token (the consumer sends only what the worker lacks).
  bytecode: unknown[] | null;
  // The program as stored after a second fetch (bytes, or an object), else null.
  state: unknown;
  // The answer to its fetch, or null to run from the start.
  response: { status: number; body: unknown } | null;
  // The event's pack (bytes), or this invocation's globals as an object; null when the
  // worker keeps them under the token. A worker that turns out not to keep what was left
  // out answers null, and the consumer sends the step again whole.
  globals: Uint8Array | Record<string, unknown> | null;
  functionId: string;
  mappingIndex: number;
  secretKeys: string[];
  // How many log lines earlier slices of this invocation kept.
  logsSoFar: number;
  // How many events earlier slices of this invocation captured (postHogCapture).
  capturedSoFar?: number;
}

// Programs kept per worker: beyond this the oldest are dropped (their continue replays).
export const MAX_SUSPENDED = 4096;

export const ownKey = (functionId: string, mappingIndex: number) => `${functionId} ${mappingIndex}`;

export function globalsOf(globals: NonNullable<ContinueTask['globals']>, functionId: string, mappingIndex: number): Record<string, unknown> {
  if (!(globals instanceof Uint8Array)) return globals;
  const { base, own } = readEventPack(globals);
  const mine = own[ownKey(functionId, mappingIndex)];
  return { ...base, source: mine?.source, inputs: mine?.inputs };
}

// A webhook's shape, compiled: `let res := fetch(inputs.url, {'method': 'POST', 'headers':
// {'Content-Type': 'application/json'}, 'body': {'event': event.event, 'n':
// event.properties.n}}); if (res.status >= 300) { throw Error(f'failed with {res.status}') };
// if (inputs.debug) { print('Response', res.status, res.body) }`. A worker runs it to its
// end before its first task: the VM's code is compiled on its first program, which on a
// busy machine took longer than the 100 ms that program then had (deliveries of the first
// events failed, timed out after 22 operations).
const WARM_UP = [
  '_H', 1, 32, 'url', 32, 'inputs', 1, 2, 32, 'method', 32, 'POST', 32, 'headers', 32, 'Content-Type', 32, 'application/json', 42, 1,
  32, 'body', 32, 'event', 32, 'event', 32, 'event', 1, 2, 32, 'n', 32, 'n', 32, 'properties', 32, 'event', 1, 3, 42, 2, 42, 3, 2,
  'fetch', 2, 33, 300, 36, 0, 32, 'status', 45, 14, 40, 14, 32, 'failed with ', 36, 0, 32, 'status', 45, 2, 'concat', 2, 2,
  'Error', 1, 49, 32, 'debug', 32, 'inputs', 1, 2, 40, 16, 32, 'Response', 36, 0, 32, 'status', 45, 36, 0, 32, 'body', 45, 2,
  'print', 3, 35, 35,
];

function warmUp(): void {
  const globals = { event: { event: 'warm up', properties: { n: 1 } }, inputs: { url: 'https://example.com', debug: true } };
  const task = { bytecode: WARM_UP, globals, secretKeys: [], logsSoFar: 0 };
  const first = runInvocationSlice({ ...task, state: null, response: null });
  if (first.fetch !== null) runInvocationSlice({ ...task, bytecode: null, state: first.fetch.state, response: { status: 200, body: { ok: true } } });
}

export interface Steps {
  start(task: StartTask): Promise<StartResult>;
  // Null: the token is not kept here and the task left out what it names.
  continue(task: ContinueTask): StepOutcome | null;
  // Programs kept (tests).
  kept(): number;
}

// timeoutMs: a program's synchronous time over its whole run; a test about something else
// gives more, so that a loaded machine pausing the thread does not fail an invocation.
export function createSteps(workerIndex: number, timeoutMs = HOG_TIMEOUT_MS): Steps {
  warmUp();
  const kept = new Map<string, { state: unknown; globals: Record<string, unknown> }>();
  // A token names the worker's place (./hog-pools.ts routes by it) and this thread: a worker
  // that replaces one stopped in its place must not answer to the tokens the consumer still
  // holds from the one before (it would resume another event's program).
  const prefix = `${workerIndex}:${threadId}:`;
  let next = 0;

  function keep(state: unknown, globals: Record<string, unknown>): string {
    const token = prefix + next++;
    kept.set(token, { state, globals });
    if (kept.size > MAX_SUSPENDED) kept.delete(kept.keys().next().value!);
    return token;
  }

  // The slice as the pipeline takes it; a program suspended at a fetch is kept.
  function out(slice: RunOutcome, globals: Record<string, unknown>, resumed: boolean): StepOutcome {
    if (slice.fetch === null) return { ...slice, fetch: null };
    const request = fetchRequest(slice.fetch.url, slice.fetch.options);
    const token = keep(slice.fetch.state, globals);
    return {
      ...slice,
      fetch: {
        url: request.url, options: { method: request.method, headers: request.headers, body: request.body },
        state: resumed ? pack(slice.fetch.state) : null, token,
      },
    };
  }

  return {
    async start(task) {
      for (const token of task.forget) kept.delete(token);
      const outcomes: StartOutcome[] = [];
      const packs: (Uint8Array | null)[] = [];
      for (const [ev, { ctx: sent, functions }] of task.events.entries()) {
        const ctx = sent instanceof Uint8Array ? unpack<EventContext>(sent) : sent;
        const event = preparedEvent(ctx);
        const own: OwnGlobals = {};
        let any = false;
        for (const fn of functions) {
          const run = task.functions[fn];
          await prepareOne(run, event, (found) => {
            if (found.kind !== 'invocation') {
              outcomes.push({ fn, ev, ...found });
              return;
            }
            any = true;
            own[ownKey(run.id, found.mappingIndex)] = { source: found.globals.source, inputs: found.globals.inputs };
            if (!task.start[fn] || run.masking !== null) {
              const token = keep(null, found.globals);
              outcomes.push({ fn, ev, kind: 'invocation', mappingIndex: found.mappingIndex, maskKey: found.maskKey, slice: null, token });
              return;
            }
            const slice = out(runInvocationSlice({
              bytecode: run.bytecode, state: null, response: null, globals: found.globals, secretKeys: run.secretKeys, logsSoFar: 0,
            }, timeoutMs), found.globals, false);
            outcomes.push({ fn, ev, kind: 'invocation', mappingIndex: found.mappingIndex, maskKey: found.maskKey, slice, token: slice.fetch?.token ?? null });
          });
        }
        packs.push(any ? eventPack(sent instanceof Uint8Array ? sent : pack(ctx), own, event.base) : null);
      }
      return { outcomes, packs };
    },

    continue(task) {
      const held = task.token === null ? undefined : kept.get(task.token);
      if (held === undefined ? task.globals === null : held.state === null && task.bytecode === null) return null;
      if (held !== undefined) kept.delete(task.token!);
      const globals = held?.globals ?? globalsOf(task.globals!, task.functionId, task.mappingIndex);
      const base = { bytecode: task.bytecode, globals, secretKeys: task.secretKeys };
      let state = held?.state ?? (task.state === null ? null : unpack(task.state));
      if (state === null && task.response !== null) {
        // The program was lost here after its fetch was made: replayed up to that fetch (its
        // lines were kept the first time), then resumed with the answer.
        // What it captured the first time was captured then.
        const replay = runInvocationSlice({ ...base, state: null, response: null, logsSoFar: 0 }, timeoutMs);
        if (replay.fetch === null) return out({ ...replay, logs: [], timings: [], captured: [] }, globals, false);
        state = replay.fetch.state;
      }
      const slice = runInvocationSlice({
        ...base, bytecode: state === null ? task.bytecode : null, state, response: task.response, logsSoFar: task.logsSoFar, capturedSoFar: task.capturedSoFar,
      }, timeoutMs);
      return out(slice, globals, task.response !== null);
    },

    kept: () => kept.size,
  };
}
