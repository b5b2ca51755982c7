// A dashboard as PostHog's API shows it: the basic fields in lists; with its tiles, each
// insight tile carrying its insight rendered under the dashboard's filters (or the tile's
// own overrides) and variables, calculated under the request's refresh mode, a few at a time.
import { userBasic, type ProjectContext, type TenancyStore } from '../access/index.js';
import { insightById, type InsightsTables, type RefreshMode } from '../insights/index.js';
import type { DashboardRecord, TileRecord } from './records.js';
import { shownTiles, tileQuery } from './shown.js';
import type { DashboardsTables } from './tables.js';
import { canEdit } from './write.js';

type Json = Record<string, unknown>;

export type PresentInsight = (ctx: ProjectContext, insight: NonNullable<ReturnType<typeof insightById>>, mode: RefreshMode, query: Json | null) => Promise<Json>;

// Tiles calculated at once, at most.
const TILE_CONCURRENCY = 4;

export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function basicBody(d: DashboardRecord, ctx: ProjectContext, tenancy: TenancyStore): Json {
  const creator = d.created_by === null ? undefined : tenancy.user(d.created_by);
  const privilege = canEdit(d, ctx) ? 37 : 21;
  return {
    id: d.id, name: d.name, description: d.description, pinned: d.pinned, created_at: d.created_at, created_by: creator ? userBasic(creator) : null,
    last_accessed_at: d.last_accessed_at, is_shared: false, deleted: d.deleted, creation_mode: d.creation_mode, tags: d.tags,
    restriction_level: d.restriction_level, effective_restriction_level: d.restriction_level, effective_privilege_level: privilege,
    user_access_level: privilege === 37 ? 'editor' : 'viewer', access_control_version: d.restriction_level > 21 ? 'v1' : 'v2',
    last_refresh: d.last_refresh, team_id: d.project_id,
  };
}

export interface FullBodyInput {
  store: DashboardsTables & InsightsTables;
  tenancy: TenancyStore;
  present: PresentInsight;
  mode: RefreshMode;
  filtersOverride: Json | null;
  variablesOverride: Json | null;
}

export async function fullBody(d: DashboardRecord, ctx: ProjectContext, input: FullBodyInput): Promise<Json> {
  const filters = input.filtersOverride ? { ...d.filters, ...input.filtersOverride } : d.filters;
  const variables = input.variablesOverride ? { ...d.variables, ...input.variablesOverride } : d.variables;
  const shown = await mapBounded(shownTiles(input.store, d), TILE_CONCURRENCY, async ({ tile: t, insight }) => {
    const body = insight ? await input.present(ctx, insight, input.mode, tileQuery(t, insight, filters, variables)) : null;
    return { t, body };
  });
  return {
    ...basicBody(d, ctx, input.tenancy), filters, variables, breakdown_colors: d.breakdown_colors, data_color_theme_id: d.data_color_theme_id,
    persisted_filters: Object.keys(d.filters).length > 0 ? d.filters : null, persisted_variables: Object.keys(d.variables).length > 0 ? d.variables : null,
    tiles: shown.map(({ t, body }, order) => tileBody(t, body, order, input.tenancy)),
  };
}

function tileBody(t: TileRecord, insight: Json | null, order: number, tenancy: TenancyStore): Json {
  const user = (id: number | null) => {
    const u = id === null ? undefined : tenancy.user(id);
    return u ? userBasic(u) : null;
  };
  return {
    id: t.id, insight: insight && { ...insight, filters: {} },
    text: t.text && { id: t.text.id, body: t.text.body, created_by: user(t.text.created_by), last_modified_by: user(t.text.last_modified_by), last_modified_at: t.text.last_modified_at, team: t.project_id },
    layouts: t.layouts, color: t.color, filters_overrides: t.filters_overrides, order,
    last_refresh: insight?.last_refresh ?? null, is_cached: insight?.is_cached ?? false,
  };
}
