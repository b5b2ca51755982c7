// Compiling Hog programs (a hog function's source) to PostHog bytecode.

import type { Node } from './ast.js';
import { hyphenatedName } from './checks.js';
import { compileTree } from './compiler/compile.js';
import { HogCompileError, locate } from './errors.js';
import type { Bytecode } from './opcodes.js';
import { parseExpression, parseProgram } from './parser.js';

/** A message about Hog source; line and column count from 1 (null when unknown). */
export interface HogDiagnostic {
  message: string;
  line: number | null;
  column: number | null;
}

export type CompileResult =
  | { ok: true; bytecode: Bytecode; warnings: HogDiagnostic[] }
  | { ok: false; error: HogDiagnostic };

/** The host functions PostHog's API lets destination programs call (fetch, postHogCapture). */
export const DESTINATION_FUNCTIONS: readonly string[] = ['fetch', 'postHogCapture'];

export interface ProgramOptions {
  /** Host functions the program may call without a warning, e.g. fetch and postHogCapture. */
  functions?: Iterable<string>;
}

/** What a failure of parsing or compiling says, with its place. */
export function diagnosticOf(err: unknown): HogDiagnostic {
  if (err instanceof HogCompileError) {
    return { message: err.message, line: err.location?.line ?? null, column: err.location?.column ?? null };
  }
  throw err;
}

function compileParsed(parse: (source: string) => Node, source: string, options: ProgramOptions): CompileResult {
  try {
    const tree = parse(source);
    const hyphenated = hyphenatedName(tree);
    if (hyphenated !== null) {
      const start = hyphenated.node.start;
      throw new HogCompileError(hyphenated.message, start ? locate(source, start.offset) : null);
    }
    const compiled = compileTree(tree, source, new Set(options.functions ?? []));
    const warnings = compiled.warnings.map(({ message, node }) => {
      const at = node.start ? locate(source, node.start.offset) : null;
      return { message, line: at?.line ?? null, column: at?.column ?? null };
    });
    return { ok: true, bytecode: compiled.bytecode, warnings };
  } catch (err) {
    return { ok: false, error: diagnosticOf(err) };
  }
}

/** Compiles a Hog program. Needs initHog() to have finished. */
export function compileProgram(source: string, options: ProgramOptions = {}): CompileResult {
  return compileParsed(parseProgram, source, options);
}

/** Compiles one expression (HogQL syntax), whose value is the program's result. */
export function compileExpression(source: string, options: ProgramOptions = {}): CompileResult {
  return compileParsed(parseExpression, source, options);
}
