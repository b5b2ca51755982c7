// Projects API: list and create under /api/projects/, read, update and rotate the
// project API key under both /api/projects/:id/ and /api/environments/:id/.
import type { ManagementAuth, ProjectContext } from '../auth/management.js';
import { errors } from '../../errors.js';
import { jsonObject } from '../../http/body.js';
import { json } from '../../http/reply.js';
import { paginate } from '../../http/paginate.js';
import type { HttpRequest, Route } from '../../http/types.js';
import type { ProjectAccess } from '../members/access.js';
import type { TenancyStore } from '../tenancy/store.js';
import { OrgLevel } from '../tenancy/types.js';
import { parseProjectFields } from './fields.js';
import { projectBasic, projectDetail } from './serialize.js';

export function projectRoutes({ auth, tenancy, access }: { auth: ManagementAuth; tenancy: TenancyStore; access: ProjectAccess }): Route[] {
  const detail = ({ user, project }: ProjectContext) => projectDetail(project, access.levelOf(user, project));

  const retrieve = (_req: HttpRequest, ctx: ProjectContext) => json(200, detail(ctx));

  async function update(req: HttpRequest, ctx: ProjectContext) {
    const { user, project } = ctx;
    const fields = parseProjectFields(jsonObject(req));
    // Only organization-wide admins may open or close a project: a project admin who is
    // a mere organization member could lock themselves out for good.
    if (fields.access_control !== undefined && user.organization_level < OrgLevel.admin) {
      throw errors.insufficientOrgLevel('Your organization access level is insufficient to configure project access restrictions.');
    }
    const updated = (await tenancy.updateProject(project.id, fields)) ?? project;
    return json(200, detail({ ...ctx, project: updated }));
  }

  async function resetToken(_req: HttpRequest, ctx: ProjectContext) {
    const rotated = (await tenancy.rotateProjectToken(ctx.project.id)) ?? ctx.project;
    return json(200, detail({ ...ctx, project: rotated }));
  }

  const twins = [
    ...auth.projectRoutes({ methods: ['GET'], path: '', scope: 'project', handler: retrieve }),
    ...auth.projectRoutes({ methods: ['PATCH'], path: '', scope: 'project', handler: update }),
    // PostHog rotates with PATCH; POST is accepted as well.
    ...auth.projectRoutes({ methods: ['PATCH', 'POST'], path: 'reset_token', scope: 'project', projectAccess: 'manage', handler: resetToken }),
  ];

  return [
    auth.route({
      methods: ['GET'], pattern: '/api/projects', scope: 'project', organizationLevel: true,
      handler(req, { user }) {
        const visible = tenancy.projects()
          .filter((p) => access.levelOf(user, p) !== null)
          .sort((a, b) => a.id - b.id);
        return json(200, paginate(req, visible.map(projectBasic)));
      },
    }),
    auth.route({
      methods: ['POST'], pattern: '/api/projects', scope: 'project', organizationLevel: true,
      async handler(req, ctx) {
        const { user } = ctx;
        if (user.organization_level < OrgLevel.admin) throw errors.insufficientOrgLevel();
        const fields = parseProjectFields(jsonObject(req));
        const project = await tenancy.createProject(user.organization_id, fields.name ?? 'Default project', fields);
        // As in PostHog, the creator switches to the new project.
        await tenancy.setCurrentProject(user.id, project.id);
        return json(201, detail({ ...ctx, project }));
      },
    }),
    ...twins,
  ];
}
