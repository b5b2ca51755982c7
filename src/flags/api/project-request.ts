// What the flag and cohort routes take from an authenticated project request: the
// context their writes run in, and the record a numeric `:id` names (404 otherwise).
import type { AuthContext, ProjectContext } from '../../auth/management.js';
import { errors } from '../../errors.js';
import type { HttpRequest } from '../../http/types.js';
import type { Store } from '../../store/env.js';
import type { WriteContext } from './flag-write.js';

export function writeContext(store: Store, ctx: AuthContext): WriteContext {
  const { project, user } = ctx as ProjectContext;
  return { store, project, user, now: new Date() };
}

export function recordById<T>(req: HttpRequest, ctx: AuthContext, find: (projectId: number, id: number) => T | undefined): T {
  const id = req.params.id;
  const record = /^\d+$/.test(id) ? find((ctx as ProjectContext).project.id, Number(id)) : undefined;
  if (!record) throw errors.notFound();
  return record;
}
