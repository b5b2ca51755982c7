// A hog function as the Hog workers need it to filter, build and run invocations: plain
// data sent with each task, so a worker never reads the store and always runs the version
// the pipeline chose.
import type { CompiledInput } from '../../hog/index.js';
import type { StoredFilters, StoredHogFunction } from '../types.js';

export interface RunnableMapping {
  inputs: Record<string, CompiledInput>;
  filters: StoredFilters | null;
}

export interface RunnableFunction {
  id: string;
  name: string;
  bytecode: unknown[];
  // Inputs and secret inputs together, compiled.
  inputs: Record<string, CompiledInput>;
  // Keys of secret inputs: their values are redacted from the function's logs.
  secretKeys: string[];
  filters: StoredFilters | null;
  mappings: RunnableMapping[] | null;
  masking: { bytecode: unknown } | null;
}

export function runnable(fn: StoredHogFunction): RunnableFunction {
  return {
    id: fn.id,
    name: fn.name,
    bytecode: fn.bytecode ?? [],
    inputs: { ...fn.inputs, ...fn.secret_inputs },
    secretKeys: Object.keys(fn.secret_inputs),
    filters: fn.filters,
    mappings: fn.mappings?.map((m) => ({ inputs: m.inputs, filters: m.filters })) ?? null,
    masking: fn.masking ? { bytecode: fn.masking.bytecode } : null,
  };
}
