// Piscina worker of HogQL parsing (src/hogql/parse-pool.ts): the WASM parser, loaded once,
// parsing one expression per task, in a thread its caller can stop at a deadline.
import createHogQLParser from '@posthog/hogql-parser';
import { serveTasks } from '../src/pools/serve.js';
import type { HogQLParseTasks } from '../src/hogql/parse-pool.js';

const parser = await createHogQLParser();

export default serveTasks<HogQLParseTasks>({
  expr: (source) => parser.parseExpr(source, true),
  // With positions: the caller checks that the expression reaches the end of the text.
  orderExpr: (source) => parser.parseOrderExpr(source, false),
  select: (source) => parser.parseSelect(source, false),
});
