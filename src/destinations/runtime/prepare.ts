// The first half of the pipeline for a batch of events, in a Hog worker: for each event and
// each function, filters, then each mapping's filters, then inputs, then the masking hash
// (as PostHog's buildHogFunctionInvocations and masker order them). The masking counters
// themselves are state, applied by the consumer in order (./masking.ts). An event's filter
// and invocation globals are built once for all its functions.
import { createHash } from 'node:crypto';
import { evaluateInputs, execute, NOT_DIRECT, readDirect } from '../../hog/index.js';
import type { StoredFilters } from '../types.js';
import { namedEvents } from './event-names.js';
import { filterGlobals, invocationGlobals, sourceOf, type EventContext } from './globals.js';
import type { RunnableFunction } from './runnable.js';

export interface PrepareTask {
  functions: RunnableFunction[];
  // Each event with the indexes (into `functions`) of the functions to try on it, in execution order.
  events: { ctx: EventContext; functions: number[] }[];
}

export type PrepareOutcome =
  | { fn: number; ev: number; kind: 'filtered' }
  | { fn: number; ev: number; kind: 'filtering_failed' | 'inputs_failed'; message: string }
  | { fn: number; ev: number; kind: 'invocation'; mappingIndex: number; globals: Record<string, unknown>; maskKey: string | null };

// Filters and input templates run with hogvm's default budget, as PostHog runs them (5 s of
// wall clock: a backstop, so a paused or busy thread never fails a filter that would take
// microseconds); masking with PostHog's 50 ms (a failure there only leaves it unmasked).
const INPUTS_TIMEOUT_MS = 5_000;
const MASKING_TIMEOUT_MS = 50;

class FilterFailure extends Error {}

// Whether the event passes `filters` (PostHog's rules: a pre-check on the event name when
// only events are filtered, then the bytecode, whose result must be exactly true).
// Exported for bench/destinations.
export async function passes(filters: StoredFilters | null, eventName: string, globals: Record<string, unknown>): Promise<boolean> {
  if (filters === null) return true;
  if (namedEvents(filters)?.has(eventName) === false) return false;
  const bytecode = filters.bytecode;
  if (!Array.isArray(bytecode)) throw new FilterFailure(filters.bytecode_error ?? 'Filters were not compiled');
  if (bytecode.length === 3 && bytecode[0] === '_H' && bytecode[2] === 29) return true;
  const report = await execute(bytecode, globals, { timeoutMs: INPUTS_TIMEOUT_MS });
  if (report.error) throw new FilterFailure(report.error.message);
  return report.result === true;
}

const maskHash = (value: unknown): string | null => (value ? createHash('md5').update(String(value)).digest('hex') : null);

/**
 * The invocation's masking hash when its hash template only reads globals (`{event.distinct_id}`,
 * the usual one): no VM. NOT_DIRECT when the VM must run it.
 */
export function directMaskKey(fn: RunnableFunction, globals: Record<string, unknown>): string | null | typeof NOT_DIRECT {
  if (!fn.masking || !Array.isArray(fn.masking.bytecode)) return null;
  const value = readDirect(fn.masking.bytecode, globals);
  return value === NOT_DIRECT ? NOT_DIRECT : maskHash(value);
}

async function maskKey(fn: RunnableFunction, globals: Record<string, unknown>): Promise<string | null> {
  const direct = directMaskKey(fn, globals);
  if (direct !== NOT_DIRECT) return direct;
  const report = await execute(fn.masking!.bytecode as unknown[], globals, { timeoutMs: MASKING_TIMEOUT_MS });
  return report.error ? null : maskHash(report.result);
}

// One event as its functions see it, built once.
export interface PreparedEvent {
  ctx: EventContext;
  filters: Record<string, unknown>;
  // The invocation globals without `source` and `inputs` (each function's own).
  base: Record<string, unknown>;
}

export function preparedEvent(ctx: EventContext): PreparedEvent {
  return { ctx, filters: filterGlobals(ctx), base: invocationGlobals(ctx) };
}

// What prepareOne finds for one function on one event: each invocation with its globals.
export type Prepared =
  | { kind: 'filtered' }
  | { kind: 'filtering_failed' | 'inputs_failed'; message: string }
  | { kind: 'invocation'; mappingIndex: number; globals: Record<string, unknown>; maskKey: string | null };

export async function prepareOne(fn: RunnableFunction, event: PreparedEvent, out: (found: Prepared) => void | Promise<void>): Promise<void> {
  const { ctx } = event;
  try {
    if (!(await passes(fn.filters, ctx.event.event, event.filters))) return out({ kind: 'filtered' });
  } catch (err) {
    if (!(err instanceof FilterFailure)) throw err;
    return out({ kind: 'filtering_failed', message: `Error filtering event ${ctx.event.uuid}: ${err.message}` });
  }
  const base = { ...event.base, source: sourceOf(ctx.project.url, fn) };
  const targets: { mappingIndex: number; inputs: RunnableFunction['inputs'] }[] = [];
  if (fn.mappings === null || fn.mappings.length === 0) {
    targets.push({ mappingIndex: -1, inputs: fn.inputs });
  } else {
    for (const [i, mapping] of fn.mappings.entries()) {
      try {
        if (await passes(mapping.filters, ctx.event.event, event.filters)) targets.push({ mappingIndex: i, inputs: { ...fn.inputs, ...mapping.inputs } });
      } catch (err) {
        if (!(err instanceof FilterFailure)) throw err;
        await out({ kind: 'filtering_failed', message: `Error filtering event ${ctx.event.uuid}: ${err.message}` });
      }
    }
    if (targets.length === 0) return out({ kind: 'filtered' });
  }
  for (const { mappingIndex, inputs } of targets) {
    const evaluated = await evaluateInputs(inputs, base, { timeoutMs: INPUTS_TIMEOUT_MS });
    if (!evaluated.ok) {
      await out({ kind: 'inputs_failed', message: `Error building inputs for event ${ctx.event.uuid}: ${evaluated.message}` });
      continue;
    }
    const globals = { ...base, inputs: evaluated.inputs };
    await out({ kind: 'invocation', mappingIndex, globals, maskKey: await maskKey(fn, globals) });
  }
}

export async function prepareInvocations(task: PrepareTask): Promise<PrepareOutcome[]> {
  const out: PrepareOutcome[] = [];
  for (const [ev, { ctx, functions }] of task.events.entries()) {
    const event = preparedEvent(ctx);
    for (const fn of functions) await prepareOne(task.functions[fn], event, (found) => { out.push({ fn, ev, ...found }); });
  }
  return out;
}
