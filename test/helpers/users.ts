// Users and keys for authorization tests, made straight in the tenancy store the
// way `hedgerow user add` and `hedgerow key create` make them.
import { randomUUID } from 'node:crypto';
import type { TestServer } from './server.js';
import { OrgLevel, type User } from '../../src/access/index.js';

export interface TestUser {
  user: User;
  key: string;
}

export async function addUser(t: TestServer, opts: {
  level?: number; scopes?: string[]; projects?: number[] | null; email?: string; organizationId?: string;
} = {}): Promise<TestUser> {
  const { tenancy } = t.server;
  const owner = tenancy.userByEmail('admin@hedgerow.local')!;
  const user = await tenancy.createUser({
    email: opts.email ?? `user-${randomUUID()}@example.com`, level: opts.level ?? OrgLevel.member,
    organization_id: opts.organizationId ?? owner.organization_id, current_project_id: t.projectId,
  });
  const { key } = await tenancy.createPersonalKey(user.id, opts.scopes ?? ['*'], opts.projects ?? null, 'test');
  return { user, key };
}

export function ownerOf(t: TestServer): User {
  return t.server.tenancy.userByEmail('admin@hedgerow.local')!;
}
