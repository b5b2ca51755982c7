// Explicit project memberships as commands (src/state/, docs/decisions/0015), in the
// tenancy database under ['xmember', project_id, user_id], so one project's members are
// one range scan and a request's access check is one point read.
import type { AccessTables } from '../tables.js';
import { commandsOn } from '../../state/index.js';

// The member commands apply to access's table.
const defineCommand = commandsOn<AccessTables>();

export interface ExplicitMembership {
  id: string;
  project_id: number;
  user_id: number;
  level: number;
  joined_at: string;
  updated_at: string;
}

export const memberKey = (projectId: number, userId: number) => ['xmember', projectId, userId];
const current = (store: AccessTables, projectId: number, userId: number) => store.tenancy.get(memberKey(projectId, userId)) as ExplicitMembership | undefined;

// undefined when the user already is an explicit member (PostHog's unique constraint).
export const addMember = defineCommand('members.add', (store, m: ExplicitMembership): ExplicitMembership | undefined => {
  if (current(store, m.project_id, m.user_id)) return undefined;
  store.tenancy.put(memberKey(m.project_id, m.user_id), m);
  return m;
});

// undefined when the membership is gone meanwhile.
export const setMemberLevel = defineCommand('members.set_level', (store, p: { project_id: number; user_id: number; level: number; at: string }): ExplicitMembership | undefined => {
  const m = current(store, p.project_id, p.user_id);
  if (!m) return undefined;
  const next = { ...m, level: p.level, updated_at: p.at };
  store.tenancy.put(memberKey(p.project_id, p.user_id), next);
  return next;
});

export const removeMember = defineCommand('members.remove', (store, p: { project_id: number; user_id: number }): void => {
  store.tenancy.remove(memberKey(p.project_id, p.user_id));
});

export const memberCommands = [addMember, setMemberLevel, removeMember];
