// Runs Hog bytecode with @posthog/hogvm inside bounds (time, memory, async steps), with
// the host functions the caller supplies: print, postHogCapture, fetch and any others.
// The same function serves the CLI, tests and Piscina workers: its inputs and its report
// are plain data, and it does no I/O of its own.

import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ExecOptions, ExecResult, VMState } from './vm.js';
import { convertHogToJS, exec, HogVMException, printHogStringOutput, STL, UncaughtHogVMException } from './vm.js';
import { regexExtract, regexMatch } from './regex.js';
import { copyHeap, printCost, vmCost } from './allocation.js';
import { ensureRoom, installCheckedLibrary, limitTime, memoryLimitOf } from './checked-stl.js';
import { straightProgram, straightResume, straightSlice } from './straight-slice.js';

export interface FetchOptions {
  method?: string;
  headers?: Record<string, unknown>;
  body?: unknown;
}

export interface FetchResponse {
  status: number;
  body: unknown;
}

export interface HostFunctions {
  /** Each print(...) call as one line, formatted as the VM prints. */
  print?: (line: string) => void;
  postHogCapture?: (event: Record<string, unknown>) => void;
  /** Suspends the program until the response (or a rejection, which fails the program). */
  fetch?: (url: string, options: FetchOptions | null) => Promise<FetchResponse>;
  /** Further synchronous host functions, called with plain JS values. */
  functions?: Record<string, (...args: unknown[]) => unknown>;
  /** Further asynchronous host functions; each call counts as one async step. */
  asyncFunctions?: Record<string, (...args: unknown[]) => Promise<unknown>>;
}

// @posthog/hogvm's DEFAULT_TIMEOUT_MS.
const DEFAULT_TIMEOUT_MS = 5000;

export interface ExecuteOptions extends HostFunctions {
  /** Budget of synchronous run time (time awaiting async calls is not counted). Default 5000. */
  timeoutMs?: number;
  /** Bytes of VM stack (as the VM estimates them). Default 64 MiB. */
  memoryLimit?: number;
  /** Async calls allowed (fetch and the like). Default 100. */
  maxAsyncSteps?: number;
}

export interface ExecutionError {
  /** The Hog error type for errors the program threw (Error, RetryError, ...), else the exception's name. */
  type: string;
  message: string;
  payload: unknown;
  /** True for an error value the program threw and did not catch; false for the VM's own faults. */
  thrown: boolean;
}

export interface ExecutionTiming {
  kind: 'hog' | 'async_function';
  durationMs: number;
}

export interface ExecutionReport {
  /** The program's return value as plain JS (dicts become objects); null after an error. */
  result: unknown;
  error: ExecutionError | null;
  /** What print() printed, one entry per call. */
  logs: string[];
  /** One entry per synchronous run and per awaited async call, in order. */
  timings: ExecutionTiming[];
  asyncSteps: number;
  ops: number;
  maxMemoryBytes: number;
}

// The VM's print writes to console.log and a host function would receive its arguments
// converted to plain JS (tuples lose their marker). So the library's print is wrapped once
// to write to the running program's sink instead. exec() is synchronous, so at most one
// program runs at a time on a thread and the sink is set around each exec() call.
// What a slice prints is held until it ends (and travels to the caller), so it counts
// against the memory limit as a whole.
let printSink: ((line: string) => void) | null = null;
let printedChars = 0;
const libraryPrint = STL.print.fn;
STL.print.fn = (args, name, options) => {
  if (printSink === null) return libraryPrint(args, name, options);
  let heap = 0;
  let chars = args.length;
  for (const arg of args) {
    const cost = printCost(arg, 4 * memoryLimitOf(options));
    chars += cost.chars;
    heap += cost.heap;
  }
  ensureRoom({ vm: printedChars + chars, heap }, options);
  const line = args.map(printHogStringOutput).join(' ');
  printedChars += line.length;
  printSink(line);
  return undefined;
};
installCheckedLibrary();

function describeError(err: unknown): ExecutionError {
  if (err instanceof UncaughtHogVMException) {
    return { type: String(err.type), message: err.message, payload: convertHogToJS(err.payload ?? null), thrown: true };
  }
  if (err instanceof Error) return { type: err.name, message: err.message, payload: null, thrown: false };
  return { type: 'Error', message: String(err), payload: null, thrown: false };
}

/** The error as PostHog reports it: `Type('message')` for errors the program threw, else `Name: message`. */
export function errorText(error: ExecutionError): string {
  if (!error.thrown) return `${error.type}: ${error.message}`;
  return `${error.type}('${error.message.replaceAll("'", "\\'")}')`;
}

