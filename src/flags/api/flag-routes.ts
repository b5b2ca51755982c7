// Feature flag management under /api/projects/:id/feature_flags/ and its
// /api/environments/ twin (scope feature_flag). DELETE answers 405 as in PostHog:
// deleting is PATCH {"deleted": true}.
import type { AuthContext, ManagementAuth, ProjectContext } from '../../auth/management.js';
import { jsonObject } from '../../http/body.js';
import { paginate } from '../../http/paginate.js';
import { json } from '../../http/reply.js';
import type { HttpRequest, Route } from '../../http/types.js';
import type { Store } from '../../store/env.js';
import type { TenancyStore } from '../../tenancy/store.js';
import { flagById, projectCohorts, projectFlags } from '../definitions/store.js';
import type { StoredFlag } from '../definitions/types.js';
import { flagResponse } from './flag-serialize.js';
import { createFlag, updateFlag } from './flag-write.js';
import { recordById, writeContext } from './project-request.js';

// The list filters of PostHog's flag list that apply here.
function listFilter(req: HttpRequest): (f: StoredFlag) => boolean {
  const active = req.query.get('active');
  const search = req.query.get('search')?.toLowerCase();
  const type = req.query.get('type');
  const createdBy = req.query.get('created_by_id');
  return (f) => {
    if (active === 'true' || active === 'false') { if (f.active !== (active === 'true')) return false; }
    if (search && !f.key.toLowerCase().includes(search) && !f.name.toLowerCase().includes(search)) return false;
    const variants = f.filters.multivariate?.variants?.length ?? 0;
    if (type === 'boolean' && variants > 0) return false;
    if (type === 'multivariant' && variants === 0) return false;
    if (createdBy !== null && String(f.created_by) !== createdBy) return false;
    return true;
  };
}

// Newest first, as PostHog lists them.
const newestFirst = (a: StoredFlag, b: StoredFlag) => b.created_at.localeCompare(a.created_at) || b.id - a.id;

export function flagRoutes(auth: ManagementAuth, store: Store, tenancy: TenancyStore): Route[] {
  const cohortsOf = (projectId: number) => new Map(projectCohorts(store, projectId).map((c) => [c.id, c]));
  const present = (flag: StoredFlag) => flagResponse(flag, tenancy, cohortsOf(flag.project_id));
  const lookup = (req: HttpRequest, ctx: AuthContext) => recordById(req, ctx, (projectId, id) => flagById(store, projectId, id));

  return ['/api/projects', '/api/environments'].flatMap((prefix) => {
    const list = `${prefix}/:project_id/feature_flags`;
    const one = `${list}/:id`;
    return [
      auth.route({
        methods: ['GET'], pattern: list, scope: 'feature_flag',
        handler(req, ctx) {
          const cohorts = cohortsOf((ctx as ProjectContext).project.id);
          const flags = projectFlags(store, (ctx as ProjectContext).project.id)
            .filter((f) => !f.deleted).filter(listFilter(req)).sort(newestFirst);
          const page = paginate(req, flags);
          return json(200, { ...page, results: page.results.map((f) => flagResponse(f, tenancy, cohorts)) });
        },
      }),
      auth.route({
        methods: ['POST'], pattern: list, scope: 'feature_flag',
        handler: (req, ctx) => json(201, present(createFlag(jsonObject(req), writeContext(store, ctx)))),
      }),
      auth.route({
        methods: ['GET'], pattern: one, scope: 'feature_flag',
        handler: (req, ctx) => json(200, present(lookup(req, ctx))),
      }),
      auth.route({
        methods: ['PATCH'], pattern: one, scope: 'feature_flag',
        handler: (req, ctx) => json(200, present(updateFlag(lookup(req, ctx), jsonObject(req), writeContext(store, ctx)))),
      }),
      auth.route({
        methods: ['DELETE'], pattern: one, scope: 'feature_flag',
        handler: () => ({ status: 405, body: null }),
      }),
    ];
  });
}
