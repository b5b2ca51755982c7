// Public face of insights: the columnar store (open it, load batches into it) and the
// query runner with PostHog's query kinds and result shapes.
//
//   const db = await openColumnar({ dir });                 // <dir>/insights.duckdb
//   const loader = createLoader(db);
//   await loader.load({ events, persons, distinctIds, position: { name, seq } });
//   const response = await runQuery(db, { kind: 'TrendsQuery', series: [...] },
//     { projectId, timezone: 'Europe/Paris', weekStart: 0, nowMs: Date.now() });
//   response.results  // PostHog's shape for the kind (TrendsItem[], FunnelStep[], …)
//
// runQuery takes a bare query or an insight's InsightVizNode / DataTableNode. A query
// it cannot run throws QueryError (detail and the offending field): a 400 at the API.
export { openColumnar, DATABASE_FILE } from './columnar/database.js';
export type { Columnar, ColumnarOptions } from './columnar/database.js';
export { createLoader } from './columnar/loader.js';
export type { Loader, LoadBatch, LoadResult } from './columnar/loader.js';
export type { ColumnarEvent, ColumnarPerson, DistinctIdMapping } from './columnar/stage.js';
export { runQuery, firstEventMs } from './run.js';
export type { QueryResponse, QueryResult, RunContext } from './run.js';
export { QueryError } from './planner/errors.js';
export { parseQuery, QUERY_KINDS } from './schemas.js';
export type { AnalyticsQuery, QueryKind, TrendsQuery, FunnelsQuery, RetentionQuery, LifecycleQuery, StickinessQuery, EventsQuery } from './schemas.js';
export { BREAKDOWN_NULL, BREAKDOWN_OTHER } from './planner/breakdown.js';
export type { TrendsItem, TrendsResult } from './planner/trends.js';
export type { FunnelStep, FunnelResult } from './planner/funnels.js';
export type { RetentionRow, RetentionResult } from './planner/retention.js';
export type { LifecycleItem, LifecycleResult } from './planner/lifecycle.js';
export type { StickinessItem, StickinessResult } from './planner/stickiness.js';
export type { EventsQueryResult } from './planner/events-query.js';
