// Public face of tenancy: organizations, projects, users and personal keys, their
// storage, their write commands and the first-start bootstrap.
export { createTenancyStore, type TenancyStore } from './store.js';
export { tenancyCommands, DuplicateEmailError } from './commands.js';
export { bootstrap, ADMIN_EMAIL, type Bootstrapped } from './bootstrap.js';
export { withTenancy } from './open.js';
export { hashKey, sameHash } from './keys.js';
export { OrgLevel, type Organization, type OrgLevelName, type PersonalKey, type Project, type User } from './types.js';