function vmOptions(globals: Record<string, unknown>, options: ExecuteOptions): ExecOptions {
  const functions: Record<string, (...args: unknown[]) => unknown> = { ...options.functions };
  const capture = options.postHogCapture;
  if (capture) {
    functions.postHogCapture = (event: unknown) => {
      capture(event as Record<string, unknown>);
      return null;
    };
  }
  const asyncFunctions: Record<string, (...args: unknown[]) => Promise<unknown>> = { ...options.asyncFunctions };
  const fetch = options.fetch;
  if (fetch) {
    asyncFunctions.fetch = (url: unknown, init: unknown) => fetch(String(url), (init ?? null) as FetchOptions | null);
  }
  return {
    globals,
    functions,
    asyncFunctions,
    timeout: options.timeoutMs,
    memoryLimit: options.memoryLimit,
    maxAsyncSteps: options.maxAsyncSteps,
    external: { regex: { match: regexMatch, extract: regexExtract }, crypto },
  };
}

/** A program stopped at a call of an async host function: what it called and where to resume. */
export interface Suspension {
  name: string;
  args: unknown[];
  // The VM's state as plain data (it may be stored and resumed in another thread or process).
  state: VMState;
}

export interface SliceReport extends ExecutionReport {
  /** Set when the program called an async function: resume with resumeSlice. */
  suspended: Suspension | null;
}

/**
 * Runs a program (bytecode, or a state from a suspension) synchronously until it ends or
 * calls an async host function, which it does not call: the caller does, and resumes the
 * state with the value (resumeSlice). The time budget counts the program's synchronous
 * time over all its slices.
 */
export function runSlice(input: unknown[] | VMState, globals: Record<string, unknown>, options: ExecuteOptions = {}): SliceReport {
  const vm = vmOptions(globals, options);
  const logs: string[] = [];
  const started = performance.now();
  const report = (result: unknown, error: ExecutionError | null, state: VMState | undefined, suspended: Suspension | null): SliceReport => ({
    result, error, logs, timings: [{ kind: 'hog', durationMs: performance.now() - started }], suspended,
    asyncSteps: state?.asyncSteps ?? 0,
    ops: state?.ops ?? 0,
    maxMemoryBytes: state?.maxMemUsed ?? 0,
  });
  // Straight code up to an async call (a webhook's fetch) is answered without the VM's conversions.
  if (Array.isArray(input)) {
    const straight = straightSlice(input, vm, (cost) => fits(cost, vm));
    if (straight !== null) return report(null, null, straight.state, { name: straight.name, args: straight.args, state: straight.state });
  }
  let step: ExecResult;
  printSink = (line: string) => {
    logs.push(line);
    options.print?.(line);
  };
  printedChars = 0;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  limitTime(started + timeoutMs - (Array.isArray(input) ? 0 : input.syncDuration ?? 0), timeoutMs);
  try {
    step = exec(input as unknown[], vm);
  } catch (err) {
    // Bytecode the VM refuses outright (no "_H" header).
    return report(null, describeError(err), Array.isArray(input) ? undefined : input, null);
  } finally {
    printSink = null;
    limitTime(null, 0);
  }
  if (step.finished) {
    // The result is converted here and copied to the caller's thread: a sparse array the VM
    // counted by its elements would be filled to its length on the way.
    const leaving = leavingError(step.result ?? null, vm);
    if (leaving !== null) return report(null, leaving, step.state, null);
    return report(convertHogToJS(step.result ?? null), null, step.state, null);
  }
  if (step.error !== undefined) return report(null, describeError(step.error), step.state, null);
  const state = step.state;
  if (state === undefined) return report(null, describeError(new HogVMException('The program stopped without a state')), state, null);
  // A suspended program's state travels to the caller and may be stored until the call answers.
  const leaving = leavingError([state.stack, state.upvalues, step.asyncFunctionArgs ?? []], vm);
  if (leaving !== null) return report(null, leaving, state, null);
  return report(null, null, state, { name: step.asyncFunctionName ?? '', args: step.asyncFunctionArgs ?? [], state });
}

/**
 * What runSlice answers, when straight code answers it without the VM (./straight-slice.ts):
 * a first slice up to an async call, or a suspended program resumed with `value` up to its
 * end. Null when only the VM can run it. It runs no loop (forward jumps only, at most 10,000
 * ops) over values walked at most 64 deep, so its time and memory are bounded by the
 * program's length and the values it reads: a caller may run it where the VM may not run.
 * `state` is not changed. A program given as `{ program }` is run whole (a filter's
 * expression): its result, or null when it is not straight or calls an async function.
 */
