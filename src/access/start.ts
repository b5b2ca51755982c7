// The access module's start: the tenancy store (bootstrapped on an empty data dir, its keys
// written once to the node's banner stream), explicit members, and the management API's
// authentication, which every module with management routes uses.
import type { NodeContext } from '../modules/index.js';
import type { Started } from '../modules/index.js';
import type { AccessTables } from './tables.js';
import { createTenancyStore, type TenancyStore } from './tenancy/store.js';
import { bootstrap } from './tenancy/bootstrap.js';
import { createManagementAuth, type ManagementAuth } from './auth/management.js';
import { createRateLimiter } from './auth/rate-limit.js';
import { ALL_SCOPES } from './auth/scopes.js';
import { createMemberStore } from './members/store.js';
import { createProjectAccess, type ProjectAccess } from './members/access.js';
import { projectRoutes } from './projects/routes.js';
import { memberRoutes } from './members/routes.js';
import { userRoutes } from './users/routes.js';
import { createSessionStore, type SessionStore } from './sessions/store.js';
import { createAttemptLimiter } from './sessions/attempts.js';
import { sessionRoutes } from './sessions/routes.js';

// The window failed sign-ins are counted in (HEDGEROW_SIGNIN_ATTEMPTS per email and address).
const SIGN_IN_WINDOW_MS = 15 * 60_000;

export type AccessTablesUsed = AccessTables;

export interface AccessProvides {
  tenancy: TenancyStore;
  auth: ManagementAuth;
  access: ProjectAccess;
  sessions: SessionStore;
}

export async function startAccess(ctx: NodeContext<AccessTablesUsed>): Promise<Started<AccessProvides>> {
  const tenancy = createTenancyStore(ctx.store, ctx.writes);
  const boot = await bootstrap(tenancy);
  if (boot.created) {
    const { key } = await tenancy.createPersonalKey(boot.admin.id, [...ALL_SCOPES], null, 'bootstrap');
    ctx.out.write(
      '\n  hedgerow: new data directory initialised\n' +
      `  project id:        ${boot.project.id}\n` +
      `  project API key:   ${boot.project.api_token}\n` +
      `  personal API key:  ${key}   (shown once; store it now)\n` +
      `  admin user:        ${boot.admin.email}   (\`hedgerow init\` mints another personal key)\n\n`,
    );
  }
  const members = createMemberStore(ctx.store, ctx.writes);
  const access = createProjectAccess(members);
  const ttlMs = ctx.config.app.sessionSeconds * 1000;
  const sessions = createSessionStore({ store: ctx.store, writes: ctx.writes, ttlMs });
  const attempts = createAttemptLimiter({ store: ctx.store, writes: ctx.writes, limit: ctx.config.app.signInAttempts, windowMs: SIGN_IN_WINDOW_MS });
  const auth = createManagementAuth({
    tenancy, sessions, onAuthFailure: (reason) => ctx.metrics.authFailures.inc({ reason }), projectAccess: access.check,
    rateLimit: createRateLimiter({ limit: ctx.config.managementRateLimitPerMinute, windowMs: 60_000 }),
  });
  return {
    provides: { tenancy, auth, access, sessions },
    routes: [
      ...projectRoutes({ auth, tenancy, access }),
      ...memberRoutes({ auth, tenancy, members, access }),
      ...userRoutes({ auth, tenancy }),
      ...sessionRoutes({ tenancy, sessions, attempts, ttlMs }),
    ],
  };
}
