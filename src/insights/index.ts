// Public face of insights: the aggregation worker (a log consumer owning the columnar store),
// the insights and query APIs, and, for other domains (exports), the columnar store, the
// query runner with PostHog's query kinds and result shapes, and results as CSV tables.
// Another domain runs an insight's query through the API's service (createInsightsApi →
// service.answer(project, insight.query, { mode })) or, owning a store, with runQuery.
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
export { insightsConsumer } from './consumer.js';
export { INSIGHTS_CONSUMER } from './protocol.js';
export type { InsightsSettings } from './consumer.js';
export { createInsightsApi } from './api/wiring.js';
export { connectNatsEngine } from './nats-engine.js';
export { openStatuses } from './api/kv-statuses.js';
export type { NatsInsightsEngine, ReplicaState } from './nats-engine.js';
export { insightCommands } from './api/commands.js';
export { insightById } from './api/insight-store.js';
export type { InsightRecord } from './api/insight-store.js';
export type { InsightsApi, InsightsApiOptions } from './api/wiring.js';
export type { Answer, QueryService, ResultFields } from './api/query-service.js';
export { REFRESH_MODES } from './api/refresh.js';
export type { RefreshMode } from './api/refresh.js';
export type { QueryStatus } from './api/statuses.js';
export { resultTable, toCsv } from './csv.js';
export type { Table } from './csv.js';
export type { InsightsTables } from './tables.js';
