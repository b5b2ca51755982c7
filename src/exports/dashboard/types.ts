// A dashboard as its renderers take it: plain data (it crosses to the export worker), each
// insight tile with its query's results already computed under the dashboard's filters.
import type { InsightData } from '../types.js';

// A tile's place in react-grid-layout units (12 columns), as PostHog stores `layouts.sm`.
export interface GridBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface DashboardTileData {
  id: number;
  // Its `layouts.sm` when it has a usable one; else it is placed after the laid-out tiles.
  layout: GridBox | null;
  // An insight tile: the insight with its results, or why they could not be had.
  insight: (InsightData & { id: number }) | null;
  error: string | null;
  // A text card: its body (markdown, shown as plain text).
  text: string | null;
}

export interface DashboardData {
  id: number;
  name: string;
  description: string;
  // The filters the tiles were computed under (the dashboard's), for the JSON export.
  filters: Record<string, unknown>;
  timezone: string;
  // When the results were computed (ISO), printed on the picture and the title page.
  computedAt: string;
  tiles: DashboardTileData[];
}
