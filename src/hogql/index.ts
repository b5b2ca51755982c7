// The HogQL domain's public face: what a Hog or HogQL source must keep before the WASM
// parser sees it. Imported by the Hog compiler (src/hog/) and the insights' EventsQuery
// parsing (src/insights/hogql.ts) alike, without loading either.
export { checkSource, MAX_SOURCE_BYTES, MAX_SOURCE_DEPTH, nestingDepth, SourceLimitError, TOO_DEEP_TO_PARSE } from './source-bounds.js';
export { createHogQLParsePool, PARSE_DEADLINE_MS, type HogQLParseKind, type HogQLParsePool, type HogQLParseTasks } from './parse-pool.js';
export { isParserTrap } from './parser-trap.js';
export { literalShape, treeWithLiterals, type Literal, type Shape } from './literals.js';
export { fastParse, type FastParseKind } from './parser/index.js';
/** The WASM parser for a thread without a parse pool, loaded (1.2 MB) at the first call. */
export const loadWasmParser = () => import('./wasm-parser.js').then((m) => m.createWasmParser());
