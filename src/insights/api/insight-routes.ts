// Saved insights under /api/projects/:project_id/insights/ and its /api/environments/ twin
// (scope insight): list (short_id, created_by, saved, favorited, search; ?format=csv gives
// the insights' results as CSV), create, read, PATCH (PATCH {"deleted": true} deletes),
// DELETE 405. Each insight carries the result of its query under the request's refresh
// mode (default force_cache: the cached result or none), with PostHog's cache fields.
import { type ManagementAuth, type ProjectContext, resourceRoutes, type TenancyStore, userBasic } from '../../access/index.js';
import { errors } from '../../errors.js';
import type { HttpRequest, HttpResponse, Route } from '../../http/types.js';
import type { StateWrites } from '../../state/index.js';
import type { InsightsTables } from '../tables.js';
import { resultTable, toCsv, type Table } from '../csv.js';
import { parseQuery } from '../schemas.js';
import { toApiError } from './errors.js';
import { insightById, projectInsights, type InsightRecord } from './insight-store.js';
import { createInsight, updateInsight } from './insight-write.js';
import type { Answer, QueryService } from './query-service.js';
import { refreshMode } from './refresh.js';
import type { InsightLinks, LinkSlot } from './links.js';

function listFilter(req: HttpRequest): (i: InsightRecord) => boolean {
  const shortId = req.query.get('short_id');
  const createdBy = req.query.get('created_by');
  const saved = req.query.get('saved');
  const favorited = req.query.get('favorited');
  const search = req.query.get('search')?.toLowerCase();
  if (createdBy !== null && !/^\d+$/.test(createdBy)) throw errors.validation('A valid integer is required.', 'created_by', 'invalid');
  return (i) => {
    if (shortId !== null && i.short_id !== shortId) return false;
    if (createdBy !== null && i.created_by !== Number(createdBy)) return false;
    if ((saved === 'true' || saved === 'false') && i.saved !== (saved === 'true')) return false;
    if ((favorited === 'true' || favorited === 'false') && i.favorited !== (favorited === 'true')) return false;
    if (search && !`${i.name ?? ''} ${i.derived_name ?? ''} ${i.description}`.toLowerCase().includes(search)) return false;
    return true;
  };
}

const lastModifiedFirst = (a: InsightRecord, b: InsightRecord) => b.last_modified_at.localeCompare(a.last_modified_at) || b.id - a.id;

// PostHog's access fields for an insight anyone in the project may edit.
const ACCESS = { effective_restriction_level: 21, effective_privilege_level: 37, user_access_level: 'editor' };

export function insightBody(i: InsightRecord, answer: Answer | null, project: ProjectContext['project'], tenancy: TenancyStore, links: InsightLinks, query = i.query): Record<string, unknown> {
  const user = (id: number | null) => {
    const u = id === null ? undefined : tenancy.user(id);
    return u ? userBasic(u) : null;
  };
  const result = answer?.kind === 'result' ? answer : answer?.kind === 'started' ? answer.cached : null;
  const response = result?.response ?? null;
  return {
    id: i.id, short_id: i.short_id, name: i.name, derived_name: i.derived_name, filters: i.filters, query, order: i.order,
    deleted: i.deleted, ...links.of(i.project_id, i.id),
    last_refresh: result?.fields.last_refresh ?? null, cache_target_age: result?.fields.cache_target_age ?? null,
    next_allowed_client_refresh: result?.fields.next_allowed_client_refresh ?? null,
    result: response?.results ?? null, hasMore: response?.hasMore ?? null, columns: response?.columns ?? null,
    created_at: i.created_at, created_by: user(i.created_by), description: i.description, updated_at: i.updated_at, tags: i.tags,
    favorited: i.favorited, saved: i.saved, last_modified_at: i.last_modified_at, last_modified_by: user(i.last_modified_by),
    is_sample: false, ...ACCESS, timezone: project.timezone, is_cached: result?.fields.is_cached ?? false,
    query_status: answer?.kind === 'started' ? answer.queryStatus : answer?.kind === 'result' ? answer.queryStatus : null,
    hogql: null, types: response?.types ?? null,
  };
}

type InsightBody = ReturnType<typeof insightBody>;

/** The listed insights' results in one CSV: the insight's short id and name, then its table. */
function csvOf(insights: readonly InsightBody[]): string {
  const tables: { insight: InsightBody; table: Table }[] = insights
    .filter((i) => i.result !== null && i.query !== null)
    .map((i) => ({ insight: i, table: resultTable({ kind: parseQuery(i.query).kind, results: i.result, columns: (i.columns as string[] | null) ?? undefined, timezone: String(i.timezone) }) }));
  const columns = ['insight', 'name'];
  for (const { table } of tables) for (const c of table.columns) if (!columns.includes(c)) columns.push(c);
  const rows = tables.flatMap(({ insight, table }) => table.rows.map((r) => {
    const row: unknown[] = new Array(columns.length).fill(null);
    row[0] = insight.short_id;
    row[1] = insight.name ?? insight.derived_name;
    table.columns.forEach((c, k) => { row[columns.indexOf(c)] = r[k]; });
    return row;
  }));
  return toCsv({ columns, rows });
}

export interface InsightRoutesDeps {
  auth: ManagementAuth;
  slot: LinkSlot;
  store: InsightsTables;
  writes: StateWrites;
  tenancy: TenancyStore;
  service: QueryService;
  now: () => Date;
}

export function insightRoutes({ auth, slot, store, writes, tenancy, service, now }: InsightRoutesDeps): Route[] {
  return resourceRoutes<InsightRecord>(auth, {
    path: 'insights', scope: 'insight',
    list: (req, { project }) => projectInsights(store, project.id).filter((i) => !i.deleted).filter(listFilter(req)).sort(lastModifiedFirst),
    find: (projectId, id) => insightById(store, projectId, id),
    create: (body, ctx) => createInsight(writes, slot.links, body, ctx, now()),
    update: (insight, body, ctx) => updateInsight(writes, slot.links, insight, body, ctx, now()),
    presenter(ctx, req) {
      const mode = refreshMode(req.query.get('refresh'), 'force_cache');
      if (mode === null) throw errors.invalidChoice(req.query.get('refresh'), 'refresh');
      const listing = req.method === 'GET' && !req.params.id;
      return async (insight) => {
        let answer: Answer | null = null;
        if (insight.query) {
          try {
            answer = await service.answer(ctx.project, insight.query, { mode, insightId: insight.id });
          } catch (err) {
            // One insight's failure does not fail a list; a single insight reports it.
            if (!listing) throw toApiError(err);
          }
        }
        return insightBody(insight, answer, ctx.project, tenancy, slot.links);
      };
    },
    renderList(req, _ctx, shown): HttpResponse | null {
      const format = req.query.get('format') ?? 'json';
      if (format !== 'json' && format !== 'csv') throw errors.validation('format must be csv or json.', 'format');
      if (format === 'csv') return { status: 200, headers: { 'Content-Type': 'text/csv; charset=utf-8' }, body: csvOf(shown as InsightBody[]) };
      return null;
    },
  });
}
