// The HogQL expressions of an EventsQuery (select, where, orderBy), parsed by PostHog's own
// grammar (@posthog/hogql-parser, WASM, loaded once per thread) into the AST the planner
// translates (planner/hogql-expr.ts). Parsing is the only impure step: loading the WASM.
import createHogQLParser, { type HogQLParser } from '@posthog/hogql-parser';
import type { HogExpr, ParsedEventsQuery } from './planner/hogql-expr.js';
import { QueryError } from './planner/errors.js';
import type { EventsQuery } from './schemas.js';

let loading: Promise<HogQLParser> | null = null;

function parser(): Promise<HogQLParser> {
  loading ??= createHogQLParser();
  return loading;
}

interface ParseFailure {
  error: true;
  message: string;
}

function read(json: string, source: string, attr: string): HogExpr {
  const parsed = JSON.parse(json) as HogExpr | ParseFailure;
  if ((parsed as ParseFailure).error === true) throw new QueryError(`Invalid HogQL "${source}": ${(parsed as ParseFailure).message}`, attr);
  return parsed as HogExpr;
}

export async function parseHogQLExpressions(query: EventsQuery): Promise<ParsedEventsQuery> {
  const p = await parser();
  return {
    select: query.select.map((s, i) => (s.trim() === '*' ? { node: 'Field', chain: ['*'] } : read(p.parseExpr(s, true), s, `select.${i}`))),
    where: (query.where ?? []).map((s, i) => read(p.parseExpr(s, true), s, `where.${i}`)),
    orderBy: (query.orderBy ?? []).map((s, i) => read(p.parseOrderExpr(s, true), s, `orderBy.${i}`)),
  };
}
