// The Hog domain's public face: compile Hog source, input templates and hog function
// filters to PostHog bytecode, and run bytecode with bounded time, memory and async steps.

import { loadHogParser } from './parser.js';

/** Loads the WASM parser. Await it once (at start-up, never per request) before compiling. */
export function initHog(): Promise<void> {
  return loadHogParser();
}

export { compileProgram, compileExpression } from './program.js';
export type { CompileResult, HogDiagnostic, ProgramOptions } from './program.js';
export type { Bytecode, BytecodeItem } from './opcodes.js';
