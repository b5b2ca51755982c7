// Explicit project memberships: reads from LMDB, writes through the management write path
// (./commands.ts).
import { randomUUID } from 'node:crypto';
import type { AccessTables } from '../tables.js';
import type { StateWrites } from '../../state/index.js';
import { addMember, memberKey, removeMember, setMemberLevel, type ExplicitMembership } from './commands.js';

export type { ExplicitMembership };

export function createMemberStore(store: AccessTables, writes: StateWrites, clock: () => Date = () => new Date()) {
  const db = store.tenancy;

  return {
    get: (projectId: number, userId: number) => db.get(memberKey(projectId, userId)) as ExplicitMembership | undefined,

    list(projectId: number): ExplicitMembership[] {
      const out: ExplicitMembership[] = [];
      for (const { value } of db.getRange({ start: ['xmember', projectId], end: ['xmember', projectId + 1] })) {
        out.push(value as ExplicitMembership);
      }
      return out;
    },

    // undefined when the user already is an explicit member (PostHog's unique constraint).
    create(projectId: number, userId: number, level: number): Promise<ExplicitMembership | undefined> {
      const now = clock().toISOString();
      return writes.submit(addMember, { id: randomUUID(), project_id: projectId, user_id: userId, level, joined_at: now, updated_at: now });
    },

    // The membership as changed (as it was, should it have gone meanwhile).
    async setLevel(m: ExplicitMembership, level: number): Promise<ExplicitMembership> {
      return (await writes.submit(setMemberLevel, { project_id: m.project_id, user_id: m.user_id, level, at: clock().toISOString() })) ?? m;
    },

    remove: (m: ExplicitMembership): Promise<void> => writes.submit(removeMember, { project_id: m.project_id, user_id: m.user_id }),
  };
}

export type MemberStore = ReturnType<typeof createMemberStore>;
