// The tenancy writes as commands (src/state/, docs/decisions/0015). Records live in the
// tenancy database under [kind, id], with indexes by token hash, email, uuid and key id.
// Ids of projects and users are sequences the applier assigns; uuids, tokens, hashes and
// timestamps come in the payload.
import type { AccessTables } from '../tables.js';
import { commandsOn } from '../../state/index.js';
import type { Organization, PersonalKey, Project, User } from './types.js';

// The tenancy commands apply to access's table.
const defineCommand = commandsOn<AccessTables>();

function nextId(store: AccessTables, kind: string): number {
  const n = ((store.tenancy.get(['seq', kind]) as number | undefined) ?? 0) + 1;
  store.tenancy.put(['seq', kind], n);
  return n;
}

export const createOrganization = defineCommand('tenancy.create_organization', (store, org: Organization): Organization => {
  store.tenancy.put(['org', org.id], org);
  return org;
});

export interface NewProject extends Omit<Project, 'id'> {
  // SHA-256 of api_token: the index capture looks tokens up by.
  token_hash: string;
}

export const createProject = defineCommand('tenancy.create_project', (store, { token_hash, ...fields }: NewProject): Project => {
  const project: Project = { id: nextId(store, 'project'), ...fields };
  store.tenancy.put(['project', project.id], project);
  store.tenancy.put(['project_token', token_hash], project.id);
  return project;
});

export type ProjectPatch = Partial<Pick<Project, 'name' | 'timezone' | 'access_control' | 'week_start_day' | 'test_account_filters' | 'path_cleaning_filters'>>;

export const updateProject = defineCommand('tenancy.update_project', (store, { id, patch }: { id: number; patch: ProjectPatch }): Project | undefined => {
  const current = store.tenancy.get(['project', id]) as Project | undefined;
  if (!current) return undefined;
  const next = { ...current, ...patch };
  store.tenancy.put(['project', id], next);
  return next;
});

export interface TokenRotation {
  id: number;
  api_token: string;
  token_hash: string;
  old_token_hash: string;
}

export const rotateProjectToken = defineCommand('tenancy.rotate_project_token', (store, r: TokenRotation): Project | undefined => {
  const current = store.tenancy.get(['project', r.id]) as Project | undefined;
  if (!current) return undefined;
  const next = { ...current, api_token: r.api_token };
  store.tenancy.remove(['project_token', r.old_token_hash]);
  store.tenancy.put(['project_token', r.token_hash], r.id);
  store.tenancy.put(['project', r.id], next);
  return next;
});

export const setCurrentProject = defineCommand('tenancy.set_current_project', (store, { user_id, project_id }: { user_id: number; project_id: number }): void => {
  const user = store.tenancy.get(['user', user_id]) as User | undefined;
  if (user) store.tenancy.put(['user', user_id], { ...user, current_project_id: project_id });
});

export class DuplicateEmailError extends Error {}

export const createUser = defineCommand('tenancy.create_user', (store, fields: Omit<User, 'id'>): User => {
  // The email index maps one address to one user: a second user would silently take it over.
  if (store.tenancy.get(['user_email', fields.email]) !== undefined) throw new DuplicateEmailError(`a user with email ${fields.email} already exists`);
  const user: User = { id: nextId(store, 'user'), ...fields };
  store.tenancy.put(['user', user.id], user);
  store.tenancy.put(['user_uuid', user.uuid], user.id);
  store.tenancy.put(['user_email', user.email], user.id);
  return user;
});

export const createPersonalKey = defineCommand('tenancy.create_personal_key', (store, record: PersonalKey): void => {
  store.tenancy.put(['pkey', record.secure_value], record);
  store.tenancy.put(['pkey_id', record.id], record.secure_value);
});

// Re-reads the key, so a use recorded after a revocation never revives it.
export const markPersonalKeyUsed = defineCommand('tenancy.mark_personal_key_used', (store, { secure_value, at }: { secure_value: string; at: string }): void => {
  const current = store.tenancy.get(['pkey', secure_value]) as PersonalKey | undefined;
  if (current) store.tenancy.put(['pkey', secure_value], { ...current, last_used_at: at });
});

export const revokePersonalKey = defineCommand('tenancy.revoke_personal_key', (store, { id }: { id: string }): boolean => {
  const hash = store.tenancy.get(['pkey_id', id]) as string | undefined;
  if (!hash) return false;
  store.tenancy.remove(['pkey', hash]);
  store.tenancy.remove(['pkey_id', id]);
  return true;
});

// First start, as one command (./bootstrap.ts): an organization, project 1 and the admin
// user, each unless it is there already. With a control stream, nodes starting together
// on an empty stream may each submit it: the first one applied creates, every later one
// finds project 1 and its user and writes nothing, on every node alike.
export interface BootstrapPayload {
  organization: Organization;
  project: Omit<NewProject, 'organization_id'>;
  admin: Omit<User, 'id' | 'organization_id' | 'current_project_id'>;
}

export const bootstrap = defineCommand('tenancy.bootstrap', (store, p: BootstrapPayload): { created: boolean } => {
  const existing = store.tenancy.get(['project', 1]) as Project | undefined;
  let hasUser = false;
  for (const _ of store.tenancy.getKeys({ start: ['user'], end: ['user', '\uffff'], limit: 1 })) hasUser = true;
  if (existing && hasUser) return { created: false };
  let org: Organization | undefined;
  for (const { value } of store.tenancy.getRange({ start: ['org'], end: ['org', '\uffff'], limit: 1 })) org = value as Organization;
  org ??= createOrganization.apply(store, p.organization);
  const project = existing ?? createProject.apply(store, { ...p.project, organization_id: org.id });
  if (store.tenancy.get(['user_email', p.admin.email]) === undefined) {
    createUser.apply(store, { ...p.admin, organization_id: org.id, current_project_id: project.id });
  }
  return { created: true };
});

export const tenancyCommands = [
  bootstrap, createOrganization, createProject, updateProject, rotateProjectToken, setCurrentProject, createUser, createPersonalKey,
  markPersonalKeyUsed, revokePersonalKey,
];
