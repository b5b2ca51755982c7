// The tiles a dashboard shows, in PostHog's order: live tiles whose insight is live (or text
// cards), by layout; and the query each insight tile runs under the dashboard's filters (or
// the tile's own overrides) and variables. Read by the dashboard API and by what renders a
// dashboard (exports, subscriptions).
import { insightById, type InsightRecord, type InsightsTables } from '../insights/index.js';
import { applyDashboard, effectiveFilters } from './filters.js';
import { dashboardTiles, layoutOrder, type DashboardRecord, type TileRecord } from './records.js';
import type { DashboardsTables } from './tables.js';

type Json = Record<string, unknown>;

export interface ShownTile {
  tile: TileRecord;
  // null for a text card.
  insight: InsightRecord | null;
}

export function shownTiles(store: DashboardsTables & InsightsTables, d: DashboardRecord): ShownTile[] {
  return dashboardTiles(store, d.project_id, d.id)
    .filter((t) => !t.deleted)
    .map((tile) => ({ tile, insight: tile.insight_id === null ? null : insightById(store, d.project_id, tile.insight_id) ?? null }))
    .filter(({ tile, insight }) => tile.insight_id === null || (insight !== null && !insight.deleted))
    .sort((a, b) => layoutOrder(a.tile, b.tile));
}

// The insight's query as this tile shows it; `filters` and `variables`: the dashboard's
// (with any request override already merged).
export function tileQuery(tile: TileRecord, insight: InsightRecord, filters: Json, variables: Json): Json | null {
  return applyDashboard(insight.query as Json | null, effectiveFilters(filters, tile.filters_overrides), variables);
}
