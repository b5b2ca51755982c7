// The WASM parser (@posthog/hogql-parser) behind one call per text, for the parse pool's
// worker (workers/hogql-parse.ts) and for threads that parse without a pool. A text deep
// enough to exhaust the WASM stack (a chain of ~2,000 `+`, which no nesting bound sees:
// ./source-bounds.ts) traps, and the module's memory is not to be trusted after it (the next
// parses failed at random): the instance is replaced, and the text answered as a parse failure.
import createHogQLParser from '@posthog/hogql-parser';
import type { HogQLParseKind } from './parse-pool.js';
import { TOO_DEEP_TO_PARSE } from './source-bounds.js';
import { isParserTrap } from './parser-trap.js';


type Parser = Awaited<ReturnType<typeof createHogQLParser>>;


export type WasmParse = (kind: HogQLParseKind, source: string) => Promise<string>;

function parseWith(p: Parser, kind: HogQLParseKind, source: string): string {
  // Expressions with positions: the caller checks that one reaches the end of the text.
  return kind === 'expr' ? p.parseExpr(source, true) : kind === 'select' ? p.parseSelect(source, false) : p.parseOrderExpr(source, false);
}

export async function createWasmParser(): Promise<WasmParse> {
  let parser = await createHogQLParser();
  return async (kind, source) => {
    try {
      return parseWith(parser, kind, source);
    } catch (err) {
      if (!isParserTrap(err)) throw err;
      parser = await createHogQLParser();
      return JSON.stringify({ error: true, message: TOO_DEEP_TO_PARSE });
    }
  };
}
