// The HogQL expressions of an EventsQuery (select, where, orderBy), parsed by PostHog's own
// grammar (@posthog/hogql-parser, WASM) into the AST the planner compiles
// (planner/events-query.ts). Each source is bounded first (src/hogql/: size and nesting, a
// 400 naming the limit), then parsed in the parse pool the aggregation worker gives, where a
// stuck parse is stopped at a deadline (docs/decisions/0039); without one (tests, tools) in
// this thread. Every expression must reach the end of its text: trailing text is refused in
// orderBy as the parser refuses it in select and where.
import { checkSource, fastParse, literalShape, loadWasmParser, PARSE_DEADLINE_MS, SourceLimitError, treeWithLiterals, type HogQLParseKind, type HogQLParsePool, type Literal } from '../hogql/index.js';
import { TaskDeadlineError } from '../pools/index.js';
import type { HogExpr, ParsedEventsQuery } from './planner/hogql-types.js';
import type { HogNode } from './planner/hogql/expr.js';
import { QueryError } from './planner/errors.js';
import type { EventsQuery } from './schemas.js';

type Parse = (kind: HogQLParseKind, source: string) => Promise<string>;

let wasm: Promise<Parse> | null = null;

// The parser in this thread, for callers without a pool: the fast parser (src/hogql/parser/),
// else the WASM parser, whose 1.2 MB module is loaded at the first text the fast one leaves
// to it, not by every thread that can run a query.
async function localParse(kind: HogQLParseKind, source: string): Promise<string> {
  const json = fastParse(kind, source);
  if (json !== null) return json;
  wasm ??= loadWasmParser();
  return (await wasm)(kind, source);
}

interface ParseFailure {
  error: true;
  message: string;
}

interface Positioned {
  end?: { offset: number };
}

