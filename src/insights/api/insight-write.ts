// Creating and changing an insight from a request body, field by field as PostHog's
// InsightSerializer reads them (the first bad field is the error). A query must be one the
// engine runs; legacy `filters` are kept as given.
import type { ProjectContext } from '../../access/index.js';
import { errors } from '../../errors.js';
import type { StateWrites } from '../../state/index.js';
import { QueryError } from '../planner/errors.js';
import { parseQuery } from '../schemas.js';
import { insertInsightCommand, saveInsightCommand, ShortIdTakenError } from './commands.js';
import { newShortId, type InsightRecord } from './insight-store.js';
import type { InsightLinks } from './links.js';

type Body = Record<string, unknown>;

const TEXT_MAX = 400;

function text(body: Body, field: string, nullable: boolean): string | null | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (v === null) {
    if (!nullable) throw errors.nullField(field);
    return null;
  }
  if (typeof v !== 'string' && typeof v !== 'number') throw errors.notAString(field);
  const s = String(v);
  if (s.length > TEXT_MAX) throw errors.tooLong(field, TEXT_MAX);
  return s;
}

function flag(body: Body, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw errors.notABoolean(field);
  return v;
}

function query(body: Body): Record<string, unknown> | null | undefined {
  const v = body.query;
  if (v === undefined || v === null) return v;
  try {
    parseQuery(v);
  } catch (err) {
    if (err instanceof QueryError) throw errors.validation(err.message, err.attr ? `query.${err.attr}` : 'query');
    throw err;
  }
  return v as Record<string, unknown>;
}

function parse(body: Body) {
  const tags = body.tags;
  if (tags !== undefined && (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string'))) throw errors.validation('Expected a list of items.', 'tags', 'not_a_list');
  const order = body.order;
  if (order !== undefined && order !== null && !Number.isInteger(order)) throw errors.validation('A valid integer is required.', 'order', 'invalid');
  const filters = body.filters;
  if (filters !== undefined && filters !== null && (typeof filters !== 'object' || Array.isArray(filters))) throw errors.validation('Expected a dictionary of items.', 'filters', 'not_a_dict');
  const dashboards = body.dashboards;
  if (dashboards !== undefined && (!Array.isArray(dashboards) || !dashboards.every((d) => Number.isInteger(d)))) {
    throw errors.validation('Expected a list of items.', 'dashboards', 'not_a_list');
  }
  return {
    name: text(body, 'name', true),
    derived_name: text(body, 'derived_name', true),
    description: text(body, 'description', true),
    query: query(body),
    filters: filters as Record<string, unknown> | null | undefined,
    order: order as number | null | undefined,
    deleted: flag(body, 'deleted'),
    saved: flag(body, 'saved'),
    favorited: flag(body, 'favorited'),
    tags: tags as string[] | undefined,
    dashboards: dashboards as number[] | undefined,
  };
}

export async function createInsight(writes: StateWrites, links: InsightLinks, body: Body, ctx: ProjectContext, now: Date): Promise<InsightRecord> {
  const { project, user } = ctx;
  const f = parse(body);
  if (f.dashboards) links.check(ctx, f.dashboards, null);
  const at = now.toISOString();
  for (;;) {
    try {
      const insight = await writes.submit(insertInsightCommand, {
        short_id: newShortId(), project_id: project.id, name: f.name ?? null, derived_name: f.derived_name ?? null,
        description: f.description ?? '', query: f.query ?? null, filters: f.filters ?? {}, order: f.order ?? null,
        deleted: f.deleted ?? false, saved: f.saved ?? false, favorited: f.favorited ?? false, tags: f.tags ?? [],
        created_at: at, created_by: user.id, updated_at: at, last_modified_at: at, last_modified_by: user.id,
      });
      await links.written(ctx, insight, f.dashboards);
      return insight;
    } catch (err) {
      // One in 62^8 per insight of the project: draw another.
      if (!(err instanceof ShortIdTakenError)) throw err;
    }
  }
}

// A dashboard copied with its insights (PostHog's `duplicate_tiles`): a new insight showing
// what the source shows, under a new id and short id, named "<name> (Copy)" (an unnamed one
// stays unnamed), created now by the copier; it is on no dashboard until the copy's tile is
// written.
export async function copyInsight(writes: StateWrites, source: InsightRecord, ctx: ProjectContext, now: Date): Promise<InsightRecord> {
  const at = now.toISOString();
  const { id: _id, short_id: _shortId, ...fields } = source;
  for (;;) {
    try {
      return await writes.submit(insertInsightCommand, {
        ...fields, short_id: newShortId(), project_id: ctx.project.id, name: source.name ? `${source.name} (Copy)` : null,
        tags: [...source.tags], created_at: at, created_by: ctx.user.id, updated_at: at, last_modified_at: at, last_modified_by: ctx.user.id,
      });
    } catch (err) {
      if (!(err instanceof ShortIdTakenError)) throw err;
    }
  }
}

export async function updateInsight(writes: StateWrites, links: InsightLinks, insight: InsightRecord, body: Body, ctx: ProjectContext, now: Date): Promise<InsightRecord> {
  const { user } = ctx;
  const f = parse(body);
  if (f.dashboards) links.check(ctx, f.dashboards, insight.id);
  const at = now.toISOString();
  const next: InsightRecord = { ...insight, updated_at: at };
  if (f.name !== undefined) next.name = f.name;
  if (f.derived_name !== undefined) next.derived_name = f.derived_name;
  if (f.description !== undefined) next.description = f.description ?? '';
  if (f.query !== undefined) next.query = f.query;
  if (f.filters !== undefined) next.filters = f.filters ?? {};
  if (f.order !== undefined) next.order = f.order;
  if (f.deleted !== undefined) next.deleted = f.deleted;
  if (f.saved !== undefined) next.saved = f.saved;
  if (f.favorited !== undefined) next.favorited = f.favorited;
  if (f.tags !== undefined) next.tags = f.tags;
  // What the insight shows changed: last_modified moves (a favorite or a tag does not).
  if (f.name !== undefined || f.description !== undefined || f.query !== undefined || f.filters !== undefined || f.deleted !== undefined) {
    next.last_modified_at = at;
    next.last_modified_by = user.id;
  }
  const saved = await writes.submit(saveInsightCommand, next);
  await links.written(ctx, saved, f.dashboards);
  return saved;
}
