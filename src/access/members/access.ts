// Who may touch a project: PostHog's effective membership level, and the gate every
// management route of a project goes through (the auth's projectAccess hook).
import { errors } from '../../errors.js';
import type { ProjectAccessCheck } from '../auth/management.js';
import { OrgLevel, type Project, type User } from '../tenancy/types.js';
import type { MemberStore } from './store.js';

// Explicit project membership levels (an organization owner is 15, above both).
export const MemberLevel = { member: 1, admin: 8 } as const;

// null: no access at all. Without access control every organization member has their
// organization level; with it, an explicit membership lifts the user to at least its
// level, and organization admins and owners keep implicit access.
export function effectiveLevel(project: Project, user: User, explicitLevel: number | undefined): number | null {
  if (user.organization_id !== project.organization_id) return null;
  if (!project.access_control) return user.organization_level;
  if (explicitLevel !== undefined) return Math.max(explicitLevel, user.organization_level);
  return user.organization_level >= OrgLevel.admin ? user.organization_level : null;
}

export function createProjectAccess(members: MemberStore) {
  const levelOf = (user: User, project: Project) => effectiveLevel(project, user, members.get(project.id, user.id)?.level);
  const check: ProjectAccessCheck = (ctx, project, access, rule) => {
    const level = levelOf(ctx.user, project);
    if (rule === 'manage') requireLevel(level, access);
    else if (level === null) throw errors.noProjectAccess();
  };
  return { levelOf, check };
}

export type ProjectAccess = ReturnType<typeof createProjectAccess>;

// Reading needs membership, changing needs project admin (PostHog's strict management
// permission, for explicit members and token rotation).
export function requireLevel(level: number | null, access: 'read' | 'write'): number {
  const minimum = access === 'read' ? MemberLevel.member : MemberLevel.admin;
  if (level === null || level < minimum) throw errors.insufficientProjectLevel();
  return level;
}
