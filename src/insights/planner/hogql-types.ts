// The shapes HogQL expressions take between the parser (src/insights/hogql.ts) and EventsQuery's
// planner (./events-query.ts), which compiles them with the HogQL compiler (./hogql/compile.ts).

export interface HogExpr {
  node: string;
  [key: string]: unknown;
}

export interface ParsedEventsQuery {
  select: HogExpr[];
  where: HogExpr[];
  orderBy: HogExpr[];
}
