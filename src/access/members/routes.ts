// Explicit project members under /api/projects/:id/ and /api/environments/:id/,
// looked up by user uuid. Reading needs project membership, changing needs admin;
// a member may always leave (DELETE of their own uuid).
import type { ManagementAuth, ProjectContext } from '../auth/management.js';
import { errors } from '../../errors.js';
import { jsonObject } from '../../http/body.js';
import { json, noContent } from '../../http/reply.js';
import type { HttpRequest, Route } from '../../http/types.js';
import type { TenancyStore } from '../tenancy/store.js';
import type { Project, User } from '../tenancy/types.js';
import { userBasic } from '../users/serialize.js';
import { MemberLevel, requireLevel, type ProjectAccess } from './access.js';
import { parseMemberWrite, validateMemberWrite } from './rules.js';
import type { ExplicitMembership, MemberStore } from './store.js';

export interface MemberDeps {
  auth: ManagementAuth;
  tenancy: TenancyStore;
  members: MemberStore;
  access: ProjectAccess;
}

export function memberRoutes({ auth, tenancy, members, access }: MemberDeps): Route[] {
  function present(m: ExplicitMembership) {
    const user = tenancy.user(m.user_id)!;
    return {
      id: m.id, level: m.level, parent_level: user.organization_level, parent_membership_id: user.membership_id,
      joined_at: m.joined_at, updated_at: m.updated_at, user: userBasic(user), user_uuid: user.uuid,
      effective_level: Math.max(m.level, user.organization_level),
    };
  }

  // The membership named in the path: a user uuid, or @me for the caller's own.
  function lookup(project: Project, caller: User, param: string): ExplicitMembership {
    const user = param === '@me' ? caller : tenancy.userByUuid(param.toLowerCase());
    const m = user && members.get(project.id, user.id);
    if (!m) throw errors.notFound();
    return m;
  }

  // The caller's effective level, refused when below what `need` asks (403).
  function requester(ctx: ProjectContext, need: 'read' | 'write') {
    const level = requireLevel(access.levelOf(ctx.user, ctx.project), need);
    return { id: ctx.user.id, uuid: ctx.user.uuid, level };
  }

  function list(_req: HttpRequest, ctx: ProjectContext) {
    const rows = members.list(ctx.project.id)
      .sort((a, b) => a.level - b.level || b.joined_at.localeCompare(a.joined_at));
    return json(200, rows.map(present));
  }

  async function create(req: HttpRequest, ctx: ProjectContext) {
    const who = requester(ctx, 'write');
    const write = parseMemberWrite(jsonObject(req), true);
    validateMemberWrite({ accessControl: ctx.project.access_control, requester: who, write });
    const user = tenancy.userByUuid(write.userUuid!);
    if (!user || user.organization_id !== ctx.project.organization_id) throw errors.memberOutsideOrganization();
    const m = await members.create(ctx.project.id, user.id, write.level ?? MemberLevel.member);
    if (!m) throw errors.memberDuplicate();
    return json(201, present(m));
  }

  function retrieve(req: HttpRequest, ctx: ProjectContext) {
    return json(200, present(lookup(ctx.project, ctx.user, req.params.user_uuid)));
  }

  async function update(req: HttpRequest, ctx: ProjectContext) {
    const who = requester(ctx, 'write');
    const m = lookup(ctx.project, ctx.user, req.params.user_uuid);
    const write = parseMemberWrite(jsonObject(req), false);
    validateMemberWrite({
      accessControl: ctx.project.access_control, requester: who, write, target: { userId: m.user_id, level: m.level },
    });
    return json(200, present(write.level === undefined ? m : await members.setLevel(m, write.level)));
  }

  async function remove(req: HttpRequest, ctx: ProjectContext) {
    // Leaving a project needs no level; removing someone else needs admin.
    if (req.params.user_uuid.toLowerCase() !== ctx.user.uuid) requester(ctx, 'write');
    await members.remove(lookup(ctx.project, ctx.user, req.params.user_uuid));
    return noContent(204);
  }

  const base = 'explicit_members';
  const one = `${base}/:user_uuid`;
  return [
    ...auth.projectRoutes({ methods: ['GET'], path: base, scope: 'project', projectAccess: 'manage', handler: list }),
    ...auth.projectRoutes({ methods: ['POST'], path: base, scope: 'project', projectAccess: 'manage', handler: create }),
    ...auth.projectRoutes({ methods: ['GET'], path: one, scope: 'project', projectAccess: 'manage', handler: retrieve }),
    ...auth.projectRoutes({ methods: ['PATCH'], path: one, scope: 'project', projectAccess: 'manage', handler: update }),
    // Any member may leave, so the admin check for removing others is the handler's.
    ...auth.projectRoutes({ methods: ['DELETE'], path: one, scope: 'project', handler: remove }),
  ];
}
