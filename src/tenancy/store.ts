// Tenancy records in LMDB under [kind, id] keys, with hash indexes for key lookups.
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/env.js';
import { hashKey, maskKey, newPersonalApiKey, newProjectApiKey } from '../auth/keys.js';
import { OrgLevel, type Organization, type PersonalKey, type Project, type User } from './types.js';

export function createTenancyStore(store: Store, clock: () => Date = () => new Date()) {
  const db = store.tenancy;
  // Capture looks a token up on every request: keep the answers in memory.
  const tokenCache = new Map<string, Project | null>();

  function nextId(kind: string): number {
    const n = ((db.get(['seq', kind]) as number | undefined) ?? 0) + 1;
    db.putSync(['seq', kind], n);
    return n;
  }

  function* scan<T>(kind: string): Iterable<T> {
    for (const { value } of db.getRange({ start: [kind], end: [kind, '\uffff'] })) yield value as T;
  }

  const api = {
    organization: (id: string) => db.get(['org', id]) as Organization | undefined,
    firstOrganization: (): Organization | undefined => { for (const o of scan<Organization>('org')) return o; return undefined; },
    project: (id: number) => db.get(['project', id]) as Project | undefined,
    projects: (): Project[] => [...scan<Project>('project')],
    user: (id: number) => db.get(['user', id]) as User | undefined,
    users: (): User[] => [...scan<User>('user')],
    userByUuid(uuid: string): User | undefined {
      const id = db.get(['user_uuid', uuid]) as number | undefined;
      return id === undefined ? undefined : api.user(id);
    },
    userByEmail(email: string): User | undefined {
      const id = db.get(['user_email', email.toLowerCase()]) as number | undefined;
      return id === undefined ? undefined : api.user(id);
    },

    projectByToken(token: string): Project | null {
      const cached = tokenCache.get(token);
      if (cached !== undefined) return cached;
      const id = db.get(['project_token', hashKey(token)]) as number | undefined;
      const project = id === undefined ? null : api.project(id) ?? null;
      if (tokenCache.size > 10_000) tokenCache.clear();
      tokenCache.set(token, project);
      return project;
    },

    createOrganization(name: string): Organization {
      const org: Organization = { id: randomUUID(), name, created_at: clock().toISOString() };
      db.putSync(['org', org.id], org);
      return org;
    },

    createProject(organizationId: string, name: string, fields: Partial<Pick<Project, 'timezone' | 'access_control'>> = {}): Project {
      return db.transactionSync(() => {
        const project: Project = {
          id: nextId('project'), uuid: randomUUID(), organization_id: organizationId, name,
          api_token: newProjectApiKey(), access_control: fields.access_control ?? false,
          timezone: fields.timezone ?? 'UTC', created_at: clock().toISOString(),
        };
        db.putSync(['project', project.id], project);
        db.putSync(['project_token', hashKey(project.api_token)], project.id);
        return project;
      });
    },

    updateProject(id: number, patch: Partial<Pick<Project, 'name' | 'timezone' | 'access_control'>>): Project | undefined {
      const current = api.project(id);
      if (!current) return undefined;
      const next = { ...current, ...patch };
      db.putSync(['project', id], next);
      tokenCache.clear();
      return next;
    },

    rotateProjectToken(id: number): Project | undefined {
      return db.transactionSync(() => {
        const current = api.project(id);
        if (!current) return undefined;
        const next = { ...current, api_token: newProjectApiKey() };
        db.removeSync(['project_token', hashKey(current.api_token)]);
        db.putSync(['project_token', hashKey(next.api_token)], id);
        db.putSync(['project', id], next);
        tokenCache.clear();
        return next;
      });
    },

    usersOf: (organizationId: string): User[] => api.users().filter((u) => u.organization_id === organizationId),

    setCurrentProject(userId: number, projectId: number): void {
      const user = api.user(userId);
      if (user) db.putSync(['user', userId], { ...user, current_project_id: projectId });
    },

    createUser(fields: { email: string; first_name?: string; last_name?: string; level?: number; organization_id: string; current_project_id: number }): User {
      return db.transactionSync(() => {
        // The email index maps one address to one user: a second user would silently take it over.
        if (api.userByEmail(fields.email)) throw new Error(`a user with email ${fields.email.toLowerCase()} already exists`);
        const now = clock().toISOString();
        const user: User = {
          id: nextId('user'), uuid: randomUUID(), distinct_id: randomUUID(),
          first_name: fields.first_name ?? '', last_name: fields.last_name ?? '', email: fields.email.toLowerCase(),
          is_email_verified: false, hedgehog_config: null, role_at_organization: '',
          organization_id: fields.organization_id, membership_id: randomUUID(), organization_level: fields.level ?? OrgLevel.member,
          current_project_id: fields.current_project_id, joined_at: now, membership_updated_at: now,
        };
        db.putSync(['user', user.id], user);
        db.putSync(['user_uuid', user.uuid], user.id);
        db.putSync(['user_email', user.email], user.id);
        return user;
      });
    },

    // Returns the key in clear exactly once.
    createPersonalKey(userId: number, scopes: string[], scopedProjects: number[] | null, label: string): { key: string; record: PersonalKey } {
      const key = newPersonalApiKey();
      const record: PersonalKey = {
        id: randomUUID(), user_id: userId, label, secure_value: hashKey(key), mask_value: maskKey(key),
        scopes, scoped_projects: scopedProjects, created_at: clock().toISOString(), last_used_at: null,
      };
      db.transactionSync(() => {
        db.putSync(['pkey', record.secure_value], record);
        db.putSync(['pkey_id', record.id], record.secure_value);
      });
      return { key, record };
    },

    personalKeyByHash: (hash: string) => db.get(['pkey', hash]) as PersonalKey | undefined,

    // PostHog refreshes last_used_at at most hourly; a write per request would be waste.
    // The write re-reads the key inside its transaction so it never revives a revoked one.
    markPersonalKeyUsed(record: PersonalKey, at: Date): void {
      if (record.last_used_at && at.getTime() - Date.parse(record.last_used_at) < 3_600_000) return;
      void db.transaction(() => {
        const current = db.get(['pkey', record.secure_value]) as PersonalKey | undefined;
        if (current) db.put(['pkey', record.secure_value], { ...current, last_used_at: at.toISOString() });
      });
    },
    personalKeys: (): PersonalKey[] => [...scan<PersonalKey>('pkey')],

    revokePersonalKey(id: string): boolean {
      const hash = db.get(['pkey_id', id]) as string | undefined;
      if (!hash) return false;
      db.transactionSync(() => {
        db.removeSync(['pkey', hash]);
        db.removeSync(['pkey_id', id]);
      });
      return true;
    },
  };
  return api;
}

export type TenancyStore = ReturnType<typeof createTenancyStore>;
