// Cohorts under /api/projects/:id/cohorts/ and its /api/environments/ twin (scope
// cohort). As for flags, DELETE answers 405: deleting is PATCH {"deleted": true}.
import { resourceRoutes } from '../../access/index.js';
import { errors } from '../../errors.js';
import { jsonObject } from '../../http/body.js';
import { formObject, multipartBoundary } from '../../http/multipart.js';
import { csvDistinctIds } from './cohort-csv.js';
import type { HttpRequest, Route } from '../../http/types.js';
import { cohortById, projectCohorts } from '../definitions/store.js';
import type { StoredCohort } from '../definitions/types.js';
import { cohortResponse } from './cohort-serialize.js';
import { createCohort, updateCohort } from './cohort-write.js';
import { writeContext } from './flag-write.js';
import type { FlagRoutesDeps } from './flag-routes.js';

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

// PostHog's cohort form (a CSV upload): text fields, `is_static` as form booleans, `filters`
// as JSON text, the `csv` file as its text.
function cohortBody(req: HttpRequest): Record<string, unknown> {
  const boundary = multipartBoundary(req);
  if (boundary === null) return jsonObject(req);
  const form = formObject(req, boundary);
  for (const field of ['is_static', 'deleted']) {
    if (typeof form[field] === 'string') form[field] = ['true', 'True', '1', 'on'].includes(form[field] as string);
  }
  if (typeof form.filters === 'string') {
    try {
      form.filters = JSON.parse(form.filters);
    } catch {
      throw errors.validation('Value must be valid JSON.', 'filters');
    }
  }
  return form;
}

const newestFirst = (a: StoredCohort, b: StoredCohort) => b.created_at.localeCompare(a.created_at) || b.id - a.id;

export function cohortRoutes({ auth, store, writes, tenancy }: FlagRoutesDeps): Route[] {
  return resourceRoutes<StoredCohort>(auth, {
    path: 'cohorts', scope: 'cohort',
    list: (req, { project }) => projectCohorts(store, project.id).filter((c) => !c.deleted).filter(listFilter(req)).sort(newestFirst),
    find: (projectId, id) => cohortById(store, projectId, id),
    body: cohortBody,
    create: (body, ctx) => createCohort(body, writeContext(store, writes, ctx), (csv) => csvDistinctIds(store, ctx.project.id, csv)),
    update: (cohort, body, ctx) => updateCohort(cohort, body, writeContext(store, writes, ctx), (csv) => csvDistinctIds(store, ctx.project.id, csv)),
    presenter: () => (cohort) => cohortResponse(cohort, tenancy),
  });
}
