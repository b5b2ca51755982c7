// Actions under /api/projects/:project_id/actions/ and /api/environments/ (scope action):
// list (live ones, by name), create, read, PATCH (fields, steps, `deleted`), DELETE 405.
import { resourceRoutes, type ManagementAuth, type TenancyStore } from '../access/index.js';
import { errors } from '../errors.js';
import type { Route } from '../http/types.js';
import type { StateWrites } from '../state/index.js';
import { actionBody } from './present.js';
import { actionById, projectActions, type ActionRecord } from './records.js';
import type { ActionsTables } from './tables.js';
import { createAction, updateAction } from './write.js';

export interface ActionRoutesDeps {
  auth: ManagementAuth;
  store: ActionsTables;
  writes: StateWrites;
  tenancy: TenancyStore;
  // Told after an action's steps (or its deletion) changed, so what compiled them follows.
  changed: (action: ActionRecord) => Promise<void>;
  now: () => Date;
}

const listOrder = (a: ActionRecord, b: ActionRecord) => (a.name ?? '').localeCompare(b.name ?? '') || a.id - b.id;

export function actionRoutes({ auth, store, writes, tenancy, changed, now }: ActionRoutesDeps): Route[] {
  return resourceRoutes<ActionRecord>(auth, {
    path: 'actions', scope: 'action',
    list: (_req, { project }) => projectActions(store, project.id).filter((a) => !a.deleted).sort(listOrder),
    find: (projectId, id) => actionById(store, projectId, id),
    create: (body, ctx) => createAction(store, writes, body, ctx, now()),
    async update(a, body, ctx) {
      // A deleted action is gone but for the one request that brings it back.
      if (a.deleted && body.deleted !== false) throw errors.notFound();
      const saved = await updateAction(store, writes, a, body, ctx, now());
      if (saved.deleted !== a.deleted || body.steps !== undefined) await changed(saved);
      return saved;
    },
    presenter(_ctx, req) {
      return (a) => {
        if (req.method === 'GET' && a.deleted) throw errors.notFound();
        return actionBody(a, tenancy);
      };
    },
  });
}
