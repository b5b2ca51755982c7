// Cohorts under /api/projects/:id/cohorts/ and its /api/environments/ twin (scope
// cohort). As for flags, DELETE answers 405: deleting is PATCH {"deleted": true}.
import type { AuthContext, ManagementAuth, ProjectContext } from '../../auth/management.js';
import { jsonObject } from '../../http/body.js';
import { paginate } from '../../http/paginate.js';
import { json } from '../../http/reply.js';
import type { HttpRequest, Route } from '../../http/types.js';
import type { Store } from '../../store/env.js';
import type { TenancyStore } from '../../tenancy/store.js';
import { cohortById, projectCohorts } from '../definitions/store.js';
import type { StoredCohort } from '../definitions/types.js';
import { cohortResponse } from './cohort-serialize.js';
import { createCohort, updateCohort } from './cohort-write.js';
import { recordById, writeContext } from './project-request.js';

// The list filters of PostHog's cohort list.
function listFilter(req: HttpRequest): (c: StoredCohort) => boolean {
  const type = req.query.get('type');
  const search = req.query.get('search')?.toLowerCase();
  const createdBy = req.query.get('created_by_id');
  return (c) => {
    if (type === 'static' && !c.is_static) return false;
    if (type === 'dynamic' && c.is_static) return false;
    if (search && !(c.name ?? '').toLowerCase().includes(search)) return false;
    if (createdBy !== null && String(c.created_by) !== createdBy) return false;
    return true;
  };
}

const newestFirst = (a: StoredCohort, b: StoredCohort) => b.created_at.localeCompare(a.created_at) || b.id - a.id;

export function cohortRoutes(auth: ManagementAuth, store: Store, tenancy: TenancyStore): Route[] {
  const present = (c: StoredCohort) => cohortResponse(c, tenancy);
  const lookup = (req: HttpRequest, ctx: AuthContext) => recordById(req, ctx, (projectId, id) => cohortById(store, projectId, id));

  return ['/api/projects', '/api/environments'].flatMap((prefix) => {
    const list = `${prefix}/:project_id/cohorts`;
    const one = `${list}/:id`;
    return [
      auth.route({
        methods: ['GET'], pattern: list, scope: 'cohort',
        handler(req, ctx) {
          const cohorts = projectCohorts(store, (ctx as ProjectContext).project.id)
            .filter((c) => !c.deleted).filter(listFilter(req)).sort(newestFirst);
          const page = paginate(req, cohorts);
          return json(200, { ...page, results: page.results.map(present) });
        },
      }),
      auth.route({
        methods: ['POST'], pattern: list, scope: 'cohort',
        handler: (req, ctx) => json(201, present(createCohort(jsonObject(req), writeContext(store, ctx)))),
      }),
      auth.route({
        methods: ['GET'], pattern: one, scope: 'cohort',
        handler: (req, ctx) => json(200, present(lookup(req, ctx))),
      }),
      auth.route({
        methods: ['PATCH'], pattern: one, scope: 'cohort',
        handler: (req, ctx) => json(200, present(updateCohort(lookup(req, ctx), jsonObject(req), writeContext(store, ctx)))),
      }),
      auth.route({
        methods: ['DELETE'], pattern: one, scope: 'cohort',
        handler: () => ({ status: 405, body: null }),
      }),
    ];
  });
}
