// The second half, in a Hog worker: a function's code run (or resumed) up to its end or its
// next fetch, within PostHog's bounds (550 ms of synchronous time over the whole run, 64 MB
// of VM memory, five async calls, 25 log lines), its print() lines with secret input values
// redacted, and what it captured with postHogCapture() (./captured.ts).
import { errorText, resumeWith, runSlice, type ExecutionTiming } from '../../hog/index.js';
import { beginCapture, endCapture, postHogCapture, type CapturedRequest } from './captured.js';

export interface RunTask {
  // The program from its start (bytecode), or resumed after a fetch (state and response).
  bytecode: unknown[] | null;
  state: unknown | null;
  response: { status: number; body: unknown } | null;
  globals: Record<string, unknown>;
  secretKeys: string[];
  // How many log lines earlier slices of this invocation kept.
  logsSoFar: number;
  // How many events earlier slices of this invocation captured (postHogCapture: one at most).
  capturedSoFar?: number;
}

export interface LogLine {
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  message: string;
}

export interface RunOutcome {
  logs: LogLine[];
  // Set when the program called fetch: resume with its response.
  fetch: { url: unknown; options: unknown; state: unknown } | null;
  // The program's fault, as PostHog's logs word it (`Type('message')` for an error it
  // threw, `Name: message` for the VM's own); null when it ended or waits for a fetch.
  error: string | null;
  // The fault's message alone (what a test run lists under `errors`).
  errorMessage: string | null;
  result: unknown;
  timings: ExecutionTiming[];
  ops: number;
  maxMemoryBytes: number;
  // The event's url in the globals, for the completion log (the pipeline holds the globals as bytes).
  eventUrl: unknown;
  // Events the program captured into its project with postHogCapture().
  captured: readonly CapturedRequest[];
}

// PostHog's program budget (CDP_WATCHER_HOG_COST_TIMING_UPPER_MS): a backstop for runaway
// code, not a measure of it. The VM times by the wall clock, so a bound of a few times what
// a well-behaved program needs failed programs whose thread was merely paused (a loaded
// host, a GC pause, SIGSTOP); work is bounded by the memory limit and the watcher's cost.
export const HOG_TIMEOUT_MS = 550;
export const MAX_ASYNC_STEPS = 5;
export const MAX_LOG_LINES = 25;
// The VM's estimate of its stack; beyond it the program stops.
export const HOG_MEMORY_LIMIT = 64 * 1024 * 1024;

export function redactor(globals: Record<string, unknown>, keys: string[]): (text: string) => string {
  const inputs = (globals.inputs ?? {}) as Record<string, unknown>;
  const values = keys.map((k) => inputs[k]).filter((v): v is string => typeof v === 'string' && v.length > 0);
  if (values.length === 0) return (text) => text;
  return (text) => values.reduce((t, v) => t.replaceAll(v, '***REDACTED***'), text);
}

const declaredOnly = () => Promise.reject(new Error('fetch is made by the pipeline, not in the worker'));

export function runInvocationSlice(task: RunTask, timeoutMs = HOG_TIMEOUT_MS): RunOutcome {
  const redact = redactor(task.globals, task.secretKeys);
  const event = (task.globals.event ?? {}) as { uuid?: string; url?: unknown };
  const logs: LogLine[] = [];
  let kept = task.logsSoFar;
  const print = (line: string) => {
    if (kept > MAX_LOG_LINES) return;
    kept++;
    logs.push(kept > MAX_LOG_LINES
      ? { level: 'WARN', message: `Function exceeded maximum log entries. No more logs will be collected. Event: ${event.uuid}` }
      : { level: 'INFO', message: redact(line) });
  };
  const input = task.state !== null
    ? resumeWith(task.state as Parameters<typeof resumeWith>[0], task.response)
    : task.bytecode ?? [];
  beginCapture(task.globals, task.capturedSoFar ?? 0);
  const slice = runSlice(input, task.globals, {
    // Declared so the VM suspends at fetch(); runSlice never calls it, the pipeline makes the request.
    fetch: declaredOnly,
    postHogCapture,
    print, timeoutMs, maxAsyncSteps: MAX_ASYNC_STEPS, memoryLimit: HOG_MEMORY_LIMIT,
  });
  const { captured, warning } = endCapture();
  if (warning !== null) logs.push({ level: 'WARN', message: warning });
  let error = slice.error ? errorText(slice.error) : null;
  let errorMessage = slice.error?.message ?? null;
  let fetch: RunOutcome['fetch'] = null;
  if (slice.suspended !== null) {
    if (slice.suspended.name === 'fetch') {
      fetch = { url: slice.suspended.args[0], options: slice.suspended.args[1] ?? null, state: slice.suspended.state };
    } else {
      errorMessage = `Unsupported async function call: ${slice.suspended.name}`;
      error = `HogVMException: ${errorMessage}`;
    }
  }
  return {
    logs, fetch, error, errorMessage, result: slice.result, timings: slice.timings, ops: slice.ops, maxMemoryBytes: slice.maxMemoryBytes,
    eventUrl: event.url, captured,
  };
}
