// Creating and changing a dashboard from a request body, as PostHog's dashboard serializer
// reads it: its fields, soft delete (with its tiles) and undelete, the `tiles` list (text
// cards created or changed, tiles moved, recoloured or removed), and a copy of another
// dashboard (`use_dashboard`: new tiles over the same insights, or over copies of them with
// `duplicate_tiles`).
import { OrgLevel, type ProjectContext } from '../access/index.js';
import { errors } from '../errors.js';
import { copyInsight, insightById, type InsightsTables } from '../insights/index.js';
import type { StateWrites } from '../state/index.js';
import { insertDashboardCommand, saveDashboardCommand, type TileWrite } from './commands.js';
import { dashboardById, dashboardTiles, layoutOrder, type DashboardRecord, type TileRecord } from './records.js';
import type { DashboardsTables } from './tables.js';

type Body = Record<string, unknown>;
const isRecord = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

export const EVERYONE_CAN_EDIT = 21;
export const ONLY_COLLABORATORS_CAN_EDIT = 37;
const NAME_MAX = 400;
const TEXT_MAX = 4000;

// PostHog: anyone in the project may edit unless the dashboard is restricted; then its
// creator and the organization's admins.
export function canEdit(d: DashboardRecord, { user }: ProjectContext): boolean {
  return d.restriction_level <= EVERYONE_CAN_EDIT || d.created_by === user.id || user.organization_level >= OrgLevel.admin;
}

export function requireEdit(d: DashboardRecord, ctx: ProjectContext): void {
  if (!canEdit(d, ctx)) throw errors.permissionDenied("You don't have edit permissions for this dashboard.");
}

