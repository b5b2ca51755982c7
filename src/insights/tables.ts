// Insights' tables (./api/insight-store.ts, ./api/cache.ts).
import { plainMaps, table, type Tables } from '../store/index.js';

export const insightsTables = {
  // [project_id, id] → insight, and [0, 0] → the last id handed out (ids are global, as PostHog's).
  insights: table<unknown, [number, number]>('insights', plainMaps),
  // Cache key → a query's last result, when and at which log position it was computed.
  insightCache: table<unknown, string>('insight_cache', plainMaps),
};

export type InsightsTables = Tables<typeof insightsTables>;
