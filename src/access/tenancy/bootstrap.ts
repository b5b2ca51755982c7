// First start: an organization, project 1, an admin user. `init` and an empty
// `serve` share this so both leave the data dir in the same state. It is one command
// (tenancy.bootstrap), which creates only what is missing: with a control stream, the
// nodes of a cluster bootstrap it once, whichever submits first, and a node joining later
// finds the state already there (docs/decisions/0031).
import type { TenancyStore } from './store.js';
import { AppliedElsewhereError } from '../../state/errors.js';
import type { Project, User } from './types.js';

export interface Bootstrapped {
  project: Project;
  admin: User;
  // Whether this call created it (not another node, not an earlier start).
  created: boolean;
}

export const ADMIN_EMAIL = 'admin@hedgerow.local';

export async function bootstrap(tenancy: TenancyStore): Promise<Bootstrapped> {
  const adminOf = () => tenancy.userByEmail(ADMIN_EMAIL) ?? tenancy.users()[0];
  let created = false;
  if (!tenancy.project(1) || !adminOf()) {
    try {
      created = (await tenancy.submitBootstrap(ADMIN_EMAIL)).created;
    } catch (err) {
      // A `serve` on this data dir applied it first: it is there all the same.
      if (!(err instanceof AppliedElsewhereError)) throw err;
    }
  }
  return { project: tenancy.project(1)!, admin: adminOf()!, created };
}
