// Dashboards under /api/projects/:project_id/dashboards/ and /api/environments/ (scope
// dashboard): list (pinned first, then by name; `tags`, `exclude_generated`), create (or copy
// with `use_dashboard`), read with tiles (`refresh` as for insights, default force_cache;
// `filters_override`, `variables_override`), PATCH (fields, `tiles`, `deleted`), DELETE 405.
import { resourceRoutes, type ManagementAuth, type TenancyStore } from '../access/index.js';
import { errors } from '../errors.js';
import type { Route } from '../http/types.js';
import { refreshMode, type InsightsTables } from '../insights/index.js';
import type { StateWrites } from '../state/index.js';
import { basicBody, fullBody, type PresentInsight } from './present.js';
import { dashboardById, projectDashboards, type DashboardRecord } from './records.js';
import type { DashboardsTables } from './tables.js';
import { createDashboard, updateDashboard } from './write.js';

export interface DashboardRoutesDeps {
  auth: ManagementAuth;
  store: DashboardsTables & InsightsTables;
  writes: StateWrites;
  tenancy: TenancyStore;
  present: PresentInsight;
  now: () => Date;
}

// PostHog's prefix of dashboards it generates (hidden by exclude_generated=true).
const GENERATED_PREFIX = 'Generated Dashboard: ';

function jsonParam(raw: string | null, attr: string): Record<string, unknown> | null {
  if (raw === null || raw === '') return null;
  try {
    const v = JSON.parse(raw) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw errors.validation(`Invalid JSON passed in ${attr} parameter`, attr);
}

const listOrder = (a: DashboardRecord, b: DashboardRecord) => Number(b.pinned) - Number(a.pinned) || (a.name ?? '').localeCompare(b.name ?? '') || a.id - b.id;

export function dashboardRoutes({ auth, store, writes, tenancy, present, now }: DashboardRoutesDeps): Route[] {
  return resourceRoutes<DashboardRecord>(auth, {
    path: 'dashboards', scope: 'dashboard',
    list(req, { project }) {
      const tags = req.query.getAll('tags');
      const excludeGenerated = req.query.get('exclude_generated') === 'true';
      return projectDashboards(store, project.id)
        .filter((d) => !d.deleted)
        .filter((d) => tags.length === 0 || d.tags.some((t) => tags.includes(t)))
        .filter((d) => !excludeGenerated || !(d.name ?? '').startsWith(GENERATED_PREFIX))
        .sort(listOrder);
    },
    find: (projectId, id) => dashboardById(store, projectId, id),
    create: (body, ctx) => createDashboard(store, writes, body, ctx, now()),
    update(d, body, ctx) {
      // A deleted dashboard is gone but for the one request that brings it back.
      if (d.deleted && !(Object.keys(body).length === 1 && body.deleted === false)) throw errors.notFound();
      return updateDashboard(store, writes, d, body, ctx, now());
    },
    presenter(ctx, req) {
      const listing = req.method === 'GET' && !req.params.id;
      if (listing) return (d) => basicBody(d, ctx, tenancy);
      const mode = refreshMode(req.query.get('refresh'), 'force_cache');
      if (mode === null) throw errors.invalidChoice(req.query.get('refresh'), 'refresh');
      const filtersOverride = jsonParam(req.query.get('filters_override'), 'filters_override');
      const variablesOverride = jsonParam(req.query.get('variables_override'), 'variables_override');
      return (d) => {
        if (req.method === 'GET' && d.deleted) throw errors.notFound();
        return fullBody(d, ctx, { store, tenancy, present, mode, filtersOverride, variablesOverride });
      };
    },
  });
}
