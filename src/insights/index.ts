// Public face of insights for other domains: an insight's record, PostHog's query kinds and
// their parsing, the query service's types, and the result shapes. Another domain runs an
// insight's query through the API's service (service.answer(project, insight.query,
// { mode })); a query it cannot run throws QueryError (detail and the offending field): a
// 400 at the API.
//
// The engine itself (columnar/ and run.ts: DuckDB, the loader, the planner) and the
// aggregation worker (consumer.ts) are this domain's own: the service's process loads this
// file at start, and must not load DuckDB or the planner with it.
export { QueryError } from './planner/errors.js';
export { parseQuery, QUERY_KINDS } from './schemas.js';
export type { AnalyticsQuery, QueryKind, TrendsQuery, FunnelsQuery, RetentionQuery, LifecycleQuery, StickinessQuery, EventsQuery } from './schemas.js';
export type { TrendsItem, TrendsResult } from './planner/trends.js';
export type { FunnelStep, FunnelResult } from './planner/funnels.js';
export type { RetentionRow, RetentionResult } from './planner/retention.js';
export type { LifecycleItem, LifecycleResult } from './planner/lifecycle.js';
export type { StickinessItem, StickinessResult } from './planner/stickiness.js';
export type { EventsQueryResult } from './planner/events-query.js';
export type { QueryResponse, QueryResult, RunContext } from './run.js';
export { INSIGHTS_CONSUMER } from './protocol.js';
export { insightById } from './api/insight-store.js';
export { copyInsight } from './api/insight-write.js';
export type { InsightRecord } from './api/insight-store.js';
export type { InsightsApi, InsightsApiOptions } from './api/wiring.js';
export type { Answer, QueryService, ResultFields } from './api/query-service.js';
export type { RefreshMode } from './api/refresh.js';
export { refreshMode } from './api/refresh.js';
export { projectInsights } from './api/insight-store.js';
export type { InsightLinks, DashboardTileRef } from './api/links.js';
export type { QueryStatus } from './api/statuses.js';
export type { InsightsTables } from './tables.js';
