// The actions module's start: the API, and who is told when an action's steps change (the
// hog functions whose filters name it compile them again).
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import type { Project } from '../access/index.js';
import type { ActionsTables } from './tables.js';
import { actionRoutes } from './routes.js';

export type ActionChanged = (project: Project, actionId: number) => Promise<void>;

export interface ActionsProvides {
  // Called after an action's steps changed or it was deleted or brought back, with the
  // request waiting for every listener.
  onChanged(listener: ActionChanged): void;
}

export async function startActions(ctx: NodeContext<ActionsTables>, use: Use): Promise<Started<ActionsProvides>> {
  const { auth, tenancy } = use(accessModule);
  const listeners: ActionChanged[] = [];
  const changed = async (projectId: number, actionId: number) => {
    const project = tenancy.project(projectId);
    if (project) for (const listener of listeners) await listener(project, actionId);
  };
  return {
    provides: { onChanged: (listener) => { listeners.push(listener); } },
    routes: actionRoutes({
      auth, store: ctx.store, writes: ctx.writes, tenancy, now: () => new Date(),
      changed: (a) => changed(a.project_id, a.id),
    }),
  };
}
