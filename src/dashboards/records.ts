// Dashboards and their tiles in LMDB (./tables.ts), written only through ./commands.ts.
// A tile is an insight's place on a dashboard (or a text card): its layouts (react-grid-layout
// units per breakpoint), colour and filter overrides; deleting a tile or a dashboard is soft.
import type { DashboardsTables } from './tables.js';
import { projectRows } from '../store/index.js';

export interface DashboardRecord {
  id: number;
  project_id: number;
  name: string | null;
  description: string;
  pinned: boolean;
  tags: string[];
  filters: Record<string, unknown>;
  variables: Record<string, unknown>;
  breakdown_colors: unknown[];
  data_color_theme_id: number | null;
  restriction_level: number;
  creation_mode: 'default' | 'template' | 'duplicate';
  deleted: boolean;
  created_at: string;
  created_by: number | null;
  last_accessed_at: string | null;
  last_refresh: string | null;
}

export interface TextRecord {
  id: number;
  body: string | null;
  created_by: number | null;
  last_modified_by: number | null;
  last_modified_at: string;
}

export interface TileRecord {
  id: number;
  project_id: number;
  dashboard_id: number;
  insight_id: number | null;
  text: TextRecord | null;
  layouts: Record<string, unknown>;
  color: string | null;
  filters_overrides: Record<string, unknown>;
  deleted: boolean;
}

export const SEQ_KEY: [number, number] = [0, 0];


export function projectDashboards(store: DashboardsTables, projectId: number): DashboardRecord[] {
  return projectRows<DashboardRecord>(store.dashboards, projectId);
}

export function dashboardById(store: DashboardsTables, projectId: number, id: number): DashboardRecord | undefined {
  return id > 0 ? (store.dashboards.get([projectId, id]) as DashboardRecord | undefined) : undefined;
}

export function projectTiles(store: DashboardsTables, projectId: number): TileRecord[] {
  return projectRows<TileRecord>(store.dashboardTiles, projectId);
}

export function dashboardTiles(store: DashboardsTables, projectId: number, dashboardId: number): TileRecord[] {
  return projectTiles(store, projectId).filter((t) => t.dashboard_id === dashboardId);
}

// PostHog's tile order: by the `sm` layout's row, then column (a missing one counts as 100).
export function layoutOrder(a: TileRecord, b: TileRecord): number {
  const at = (t: TileRecord, k: 'x' | 'y') => {
    const sm = t.layouts.sm as Record<string, unknown> | undefined;
    return typeof sm?.[k] === 'number' ? (sm[k] as number) : 100;
  };
  return at(a, 'y') - at(b, 'y') || at(a, 'x') - at(b, 'x') || a.id - b.id;
}
