// A delivery's Hog steps in the consumer's own thread, where each is provably bounded
// (docs/decisions/0051): filters that run no bytecode (none, an always-true program, or
// the event-name pre-check), inputs that only read globals or are constants, the program's
// first slice and, after its fetch, the rest of it when straight code answers them
// (src/hog/straight-slice.ts: forward-only, at most 10,000 ops, values walked at most 64
// deep), and a masking hash that only reads globals. Anything else — a filter, input or
// masking hash that needs the VM, Liquid, mappings, a slice straight code refuses — returns
// null before any effect and goes to the Hog pool as before, which gives the same answer.
// For a short webhook this takes both pool round trips (the chunk's start step and the
// continue step after the answer) out of a delivery's path: the event is neither copied to
// a worker nor answered back.
import { evaluateInputsDirect, NOT_DIRECT, runStraight, type ExecuteOptions } from '../../hog/index.js';
import type { VMState } from '../../hog/vm.js';
import { fetchRequest } from '../fetch/fetch-rules.js';
import type { StoredFilters } from '../types.js';
import { namedEvents } from './event-names.js';
import { filterGlobals, invocationGlobals, sourceOf, type EventContext } from './globals.js';
import { HOG_MEMORY_LIMIT, HOG_TIMEOUT_MS, MAX_ASYNC_STEPS } from './run-slice.js';
import type { RunnableFunction } from './runnable.js';
import { directMaskKey } from './prepare.js';
import { globalsOf, type StepOutcome } from './steps.js';

// A program suspended at its first fetch in this thread: what resuming it needs.
export interface LocalProgram {
  state: VMState;
  globals: Record<string, unknown>;
  // The event's url, when the globals are the invocation's own part only (else read from them).
  eventUrl?: unknown;
}

// An invocation whose program has not run yet, to run its first slice in this thread once its
// fetch has a slot (./deliveries.ts). While it waits (~150 ms at a short webhook's pace, through
// a few scavenges) it holds its own part of the globals (source and inputs), not its event's:
// the event, person and groups it does not hold die with the chunk that read them. A
// program that reads more of the globals is refused by straight code on these (it reads
// only own globals): it runs on its whole globals read back from its event's pack, and its
// function's invocations hold their whole globals from then on.
export interface DeferredStart {
  run: RunnableFunction;
  globals: Record<string, unknown>;
  // Whether `globals` are the whole invocation globals or only its own part.
  whole: boolean;
  eventUrl: unknown;
}

// Functions whose first slice read more of the globals than their invocations' own part.
const readsShared = new WeakSet<RunnableFunction>();

/** What an invocation of `fn` with these globals holds until its fetch has a slot. */
export function deferredStart(fn: RunnableFunction, globals: Record<string, unknown>): DeferredStart {
  const whole = readsShared.has(fn);
  return { run: fn, globals: whole ? globals : { source: globals.source, inputs: globals.inputs }, whole, eventUrl: eventUrl(globals) };
}

/**
 * The program's first slice, up to its fetch, for an invocation that waited for the fetch's
 * slot; null to leave it to the pool (straight code refused it). `pack`: its event's pack
 * (./steps.ts eventPack), which holds its whole globals.
 */
export function startDeferred(start: DeferredStart, pack: Uint8Array | null): { slice: StepOutcome; program: LocalProgram } | null {
  if (start.whole) return firstSliceInThread(start.run, start.globals);
  const slice = runStraight(start.run.bytecode, start.globals, OPTIONS);
  if (slice !== null && slice.suspended !== null && slice.suspended.name === 'fetch') return suspendedAtFetch(slice, start.globals, start.eventUrl);
  // Perhaps only for want of the event's globals: this one runs on them all, and the
  // function's next invocations hold them all.
  readsShared.add(start.run);
  return pack === null ? null : firstSliceInThread(start.run, globalsOf(pack, start.run.id, -1));
}

export function eventHere(ctx: EventContext): EventHere {
  let base: Record<string, unknown> | null = null;
  let filters: Record<string, unknown> | null = null;
  return { ctx, base: () => (base ??= invocationGlobals(ctx)), filters: () => (filters ??= filterGlobals(ctx)) };
}

export type InThreadStart =
  | { kind: 'filtered' }
  // slice and program: null when the program was not run (its function has no room now, or
  // masks). maskKey: its masking hash (./prepare.ts).
  | { kind: 'invocation'; globals: Record<string, unknown>; maskKey: string | null; slice: StepOutcome | null; program: LocalProgram | null };

// The options a Hog worker runs slices with (./run-slice.ts), as far as straight code reads
// them: fetch declared (a slice suspends at it), postHogCapture a host function (straight
// code refuses its call), the same bounds.
const declaredOnly = () => Promise.reject(new Error('fetch is made by the pipeline, not in the Hog host'));
const neverCalled = () => {
  throw new Error('straight code does not call host functions');
};
const OPTIONS: ExecuteOptions = {
  fetch: declaredOnly, postHogCapture: neverCalled, timeoutMs: HOG_TIMEOUT_MS, maxAsyncSteps: MAX_ASYNC_STEPS, memoryLimit: HOG_MEMORY_LIMIT,
};