const IGNORED_TAIL = /^(?:\s|--[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*$/;

// What follows the parsed expression (offsets count code points), if anything but space and comments.
function trailingText(source: string, end: number): string | null {
  const rest = Array.from(source).slice(end).join('');
  if (IGNORED_TAIL.test(rest)) return null;
  return rest.trim();
}

function firstToken(text: string): string {
  return /^[\p{L}\p{N}_$]+/u.exec(text)?.[0] ?? text[0];
}

// The parser's answers for the texts parsed last (the same queries come back: dashboards,
// polling notebooks, insights' HogQL expressions), kept as JSON so no caller can change a cached tree. The WASM parse
// costs milliseconds; a lookup does not.
const PARSED = new Map<string, string>();
const PARSED_MAX = 256;
const PARSED_MAX_TEXT = 64 * 1024;

/** The parser's JSON for `source` parsed as `kind`: from the cache, else parsed and kept. */
async function cachedParse(parse: Parse, kind: HogQLParseKind, source: string): Promise<string> {
  const key = `${kind}\u0000${source}`;
  let json = PARSED.get(key);
  if (json === undefined) {
    json = await parse(kind, source);
    remember(key, source, json);
  } else {
    // Most recently used last: the oldest entry is the first to go.
    PARSED.delete(key);
    PARSED.set(key, json);
  }
  return json;
}

function remember(key: string, source: string, json: string): void {
  if (source.length <= PARSED_MAX_TEXT) {
    PARSED.set(key, json);
    if (PARSED.size > PARSED_MAX) PARSED.delete(PARSED.keys().next().value as string);
  }
}

// Shapes (../hogql/literals.ts) whose tree cannot serve their texts, and literals' constants.
const UNSHAPED = new Set<string>();
const CONSTANTS = new Map<string, Record<string, unknown>>();
const LITERALS_MAX = 4096;

// Each literal's Constant as the parser reads it: those not known yet parsed in one call, as a list.
async function literalConstants(parse: Parse, literals: readonly Literal[]): Promise<Record<string, unknown>[] | null> {
  const missing = [...new Set(literals.map((l) => l.text).filter((t) => !CONSTANTS.has(t)))];
  if (missing.length > 0) {
    const list = JSON.parse(await parse('expr', `[${missing.join(', ')}]`)) as { node?: string; exprs?: Record<string, unknown>[] };
    if (list.node !== 'Array' || list.exprs?.length !== missing.length || list.exprs.some((e) => e.node !== 'Constant')) return null;
    if (CONSTANTS.size + missing.length > LITERALS_MAX) CONSTANTS.clear();
    missing.forEach((text, i) => CONSTANTS.set(text, list.exprs![i]));
  }
  return literals.map((l) => CONSTANTS.get(l.text)!);
}

/**
 * A HogQLQuery's parse: from the cache by its text; else by the fast parser; else from the
 * cache by its shape (the text with its literals replaced: queries that differ only in
 * constants share one WASM parse), the literals' constants put back; else parsed as it is.
 */
async function selectParse(parse: Parse, source: string): Promise<string> {
  const key = `select\u0000${source}`;
  if (source.length > PARSED_MAX_TEXT || PARSED.has(key)) return cachedParse(parse, 'select', source);
  // The fast parser reads most texts in well under a millisecond: the shape is for those it leaves to the WASM parser.
  const fast = fastParse('select', source);
  if (fast !== null) {
    remember(key, source, fast);
    return fast;
  }
  const shape = literalShape(source);
  if (shape === null || UNSHAPED.has(shape.key)) return cachedParse(parse, 'select', source);
  const shaped = JSON.parse(await cachedParse(parse, 'select', shape.key)) as Record<string, unknown>;
  const constants = shaped.error === true ? null : await literalConstants(parse, shape.literals);
  const tree = constants === null ? null : treeWithLiterals(shaped, shape, constants);
  if (tree === null) {
    if (UNSHAPED.size >= PARSED_MAX) UNSHAPED.clear();
    UNSHAPED.add(shape.key);
    return cachedParse(parse, 'select', source);
  }
  return JSON.stringify(tree);
}

async function parsed(parse: Parse, kind: HogQLParseKind, source: string, attr: string): Promise<HogExpr> {
  try {
    checkSource(source);
  } catch (err) {
    if (err instanceof SourceLimitError) throw new QueryError(`The HogQL of ${attr} ${err.message}.`, attr);
    throw err;
  }
  let json: string;
  try {
    json = await cachedParse(parse, kind, source);
  } catch (err) {
    if (err instanceof TaskDeadlineError) {
      throw new QueryError(`The HogQL of ${attr} took longer than ${PARSE_DEADLINE_MS / 1000} seconds to parse and was stopped.`, attr);
    }
    throw err;
  }
  const node = JSON.parse(json) as (HogExpr & Positioned) | ParseFailure;
  if ((node as ParseFailure).error === true) throw new QueryError(`Invalid HogQL "${source}": ${(node as ParseFailure).message}`, attr);
  const end = (node as Positioned).end?.offset;
  if (end !== undefined) {
    const tail = trailingText(source, end);
    if (tail !== null) throw new QueryError(`Invalid HogQL "${source}": mismatched input '${firstToken(tail)}' expecting <EOF>`, attr);
  }
  return node as HogExpr;
}

export async function parseHogQLExpressions(query: EventsQuery, pool?: HogQLParsePool): Promise<ParsedEventsQuery> {
  const parse: Parse = pool ? (kind, source) => pool.parse(kind, source) : localParse;
  const all = (sources: readonly string[], kind: HogQLParseKind, name: string) =>
    Promise.all(sources.map((s, i) => (kind === 'expr' && s.trim() === '*' ? { node: 'Field', chain: ['*'] } : parsed(parse, kind, s, `${name}.${i}`))));
  return {
    select: await all(query.select, 'expr', 'select'),
    where: await all(query.where ?? [], 'expr', 'where'),
    orderBy: await all(query.orderBy ?? [], 'orderExpr', 'orderBy'),
  };
}

/** HogQL texts of an insight query (planner/hogql-row.ts's hogqlSources), each parsed once, by its text. */
export async function parseHogQLSources(sources: readonly { source: string; attr: string }[], pool?: HogQLParsePool): Promise<Map<string, HogNode>> {
  const out = new Map<string, HogNode>();
  if (sources.length === 0) return out;
  const parse: Parse = pool ? (kind, source) => pool.parse(kind, source) : localParse;
  for (const { source, attr } of sources) {
    if (!out.has(source)) out.set(source, (await parsed(parse, 'expr', source, attr)) as HogNode);
  }
  return out;
}

export function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  const before = Array.from(source).slice(0, offset);
  let line = 1;
  let column = 0;
  for (const c of before) {
    if (c === '\n') {
      line++;
      column = 0;
    } else column++;
  }
  return { line, column };
}

/**
 * A HogQLQuery's text parsed by the select parser (positions kept: compile errors and column
 * names use them). A syntax error is a 400 with PostHog's message and where the parser found it.
 */
export async function parseHogQLSelect(source: string, pool?: HogQLParsePool): Promise<HogNode> {
  const parse: Parse = pool ? (kind, text) => pool.parse(kind, text) : localParse;
  try {
    checkSource(source);
  } catch (err) {
    if (err instanceof SourceLimitError) throw new QueryError(`The HogQL query ${err.message}.`, null);
    throw err;
  }
  let json: string;
  try {
    json = await selectParse(parse, source);
  } catch (err) {
    if (err instanceof TaskDeadlineError) throw new QueryError(`The HogQL query took longer than ${PARSE_DEADLINE_MS / 1000} seconds to parse and was stopped.`, null);
    throw err;
  }
  const node = JSON.parse(json) as HogNode | (ParseFailure & { start?: { offset: number } });
  if ((node as ParseFailure).error === true) {
    const failure = node as ParseFailure & { start?: { offset: number } };
    const at = failure.start?.offset;
    if (at === undefined) throw new QueryError(failure.message, null);
    const { line, column } = lineAndColumn(source, at);
    throw new QueryError(`Syntax error at line ${line}, column ${column}: ${failure.message}`, null);
  }
  return node as HogNode;
}
