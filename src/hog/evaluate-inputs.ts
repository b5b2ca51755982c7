// Evaluating a function's compiled inputs for one invocation, as PostHog's CDP does: in
// `order`, each templated value rendered by running its bytecode with the invocation's
// globals, where `inputs` holds the inputs evaluated so far, or, for an input whose
// templating is "liquid", rendered as Liquid with the same globals (./liquid.ts). A
// template that only reads a global is answered without the VM (./direct-read.ts).

import type { CompiledInput } from './inputs.js';
import { execute, type ExecuteOptions } from './host.js';
import { NOT_DIRECT, readDirect } from './direct-read.js';
import { renderLiquid } from './liquid.js';

export type InputsEvaluation = { ok: true; inputs: Record<string, unknown> } | { ok: false; key: string; message: string };

const isProgram = (v: unknown): v is unknown[] => Array.isArray(v) && (v[0] === '_H' || v[0] === '_h');

class InputFailed extends Error {}

async function render(bytecode: unknown, globals: Record<string, unknown>, options: ExecuteOptions): Promise<unknown> {
  if (isProgram(bytecode)) {
    const direct = readDirect(bytecode, globals);
    if (direct !== NOT_DIRECT) return direct;
    const report = await execute(bytecode, globals, options);
    if (report.error) throw new InputFailed(report.error.message);
    return report.result;
  }
  if (Array.isArray(bytecode)) {
    const out: unknown[] = [];
    for (const item of bytecode) out.push(await render(item, globals, options));
    return out;
  }
  if (typeof bytecode === 'object' && bytecode !== null) {
    const source = bytecode as Record<string, unknown>;
    // `$$_extend_object` spreads its rendered value into the object beside the other keys.
    const out: Record<string, unknown> = '$$_extend_object' in source
      ? { ...(await render(source.$$_extend_object, globals, options) as Record<string, unknown>) }
      : {};
    for (const [key, value] of Object.entries(source)) {
      if (key !== '$$_extend_object') out[key] = await render(value, globals, options);
    }
    return out;
  }
  return bytecode;
}

// `render` when every template in the value reads a global or is a constant (no VM, no
// Liquid): its value, else NOT_DIRECT.
function renderDirect(bytecode: unknown, globals: Record<string, unknown>): unknown {
  if (isProgram(bytecode)) return readDirect(bytecode, globals);
  if (Array.isArray(bytecode)) {
    const out: unknown[] = [];
    for (const item of bytecode) {
      const value = renderDirect(item, globals);
      if (value === NOT_DIRECT) return NOT_DIRECT;
      out.push(value);
    }
    return out;
  }
  if (typeof bytecode === 'object' && bytecode !== null) {
    const source = bytecode as Record<string, unknown>;
    let out: Record<string, unknown> = {};
    if ('$$_extend_object' in source) {
      const spread = renderDirect(source.$$_extend_object, globals);
      if (spread === NOT_DIRECT) return NOT_DIRECT;
      out = { ...(spread as Record<string, unknown>) };
    }
    for (const key of Object.keys(source)) {
      if (key === '$$_extend_object') continue;
      const value = renderDirect(source[key], globals);
      if (value === NOT_DIRECT) return NOT_DIRECT;
      out[key] = value;
    }
    return out;
  }
  return bytecode;
}

// A function's inputs in evaluation order, sorted once per inputs object (a pipeline step
// evaluates the same function's inputs for every event of its chunk).
const orders = new WeakMap<object, [string, CompiledInput][]>();
function inOrder(inputs: Record<string, CompiledInput>): [string, CompiledInput][] {
  let ordered = orders.get(inputs);
  if (ordered === undefined) {
    ordered = Object.entries(inputs).sort(([, a], [, b]) => (a.order ?? -1) - (b.order ?? -1));
    orders.set(inputs, ordered);
  }
  return ordered;
}

/**
 * Renders `inputs` (compiled by compileTemplateInputs) for one invocation. Templates run
 * synchronously with the given bounds; they have no async host functions.
 */
export async function evaluateInputs(
  inputs: Record<string, CompiledInput>,
  globals: Record<string, unknown>,
  options: Pick<ExecuteOptions, 'timeoutMs' | 'memoryLimit'> = {},
): Promise<InputsEvaluation> {
  const done: Record<string, unknown> = {};
  // One scope for all inputs: `inputs` in it is `done`, which holds each input as it is evaluated.
  const scope = { ...globals, inputs: done };
  for (const [key, input] of inOrder(inputs)) {
    if (input.templating === 'liquid') {
      try {
        done[key] = await renderLiquid(input.value ?? null, scope);
      } catch (err) {
        // LiquidJS's errors are the template's (syntax, an unknown filter, a bound passed).
        return { ok: false, key, message: `Could not render liquid template for input field: ${key}: ${(err as Error).message}` };
      }
      continue;
    }
    try {
      done[key] = input.bytecode !== undefined ? await render(input.bytecode, scope, options) : input.value ?? null;
    } catch (err) {
      if (!(err instanceof InputFailed)) throw err;
      return { ok: false, key, message: `Could not execute bytecode for input field: ${key}` };
    }
  }
  return { ok: true, inputs: done };
}

/**
 * evaluateInputs' answer when every input is a constant or reads globals only (no Hog program
 * to run, no Liquid): synchronous and without the VM; null otherwise (evaluate them with
 * evaluateInputs).
 */
export function evaluateInputsDirect(inputs: Record<string, CompiledInput>, globals: Record<string, unknown>): Record<string, unknown> | null {
  const done: Record<string, unknown> = {};
  const scope = { ...globals, inputs: done };
  for (const [key, input] of inOrder(inputs)) {
    if (input.templating === 'liquid') return null;
    if (input.bytecode === undefined) {
      done[key] = input.value ?? null;
      continue;
    }
    const value = renderDirect(input.bytecode, scope);
    if (value === NOT_DIRECT) return null;
    done[key] = value;
  }
  return done;
}
