// HogQL parsed where a stuck parse can be abandoned (docs/decisions/0039): one worker thread
// holding the WASM parser, each expression a task with a deadline, past which the thread is
// stopped and replaced. Its caller (the aggregation worker, src/insights/hogql.ts) goes on
// answering other queries meanwhile. Sources are bounded before (./source-bounds.ts): the
// deadline is for slow paths the bounds do not foresee.
import type { Task, WorkerPool } from '../pools/index.js';
import { fastParse } from './parser/index.js';

export type HogQLParseTasks = {
  // The parser's JSON: an expression's AST, or {error, message}.
  expr: Task<string, string>;
  // An ORDER BY element's AST with positions.
  orderExpr: Task<string, string>;
  // A whole SELECT (or set query) with positions: a HogQLQuery's text.
  select: Task<string, string>;
};

export type HogQLParseKind = keyof HogQLParseTasks;

export const PARSE_DEADLINE_MS = 10_000;
const WORKER = new URL('../../workers/hogql-parse.js', import.meta.url);

export interface HogQLParsePool {
  /** The fast parser's JSON (./parser/, in the caller's thread) where it reads the text, else the WASM parser's, in the pool's thread. */
  parse(kind: HogQLParseKind, source: string): Promise<string>;
  /**
   * Starts the parser's thread now and parses typical texts there, in the background: the
   * WASM module's start and its first parses (ANTLR's prediction tables filling, the engine
   * compiling hot code) cost about a second, which the first query would otherwise wait for.
   */
  warm(): void;
  close(): Promise<void>;
}

// Typical texts: PostHog's docs' first query, a join with a subquery, and the insights' expressions.
const WARM_UP: [HogQLParseKind, string][] = [
  ['select', "select event, count() as c from events where timestamp > now() - interval 7 day and properties.$browser = 'Chrome' group by event having c > 1 order by c desc limit 100"],
  ['select', 'select p.id, uniq(e.distinct_id) from events e left join (select id, properties.email as email from persons) p on p.id = e.person_id where e.event in (\'a\', \'b\') group by p.id'],
  ['expr', "countIf(properties.plan = 'pro' and toFloat(properties.price) > 10)"],
  ['orderExpr', 'timestamp DESC'],
];

// The pool's code (Piscina) is loaded at the first parse, so what imports this domain for its
// bounds alone (the Hog compiler, `hedgerow hog run`) loads no worker pool.
export function createHogQLParsePool(): HogQLParsePool {
  let pool: Promise<WorkerPool<HogQLParseTasks>> | null = null;
  const started = () => (pool ??= import('../pools/index.js').then(({ createLazyWorkerPool }) => createLazyWorkerPool<HogQLParseTasks>({
    worker: WORKER, threads: 1, workerData: undefined,
    deadlines: { expr: PARSE_DEADLINE_MS, orderExpr: PARSE_DEADLINE_MS, select: PARSE_DEADLINE_MS }, resourceLimits: { maxOldGenerationSizeMb: 256 },
  })));
  return {
    parse: async (kind, source) => fastParse(kind, source) ?? (await started()).run(kind, source),
    warm() {
      void (async () => {
        for (const [kind, source] of WARM_UP) await (await started()).run(kind, source);
      })().catch(() => { /* a failed warm-up leaves the parser to start at the first query, as lazy */ });
    },
    close: async () => { if (pool) await (await pool).close(); },
  };
}
