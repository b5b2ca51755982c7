// The shapes HogQL expressions take between the parser (src/insights/hogql.ts), their
// translation to SQL (./hogql-expr.ts, ./hogql/events-bridge.ts) and EventsQuery's planner.
import type { Sql } from './sql.js';

export interface HogExpr {
  node: string;
  [key: string]: unknown;
}

export interface ParsedEventsQuery {
  select: HogExpr[];
  where: HogExpr[];
  orderBy: HogExpr[];
}

/** How a translated value reads back: plain, JSON text to parse, µs to format, or the whole event. */
export type Decode = 'plain' | 'json' | 'timestamp' | 'star';

export interface Translated {
  sql: Sql;
  /** The expression read as text, for comparisons with strings (properties: their text). */
  asText: Sql;
  /** The expression read as a number. */
  asNumber: Sql;
  type: string;
  decode: Decode;
  aggregate: boolean;
  persons: boolean;
}