// A function whose first slice straight code refused this many times in a row is left to
// the pool (a performance choice only: the pool gives the same answer).
const REFUSALS = 8;
const refusals = new WeakMap<RunnableFunction, number>();

// Whether the function may be tried here at all: what its invocations need beside the
// event is no VM run of mappings.
export function mayRunInThread(fn: RunnableFunction): boolean {
  return (fn.mappings === null || fn.mappings.length === 0) && (refusals.get(fn) ?? 0) < REFUSALS;
}

// The event's url in the globals, as ./run-slice.ts reads it for the completion log.
const eventUrl = (globals: Record<string, unknown>): unknown => ((globals.event ?? {}) as { url?: unknown }).url;

// An event as its functions see it here, its globals built on first use.
export interface EventHere {
  ctx: EventContext;
  // The invocation globals without `source` and `inputs` (invocationGlobals).
  base(): Record<string, unknown>;
  // The filters' globals (filterGlobals).
  filters(): Record<string, unknown>;
}

// Filters run with hogvm's default budget, as ./prepare.ts runs them.
const FILTER_OPTIONS: ExecuteOptions = { timeoutMs: 5_000 };

// The filters' answer (./prepare.ts passes) without the VM: true, false, or null (the VM
// decides: a filter straight code does not answer, or one that fails).
function passesHere(filters: StoredFilters | null, event: EventHere): boolean | null {
  if (filters === null) return true;
  if (namedEvents(filters)?.has(event.ctx.event.event) === false) return false;
  const bytecode = filters.bytecode;
  if (!Array.isArray(bytecode)) return null;
  if (bytecode.length === 3 && bytecode[0] === '_H' && bytecode[2] === 29) return true;
  const report = runStraight({ program: bytecode }, event.filters(), FILTER_OPTIONS);
  return report === null ? null : report.result === true;
}

/**
 * The prepare step and first slice of `fn` on one event, as a Hog worker's start step gives
 * them (./steps.ts, ./prepare.ts), or null to leave the pair to the pool. `run`: whether to
 * run the program (its function has room to hold the invocation). A masked function's
 * program is not run here, as a worker does not run it: most of its invocations are masked,
 * which the consumer decides after (and then runs the first slice of one that passes with
 * firstSliceInThread).
 */
export function startInThread(fn: RunnableFunction, event: EventHere, run: boolean): InThreadStart | null {
  if (!mayRunInThread(fn)) return null;
  const passes = passesHere(fn.filters, event);
  if (passes === null) return null;
  if (!passes) return { kind: 'filtered' };
  const scope = { ...event.base(), source: sourceOf(event.ctx.project.url, fn) };
  const inputs = evaluateInputsDirect(fn.inputs, scope);
  if (inputs === null) return null;
  const globals = { ...scope, inputs };
  const maskKey = directMaskKey(fn, globals);
  if (maskKey === NOT_DIRECT) return null;
  if (!run || fn.masking !== null) return { kind: 'invocation', globals, maskKey, slice: null, program: null };
  const first = firstSliceInThread(fn, globals);
  return first === null ? null : { kind: 'invocation', globals, maskKey, ...first };
}

/**
 * The program's first slice on an invocation's globals, up to its fetch, as a Hog worker's
 * gives it; null to leave it to the pool (straight code refused it).
 */
export function firstSliceInThread(fn: RunnableFunction, globals: Record<string, unknown>): { slice: StepOutcome; program: LocalProgram } | null {
  const slice = runStraight(fn.bytecode, globals, OPTIONS);
  if (slice === null || slice.suspended === null || slice.suspended.name !== 'fetch') {
    refusals.set(fn, (refusals.get(fn) ?? 0) + 1);
    return null;
  }
  if (refusals.has(fn)) refusals.delete(fn);
  return suspendedAtFetch(slice, globals, eventUrl(globals));
}

function suspendedAtFetch(slice: NonNullable<ReturnType<typeof runStraight>>, globals: Record<string, unknown>, url: unknown): { slice: StepOutcome; program: LocalProgram } {
  const { args, state } = slice.suspended!;
  const request = fetchRequest(args[0], args[1] ?? null);
  return {
    slice: {
      logs: [], error: null, errorMessage: null, result: null, timings: slice.timings, ops: slice.ops, maxMemoryBytes: slice.maxMemoryBytes,
      eventUrl: url, captured: [],
      fetch: { url: request.url, options: { method: request.method, headers: request.headers, body: request.body }, state: null, token: null },
    },
    program: { state, globals, eventUrl: url },
  };
}

/**
 * The program resumed with its fetch's answer, as a Hog worker's continue step gives it,
 * when straight code runs it to its end; null to resume it in the pool.
 */
export function resumeInThread(program: LocalProgram, response: { status: number; body: unknown }): StepOutcome | null {
  const slice = runStraight({ state: program.state, value: response }, program.globals, OPTIONS);
  if (slice === null) return null;
  return {
    logs: [], fetch: null, error: null, errorMessage: null, result: slice.result, timings: slice.timings, ops: slice.ops,
    maxMemoryBytes: slice.maxMemoryBytes, eventUrl: 'eventUrl' in program ? program.eventUrl : eventUrl(program.globals), captured: [],
  };
}
