// The key owner (/api/users/@me/) and the organization's members.
import type { ManagementAuth } from '../auth/management.js';
import { errors } from '../../errors.js';
import { json } from '../../http/reply.js';
import { paginate } from '../../http/paginate.js';
import type { Route } from '../../http/types.js';
import type { TenancyStore } from '../tenancy/store.js';
import { me, organizationMember } from './serialize.js';

export function userRoutes({ auth, tenancy }: { auth: ManagementAuth; tenancy: TenancyStore }): Route[] {
  return [
    auth.route({
      methods: ['GET'], pattern: '/api/users/:user_uuid', scope: 'user',
      handler(req, { user }) {
        // Users see only themselves, as in PostHog for non-staff users.
        const wanted = req.params.user_uuid;
        if (wanted !== '@me' && wanted.toLowerCase() !== user.uuid) throw errors.notFound();
        return json(200, me(user, tenancy.organization(user.organization_id), tenancy.project(user.current_project_id)));
      },
    }),
    auth.route({
      methods: ['GET'], pattern: '/api/organizations/:organization_id/members', scope: 'organization_member', organizationLevel: true,
      handler(req, { user }) {
        const orgId = req.params.organization_id === '@current' ? user.organization_id : req.params.organization_id;
        if (orgId !== user.organization_id) {
          if (!tenancy.organization(orgId)) throw errors.notFound();
          throw errors.permissionDenied();
        }
        const email = req.query.get('email');
        const members = tenancy.usersOf(orgId)
          .filter((u) => email === null || u.email === email.toLowerCase())
          .sort((a, b) => b.joined_at.localeCompare(a.joined_at) || b.id - a.id);
        return json(200, paginate(req, members.map(organizationMember)));
      },
    }),
  ];
}
