// The Hog parser: @posthog/hogql-parser (PostHog's ANTLR grammar compiled to WASM), loaded
// once per thread by loadHogParser() and used synchronously after that. It returns the
// AST as JSON; this module turns a parse error into a HogCompileError with its location.
// A source past the parser's bounds (./source-bounds.ts) never reaches it: SourceLimitError.

import type { HogQLParser } from '@posthog/hogql-parser';
import type { Expr, Program } from './ast.js';
import { HogCompileError, locate } from './errors.js';
import { checkSource, isParserTrap, TOO_DEEP_TO_PARSE } from '../hogql/index.js';

let parser: HogQLParser | null = null;
// A second instance, swapped in when a source traps the first (below).
let spare: HogQLParser | null = null;
let create: (() => Promise<HogQLParser>) | null = null;
let loading: Promise<void> | null = null;

/**
 * Loads the WASM parser (about 25 ms, and a spare: ~2 MB more); later calls return the same
 * promise. The module (1 MB of JS with the WASM inside) is imported here, not at start-up, so
 * threads that only run bytecode never load it.
 */
export function loadHogParser(): Promise<void> {
  loading ??= import('@posthog/hogql-parser').then(async ({ default: createHogQLParser }) => {
    create = createHogQLParser;
    [parser, spare] = await Promise.all([createHogQLParser(), createHogQLParser()]);
  });
  return loading;
}

function loadedParser(): HogQLParser {
  if (parser !== null) return parser;
  // Two traps in a row, before a new instance was ready (a few ms): the source is not at fault.
  if (create !== null) throw new HogCompileError('The Hog parser is restarting after a source it could not parse: try again in a moment', null);
  throw new Error('the Hog parser is not loaded: await initHog() before compiling');
}


// One parse. A source deep enough to exhaust the WASM stack (a chain of ~2,000 `+`, which the
// nesting bound does not count) traps, and the instance's memory is not to be trusted after
// it (every later parse failed: a user's code could stop every compile in the thread). The
// spare takes over at once (parsing is synchronous), another spare is made, and the source is
// a compile error.
function parseWith(call: (p: HogQLParser) => string): string {
  const used = loadedParser();
  try {
    return call(used);
  } catch (err) {
    if (!isParserTrap(err)) throw err;
    if (parser === used) {
      parser = spare;
      spare = null;
      void create?.().then((made) => {
        if (parser === null) parser = made;
        else spare = made;
      });
    }
    throw new HogCompileError(TOO_DEEP_TO_PARSE, null);
  }
}

// JSON numbers written with a fraction or exponent are floats in PostHog's parser; JSON.parse
// would turn `1.0` into the integer 1 and the compiler would emit INTEGER where PostHog emits
// FLOAT. Integral floats are wrapped as {"$float": n} before parsing (strings pass untouched).
const JSON_TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

function markFloats(json: string): string {
  return json.replace(JSON_TOKEN, (token) => {
    if (token.charCodeAt(0) === 34 /* " */) return token;
    if (!/[.eE]/.test(token) || !Number.isInteger(Number(token))) return token;
    return `{"$float":${token}}`;
  });
}

interface ParseFailure {
  error: true;
  message: string;
  start?: { offset: number };
}

function read<T>(json: string, source: string, offsetShift: number): T {
  const parsed = JSON.parse(markFloats(json)) as T | ParseFailure;
  if ((parsed as ParseFailure).error === true) {
    const failure = parsed as ParseFailure;
    const offset = failure.start ? Math.max(0, failure.start.offset - offsetShift) : null;
    throw new HogCompileError(failure.message, offset === null ? null : locate(source, offset));
  }
  return parsed as T;
}

/** Parses a Hog program; throws HogCompileError on a syntax error, SourceLimitError past the bounds. */
export function parseProgram(source: string): Program {
  checkSource(source);
  return read<Program>(parseWith((p) => p.parseProgram(source, false)), source, 0);
}

/** Parses one HogQL expression (filters of type "hogql"). */
export function parseExpression(source: string): Expr {
  checkSource(source);
  return read<Expr>(parseWith((p) => p.parseExpr(source, false)), source, 0);
}

/** Parses an input template: text with `{expression}` placeholders, as PostHog's f-strings. */
export function parseTemplate(text: string): Expr {
  checkSource(text, true);
  // PostHog parses templates as an f-string opened by F' and never closed.
  return read<Expr>(parseWith((p) => p.parseFullTemplateString(`F'${text}`, false)), text, 2);
}
