// What an export's query answers (the query API's fields an export reads), shared by the
// render jobs (./jobs.ts) and the dashboard's tiles (../dashboard/collect.ts).
export interface QueryOutput {
  results: unknown;
  columns?: string[] | null;
  types?: unknown[] | null;
  // Table queries: whether rows past `limit` matched.
  hasMore?: boolean;
}
