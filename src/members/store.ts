// Explicit project memberships in the tenancy database under
// ['xmember', project_id, user_id], so one project's members are one range scan and
// a request's access check is one point read.
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/env.js';

export interface ExplicitMembership {
  id: string;
  project_id: number;
  user_id: number;
  level: number;
  joined_at: string;
  updated_at: string;
}

export function createMemberStore(store: Store, clock: () => Date = () => new Date()) {
  const db = store.tenancy;
  const key = (projectId: number, userId: number) => ['xmember', projectId, userId];

  return {
    get: (projectId: number, userId: number) => db.get(key(projectId, userId)) as ExplicitMembership | undefined,

    list(projectId: number): ExplicitMembership[] {
      const out: ExplicitMembership[] = [];
      for (const { value } of db.getRange({ start: ['xmember', projectId], end: ['xmember', projectId + 1] })) {
        out.push(value as ExplicitMembership);
      }
      return out;
    },

    // undefined when the user already is an explicit member (PostHog's unique constraint).
    create(projectId: number, userId: number, level: number): ExplicitMembership | undefined {
      return db.transactionSync(() => {
        if (db.get(key(projectId, userId))) return undefined;
        const now = clock().toISOString();
        const m: ExplicitMembership = { id: randomUUID(), project_id: projectId, user_id: userId, level, joined_at: now, updated_at: now };
        db.putSync(key(projectId, userId), m);
        return m;
      });
    },

    setLevel(m: ExplicitMembership, level: number): ExplicitMembership {
      const next = { ...m, level, updated_at: clock().toISOString() };
      db.putSync(key(m.project_id, m.user_id), next);
      return next;
    },

    remove: (m: ExplicitMembership) => { db.removeSync(key(m.project_id, m.user_id)); },
  };
}

export type MemberStore = ReturnType<typeof createMemberStore>;
