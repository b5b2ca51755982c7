// Feature flag management under /api/projects/:id/feature_flags/ and its
// /api/environments/ twin (scope feature_flag). DELETE answers 405 as in PostHog:
// deleting is PATCH {"deleted": true}.
import { type ManagementAuth, resourceRoutes, type TenancyStore } from '../../access/index.js';
import type { HttpRequest, Route } from '../../http/types.js';
import type { PersonsTables } from '../../persons/index.js';
import type { FlagsTables } from '../tables.js';
import type { StateWrites } from '../../state/index.js';
import { flagById, projectCohorts, projectFlags } from '../definitions/store.js';
import type { StoredFlag } from '../definitions/types.js';
import { flagResponse } from './flag-serialize.js';
import { createFlag, updateFlag, writeContext } from './flag-write.js';

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

// What the flag and cohort management routes are built over.
export interface FlagRoutesDeps {
  auth: ManagementAuth;
  // Persons: a static cohort's CSV names members by person UUID or email too.
  store: FlagsTables & PersonsTables;
  writes: StateWrites;
  tenancy: TenancyStore;
}

export function flagRoutes({ auth, store, writes, tenancy }: FlagRoutesDeps): Route[] {
  return resourceRoutes<StoredFlag>(auth, {
    path: 'feature_flags', scope: 'feature_flag',
    list: (req, { project }) => projectFlags(store, project.id).filter((f) => !f.deleted).filter(listFilter(req)).sort(newestFirst),
    find: (projectId, id) => flagById(store, projectId, id),
    create: (body, ctx) => createFlag(body, writeContext(store, writes, ctx)),
    update: (flag, body, ctx) => updateFlag(flag, body, writeContext(store, writes, ctx)),
    presenter({ project }) {
      const cohorts = new Map(projectCohorts(store, project.id).map((c) => [c.id, c]));
      return (flag) => flagResponse(flag, tenancy, cohorts);
    },
  });
}