function parse(body: Body) {
  const name = body.name;
  if (name !== undefined && name !== null && typeof name !== 'string') throw errors.notAString('name');
  if (typeof name === 'string' && name.length > NAME_MAX) throw errors.tooLong('name', NAME_MAX);
  const description = body.description;
  if (description !== undefined && description !== null && typeof description !== 'string') throw errors.notAString('description');
  for (const f of ['pinned', 'deleted'] as const) if (body[f] !== undefined && typeof body[f] !== 'boolean') throw errors.notABoolean(f);
  const tags = body.tags;
  if (tags !== undefined && (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string'))) throw errors.validation('Expected a list of items.', 'tags', 'not_a_list');
  if (body.filters !== undefined && body.filters !== null && !isRecord(body.filters)) throw errors.validation('Filters must be a dictionary', 'filters');
  if (body.variables !== undefined && body.variables !== null && !isRecord(body.variables)) throw errors.validation('Variables must be a dictionary', 'variables');
  const level = body.restriction_level;
  if (level !== undefined && level !== EVERYONE_CAN_EDIT && level !== ONLY_COLLABORATORS_CAN_EDIT) throw errors.invalidChoice(level, 'restriction_level');
  if (body.breakdown_colors !== undefined && !Array.isArray(body.breakdown_colors)) throw errors.validation('Expected a list of items.', 'breakdown_colors', 'not_a_list');
  const theme = body.data_color_theme_id;
  if (theme !== undefined && theme !== null && !Number.isInteger(theme)) throw errors.validation('A valid integer is required.', 'data_color_theme_id', 'invalid');
  return {
    name: name as string | null | undefined, description: description as string | null | undefined,
    pinned: body.pinned as boolean | undefined, deleted: body.deleted as boolean | undefined, tags: tags as string[] | undefined,
    // A falsy filters or variables leaves them as they are (PostHog replaces only with a value).
    filters: isRecord(body.filters) && Object.keys(body.filters).length > 0 ? body.filters : undefined,
    variables: isRecord(body.variables) && Object.keys(body.variables).length > 0 ? body.variables : undefined,
    restriction_level: level as number | undefined, breakdown_colors: body.breakdown_colors as unknown[] | undefined,
    data_color_theme_id: theme as number | null | undefined,
  };
}

export async function createDashboard(store: DashboardsTables & InsightsTables, writes: StateWrites, body: Body, ctx: ProjectContext, now: Date) {
  const f = parse(body);
  if (body.use_template !== undefined && body.use_dashboard !== undefined) {
    throw errors.validation('`use_dashboard` and `use_template` cannot be used together', 'use_template');
  }
  if (body.use_template !== undefined) throw errors.validation(`Invalid template provided: ${String(body.use_template)}`, 'use_template');
  let tiles: Omit<TileWrite, 'dashboard_id'>[] = [];
  let mode: DashboardRecord['creation_mode'] = 'default';
  if (body.use_dashboard !== undefined) {
    const source = Number.isInteger(body.use_dashboard) ? dashboardById(store, ctx.project.id, body.use_dashboard as number) : undefined;
    if (!source || source.deleted) throw errors.validation('Invalid value provided', 'use_dashboard');
    mode = 'duplicate';
    tiles = await copiedTiles(store, writes, source, pythonTruthy(body.duplicate_tiles), ctx, now);
  }
  const at = now.toISOString();
  const { dashboard } = await writes.submit(insertDashboardCommand, {
    fields: {
      project_id: ctx.project.id, name: f.name ?? null, description: f.description ?? '', pinned: f.pinned ?? false, tags: f.tags ?? [],
      filters: f.filters ?? {}, variables: f.variables ?? {}, breakdown_colors: f.breakdown_colors ?? [], data_color_theme_id: f.data_color_theme_id ?? null,
      restriction_level: f.restriction_level ?? EVERYONE_CAN_EDIT, creation_mode: mode, deleted: false,
      created_at: at, created_by: ctx.user.id, last_accessed_at: null, last_refresh: null,
    },
    tiles,
  });
  return dashboard;
}

// PostHog reads `duplicate_tiles` by Python's truth: any non-empty value copies the insights.
function pythonTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (isRecord(v)) return Object.keys(v).length > 0;
  return Boolean(v);
}

// The live tiles of a dashboard being copied. A plain copy puts the same insights on the new
// dashboard; with `duplicate_tiles` each insight is copied first (./insights' copyInsight) and
// the new tile shows the copy, so changing one dashboard's insights leaves the other's alone.
// Text cards are copied either way (a text belongs to its tile here); layouts, colours and
// filter overrides follow the source tile.
async function copiedTiles(store: DashboardsTables & InsightsTables, writes: StateWrites, source: DashboardRecord, deep: boolean, ctx: ProjectContext, now: Date) {
  const at = now.toISOString();
  const out: Omit<TileWrite, 'dashboard_id'>[] = [];
  for (const t of dashboardTiles(store, ctx.project.id, source.id).filter((x) => !x.deleted).sort(layoutOrder)) {
    let insightId = t.insight_id;
    if (deep && insightId !== null) {
      const insight = insightById(store, ctx.project.id, insightId);
      if (!insight) continue;
      insightId = (await copyInsight(writes, insight, ctx, now)).id;
    }
    const text = t.text && (deep ? { body: t.text.body, created_by: ctx.user.id, last_modified_by: ctx.user.id, last_modified_at: at } : { ...t.text, id: undefined });
    out.push({ project_id: t.project_id, insight_id: insightId, layouts: t.layouts, color: t.color, filters_overrides: t.filters_overrides, deleted: false, text });
  }
  return out;
}

const objectField = (entry: Body, field: string): Body | undefined => {
  const v = entry[field];
  if (v === undefined) return undefined;
  if (!isRecord(v)) throw errors.validation('Expected a dictionary of items.', `tiles.${field}`, 'not_a_dict');
  return v;
};

// The body's `tiles`: each entry upserts a text card (with `text`) or changes a tile's
// deleted, color, layouts and filters_overrides by id; a tile's insight never changes here.
function tileWrites(existing: TileRecord[], entries: unknown, d: DashboardRecord, ctx: ProjectContext, at: string): TileWrite[] {
  if (!Array.isArray(entries)) throw errors.validation('Expected a list of items.', 'tiles', 'not_a_list');
  return entries.map((entry): TileWrite => {
    if (!isRecord(entry)) throw errors.validation('Expected a dictionary of items.', 'tiles', 'not_a_dict');
    const found = entry.id === undefined ? undefined : existing.find((t) => t.id === entry.id);
    if (entry.id !== undefined && !found) throw errors.validation(`Tile ${String(entry.id)} is not on this dashboard.`, 'tiles');
    if (entry.deleted !== undefined && typeof entry.deleted !== 'boolean') throw errors.notABoolean('deleted');
    if (entry.color !== undefined && entry.color !== null && typeof entry.color !== 'string') throw errors.notAString('color');
    const layouts = objectField(entry, 'layouts');
    const overrides = objectField(entry, 'filters_overrides');
    let text: TileWrite['text'] = found?.text ?? null;
    if (entry.text !== undefined) {
      if (!isRecord(entry.text)) throw errors.validation('Expected a dictionary of items.', 'tiles.text', 'not_a_dict');
      const body = entry.text.body ?? null;
      if (body !== null && typeof body !== 'string') throw errors.notAString('body');
      if (typeof body === 'string' && body.length > TEXT_MAX) throw errors.validation('Text body cannot exceed 4000 characters', 'body');
      text = { id: text?.id, body, created_by: text?.created_by ?? ctx.user.id, last_modified_by: ctx.user.id, last_modified_at: at };
    }
    if (!found && !text) throw errors.validation('A new tile needs a text (insights are added with the insight\'s `dashboards`).', 'tiles');
    return {
      id: found?.id, project_id: d.project_id, dashboard_id: d.id, insight_id: found?.insight_id ?? null,
      text,
      layouts: layouts ?? found?.layouts ?? {}, color: entry.color !== undefined ? (entry.color as string | null) : found?.color ?? null,
      filters_overrides: overrides ?? found?.filters_overrides ?? {}, deleted: (entry.deleted as boolean | undefined) ?? found?.deleted ?? false,
    };
  });
}

export async function updateDashboard(store: DashboardsTables, writes: StateWrites, d: DashboardRecord, body: Body, ctx: ProjectContext, now: Date) {
  requireEdit(d, ctx);
  const f = parse(body);
  if (f.restriction_level !== undefined && f.restriction_level !== d.restriction_level && d.created_by !== ctx.user.id && ctx.user.organization_level < OrgLevel.admin) {
    throw errors.permissionDenied("Only the dashboard owner and project admins have the restriction rights required to change the dashboard's restriction level.");
  }
  const at = now.toISOString();
  const next: DashboardRecord = { ...d };
  if (f.name !== undefined) next.name = f.name;
  if (f.description !== undefined) next.description = f.description ?? '';
  if (f.pinned !== undefined) next.pinned = f.pinned;
  if (f.tags !== undefined) next.tags = f.tags;
  if (f.filters !== undefined) next.filters = f.filters;
  if (f.variables !== undefined) next.variables = f.variables;
  if (f.restriction_level !== undefined) next.restriction_level = f.restriction_level;
  if (f.breakdown_colors !== undefined) next.breakdown_colors = f.breakdown_colors;
  if (f.data_color_theme_id !== undefined) next.data_color_theme_id = f.data_color_theme_id;
  const existing = dashboardTiles(store, d.project_id, d.id);
  let tiles: TileWrite[] = body.tiles !== undefined ? tileWrites(existing, body.tiles, d, ctx, at) : [];
  if (f.deleted !== undefined && f.deleted !== d.deleted) {
    next.deleted = f.deleted;
    // Deleting a dashboard deletes its tiles; undeleting it brings them back.
    tiles = existing.map((t) => ({ ...t, deleted: f.deleted as boolean }));
  }
  const { dashboard } = await writes.submit(saveDashboardCommand, { dashboard: next, tiles });
  return dashboard;
}
