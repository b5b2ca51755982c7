// Input templates: every string in an input's value (at any depth of objects and arrays)
// is a template, text with `{expression}` placeholders, compiled to its own bytecode
// program whose result is the rendered value. Other values are kept as they are.

import { globalsOutside, hyphenatedName, referencedInputs } from './checks.js';
import { compileTree } from './compiler/compile.js';
import { isLibraryFunction } from './compiler/library.js';
import { HogCompileError, locate } from './errors.js';
import type { Bytecode } from './opcodes.js';
import { parseTemplate } from './parser.js';
import type { CompileResult } from './program.js';
import { diagnosticOf } from './program.js';

/** Globals and functions each function type's templates may read (others are refused). */
const TRANSFORMATION_GLOBALS = new Set(['project', 'event', 'inputs']);
const TRANSFORMATION_FUNCTIONS = new Set(['geoipLookup', 'cleanNullValues', 'isKnownBotUserAgent', 'isKnownBotIp']);
const LOG_TRANSFORMATION_GLOBALS = new Set(['project', 'record', 'inputs']);
const HOST_FUNCTIONS = new Set([
  'fetch', 'postHogCapture', 'postHogGetTicket', 'postHogUpdateTicket', 'postHogGetAccount', 'postHogUpdateAccount',
  'postHogSetAccountProperties',
]);

function checkGlobals(tree: Parameters<typeof globalsOutside>[0], functionType: string | undefined): void {
  if (functionType === 'transformation') {
    const invalid = globalsOutside(tree, (name) => TRANSFORMATION_GLOBALS.has(name) || TRANSFORMATION_FUNCTIONS.has(name) ||
      HOST_FUNCTIONS.has(name) || isLibraryFunction(name));
    if (invalid.length > 0) {
      throw new HogCompileError(`Variable not available in transformations: ${invalid.join(', ')}. ` +
        'Transformations only have access to project, event, and inputs.');
    }
  } else if (functionType === 'transformation_log') {
    const invalid = globalsOutside(tree, (name) => LOG_TRANSFORMATION_GLOBALS.has(name) || HOST_FUNCTIONS.has(name) ||
      isLibraryFunction(name));
    if (invalid.length > 0) {
      throw new HogCompileError(`Variable not available in log transformations: ${invalid.join(', ')}. ` +
        'Log transformations only have access to project, record, and inputs.');
    }
  }
}

/** Compiles one template string; adds the inputs it reads (`inputs.X`) to `inputs`. Throws HogCompileError. */
export function compileTemplateString(text: string, inputs: Set<string>, functionType?: string): Bytecode {
  const tree = parseTemplate(text);
  for (const name of referencedInputs(tree)) inputs.add(name);
  const hyphenated = hyphenatedName(tree);
  if (hyphenated !== null) throw new HogCompileError(hyphenated.message);
  checkGlobals(tree, functionType);
  try {
    return compileTree(tree, text).bytecode;
  } catch (err) {
    // Node positions count the parser's two-character f-string opener.
    if (err instanceof HogCompileError && err.location) err.location = locate(text, Math.max(0, err.location.offset - 2));
    throw err;
  }
}

/** A value with every string compiled: the same shape, bytecode in place of each string. */
export function compileTemplateValue(value: unknown, inputs: Set<string>, functionType?: string): unknown {
  if (typeof value === 'string') return compileTemplateString(value, inputs, functionType);
  if (Array.isArray(value)) return value.map((item) => compileTemplateValue(item, inputs, functionType));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compileTemplateValue(v, inputs, functionType)]));
  }
  return value;
}

/** The bytecode of a masking hash template such as `{person.properties.email}`. */
export function compileHashTemplate(hash: string): CompileResult {
  try {
    return { ok: true, bytecode: compileTemplateString(hash, new Set()), warnings: [] };
  } catch (err) {
    return { ok: false, error: diagnosticOf(err) };
  }
}
