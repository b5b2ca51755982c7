// Piscina worker of HogQL parsing (src/hogql/parse-pool.ts): the WASM parser, loaded once,
// parsing one text per task, in a thread its caller can stop at a deadline.
import { serveTasks } from '../src/pools/serve.js';
import { createWasmParser } from '../src/hogql/wasm-parser.js';
import type { HogQLParseTasks } from '../src/hogql/parse-pool.js';

const parse = await createWasmParser();

export default serveTasks<HogQLParseTasks>({
  expr: (source) => parse('expr', source),
  orderExpr: (source) => parse('orderExpr', source),
  select: (source) => parse('select', source),
});
