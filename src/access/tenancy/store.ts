// Organizations, projects, users and personal API keys: reads straight from LMDB, writes
// through the management write path (./commands.ts). What a write takes from the clock or
// a random source (uuids, keys, timestamps) is chosen here, before it is submitted.
import { randomUUID } from 'node:crypto';
import type { AccessTables } from '../tables.js';
import { AppliedElsewhereError, type StateWrites } from '../../state/index.js';
import { hashKey, maskKey, newPersonalApiKey, newProjectApiKey } from './keys.js';
import * as commands from './commands.js';
import { OrgLevel, type Organization, type PersonalKey, type Project, type User } from './types.js';

const PROJECT_WRITES = new Set([commands.createProject.kind, commands.updateProject.kind, commands.rotateProjectToken.kind, commands.bootstrap.kind]);

export function createTenancyStore(store: AccessTables, writes: StateWrites, clock: () => Date = () => new Date()) {
  const db = store.tenancy;
  // Capture looks a token up on every request: keep the answers in memory.
  // It holds unknown tokens too (null) and whole projects, so any project write clears it,
  // on whichever node it was submitted: it is cleared as the command is applied here.
  const tokenCache = new Map<string, Project | null>();
  writes.onApplied((kind) => { if (PROJECT_WRITES.has(kind)) tokenCache.clear(); });

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

    createOrganization: (name: string): Promise<Organization> =>
      writes.submit(commands.createOrganization, { id: randomUUID(), name, created_at: clock().toISOString() }),

    createProject(organizationId: string, name: string, fields: Partial<Pick<Project, 'timezone' | 'access_control' | 'week_start_day' | 'test_account_filters' | 'path_cleaning_filters'>> = {}): Promise<Project> {
      const apiToken = newProjectApiKey();
      return writes.submit(commands.createProject, {
        uuid: randomUUID(), organization_id: organizationId, name, api_token: apiToken, token_hash: hashKey(apiToken),
        access_control: fields.access_control ?? false, timezone: fields.timezone ?? 'UTC', week_start_day: fields.week_start_day ?? null,
        test_account_filters: fields.test_account_filters ?? [], path_cleaning_filters: fields.path_cleaning_filters ?? [], created_at: clock().toISOString(),
      });
    },

    updateProject(id: number, patch: commands.ProjectPatch): Promise<Project | undefined> {
      return writes.submit(commands.updateProject, { id, patch });
    },

    async rotateProjectToken(id: number): Promise<Project | undefined> {
      const current = api.project(id);
      if (!current) return undefined;
      const apiToken = newProjectApiKey();
      return writes.submit(commands.rotateProjectToken, {
        id, api_token: apiToken, token_hash: hashKey(apiToken), old_token_hash: hashKey(current.api_token),
      });
    },

    // The first-start command (./bootstrap.ts): what it may create, chosen here.
    submitBootstrap(adminEmail: string): Promise<{ created: boolean }> {
      const now = clock().toISOString();
      const apiToken = newProjectApiKey();
      return writes.submit(commands.bootstrap, {
        organization: { id: randomUUID(), name: 'Default organization', created_at: now },
        project: {
          uuid: randomUUID(), name: 'Default project', api_token: apiToken, token_hash: hashKey(apiToken),
          access_control: false, timezone: 'UTC', week_start_day: null, created_at: now,
        },
        admin: {
          uuid: randomUUID(), distinct_id: randomUUID(), first_name: 'Admin', last_name: '', email: adminEmail.toLowerCase(),
          is_email_verified: false, hedgehog_config: null, role_at_organization: '', membership_id: randomUUID(),
          organization_level: OrgLevel.owner, joined_at: now, membership_updated_at: now,
        },
      });
    },

    usersOf: (organizationId: string): User[] => api.users().filter((u) => u.organization_id === organizationId),

    setCurrentProject: (userId: number, projectId: number): Promise<void> =>
      writes.submit(commands.setCurrentProject, { user_id: userId, project_id: projectId }),

    createUser(fields: { email: string; first_name?: string; last_name?: string; level?: number; organization_id: string; current_project_id: number }): Promise<User> {
      const now = clock().toISOString();
      return writes.submit(commands.createUser, {
        uuid: randomUUID(), distinct_id: randomUUID(),
        first_name: fields.first_name ?? '', last_name: fields.last_name ?? '', email: fields.email.toLowerCase(),
        is_email_verified: false, hedgehog_config: null, role_at_organization: '',
        organization_id: fields.organization_id, membership_id: randomUUID(), organization_level: fields.level ?? OrgLevel.member,
        current_project_id: fields.current_project_id, joined_at: now, membership_updated_at: now,
      });
    },

    // Returns the key in clear exactly once; only its hash is submitted and stored.
    async createPersonalKey(userId: number, scopes: string[], scopedProjects: number[] | null, label: string): Promise<{ key: string; record: PersonalKey }> {
      const key = newPersonalApiKey();
      const record: PersonalKey = {
        id: randomUUID(), user_id: userId, label, secure_value: hashKey(key), mask_value: maskKey(key),
        scopes, scoped_projects: scopedProjects, created_at: clock().toISOString(), last_used_at: null,
      };
      await writes.submit(commands.createPersonalKey, record).catch((err: unknown) => {
        // Applied all the same, by a `serve` sharing this data dir (cluster mode): nothing to return.
        if (!(err instanceof AppliedElsewhereError)) throw err;
      });
      return { key, record };
    },

    personalKeyByHash: (hash: string) => db.get(['pkey', hash]) as PersonalKey | undefined,

    // PostHog refreshes last_used_at at most hourly; a write per request would be waste.
    // Nobody waits for it: the request goes on.
    markPersonalKeyUsed(record: PersonalKey, at: Date): void {
      if (record.last_used_at && at.getTime() - Date.parse(record.last_used_at) < 3_600_000) return;
      writes.submit(commands.markPersonalKeyUsed, { secure_value: record.secure_value, at: at.toISOString() }).catch(() => {
        // Only a timestamp: the next use an hour on tries again.
      });
    },
    personalKeys: (): PersonalKey[] => [...scan<PersonalKey>('pkey')],

    revokePersonalKey: (id: string): Promise<boolean> => writes.submit(commands.revokePersonalKey, { id }),
  };
  return api;
}

export type TenancyStore = ReturnType<typeof createTenancyStore>;
