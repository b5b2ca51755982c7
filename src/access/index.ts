// Public face of access: organizations, projects, users, explicit members, personal keys,
// scopes and the authentication of the management API. Other domains import only this.
export { createTenancyStore, type TenancyStore } from './tenancy/store.js';
export { tenancyCommands, DuplicateEmailError } from './tenancy/commands.js';
export { bootstrap, ADMIN_EMAIL, type Bootstrapped } from './tenancy/bootstrap.js';
export { withTenancy } from './tenancy/open.js';
export { hashKey, sameHash } from './tenancy/keys.js';
export { OrgLevel, type Organization, type OrgLevelName, type PersonalKey, type Project, type User } from './tenancy/types.js';
export {
  createManagementAuth, type AuthContext, type ManagementAuth, type ProjectContext,
} from './auth/management.js';
export { createRateLimiter } from './auth/rate-limit.js';
export { resourceRoutes } from './auth/resource-routes.js';
export { ALL_SCOPES, SCOPE_OBJECTS, accessFor } from './auth/scopes.js';
export { createMemberStore, type MemberStore } from './members/store.js';
export { memberCommands } from './members/commands.js';
export { createProjectAccess, effectiveLevel, type ProjectAccess } from './members/access.js';
export { memberRoutes } from './members/routes.js';
export { projectRoutes } from './projects/routes.js';
export { userRoutes } from './users/routes.js';
export { userBasic } from './users/serialize.js';
export type { AccessTables } from './tables.js';