export function runStraight(
  input: unknown[] | { state: VMState; value: unknown } | { program: unknown[] }, globals: Record<string, unknown>, options: ExecuteOptions = NO_OPTIONS,
): SliceReport | null {
  const { vm, leavingRoom } = straightOptions(options);
  const started = performance.now();
  if ('program' in input) {
    const end = straightProgram(input.program, vm, leavingRoom, globals);
    if (end === null) return null;
    return {
      result: end.result, error: null, logs: [], timings: [{ kind: 'hog', durationMs: performance.now() - started }], suspended: null, asyncSteps: 0,
      ops: end.ops, maxMemoryBytes: end.maxMemUsed,
    };
  }
  if (Array.isArray(input)) {
    const straight = straightSlice(input, vm, leavingRoom, globals);
    if (straight === null) return null;
    const { state } = straight;
    return {
      result: null, error: null, logs: [], timings: [{ kind: 'hog', durationMs: performance.now() - started }], suspended: straight,
      asyncSteps: state.asyncSteps, ops: state.ops, maxMemoryBytes: state.maxMemUsed,
    };
  }
  const end = straightResume(input.state, input.value, vm, leavingRoom, globals);
  if (end === null) return null;
  return {
    result: end.result, error: null, logs: [], timings: [{ kind: 'hog', durationMs: performance.now() - started }], suspended: null,
    asyncSteps: input.state.asyncSteps, ops: end.ops, maxMemoryBytes: end.maxMemUsed,
  };
}

const NO_OPTIONS: ExecuteOptions = {};
// The VM's options for straight runs, made once per options object (a caller passes the
// same one for every run) instead of per run: the globals are given apart.
const straightVms = new WeakMap<ExecuteOptions, { vm: ExecOptions; leavingRoom: (cost: { vm: number; heap: number }) => boolean }>();
function straightOptions(options: ExecuteOptions): { vm: ExecOptions; leavingRoom: (cost: { vm: number; heap: number }) => boolean } {
  let made = straightVms.get(options);
  if (made === undefined) {
    const vm = vmOptions({}, options);
    made = { vm, leavingRoom: (cost) => fits(cost, vm) };
    straightVms.set(options, made);
  }
  return made;
}

function fits(cost: { vm: number; heap: number }, vm: ExecOptions): boolean {
  try {
    ensureRoom(cost, vm);
    return true;
  } catch {
    return false;
  }
}

// Whether a value leaving the VM fits its memory limit, counted as a copy fills it.
function leavingError(value: unknown, vm: ExecOptions): ExecutionError | null {
  const stopAt = 4 * memoryLimitOf(vm);
  try {
    ensureRoom({ vm: vmCost(value, stopAt), heap: copyHeap(value, stopAt) }, vm);
    return null;
  } catch (err) {
    return describeError(err);
  }
}

/** The state of a suspension with the async call's value in place, ready for runSlice. */
export function resumeWith(state: VMState, value: unknown): VMState {
  state.stack.push(value ?? null);
  return state;
}

/** Runs `bytecode` to its end, awaiting async host calls; never throws for the program's faults. */
export async function execute(
  bytecode: unknown[],
  globals: Record<string, unknown>,
  options: ExecuteOptions = {},
): Promise<ExecutionReport> {
  const asyncFunctions = vmOptions(globals, options).asyncFunctions ?? {};
  const logs: string[] = [];
  const timings: ExecutionTiming[] = [];
  let input: unknown[] | VMState = bytecode;
  for (;;) {
    const slice = runSlice(input, globals, options);
    logs.push(...slice.logs);
    timings.push(...slice.timings);
    const done = (result: unknown, error: ExecutionError | null): ExecutionReport => ({
      result, error, logs, timings, asyncSteps: slice.asyncSteps, ops: slice.ops, maxMemoryBytes: slice.maxMemoryBytes,
    });
    if (slice.suspended === null) return done(slice.result, slice.error);
    const { name, args, state } = slice.suspended;
    const handler = asyncFunctions[name];
    if (handler === undefined) return done(null, describeError(new HogVMException(`Unsupported async function call: ${name}`)));
    const awaited = performance.now();
    let value: unknown;
    try {
      value = await handler(...args);
    } catch (err) {
      return done(null, describeError(err));
    } finally {
      timings.push({ kind: 'async_function', durationMs: performance.now() - awaited });
    }
    input = resumeWith(state, value);
  }
}
