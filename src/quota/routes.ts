// GET and PATCH /api/organizations/:organization_id/quota/: the feature flag request
// quota (hedgerow's own endpoint; PostHog sets quotas through billing). Reading needs
// scope organization:read, changing needs organization:write and an organization admin.
// Body: {"feature_flag_requests": N} or null for unlimited.
import { type ManagementAuth, type TenancyStore, OrgLevel, type User } from '../access/index.js';
import { errors } from '../errors.js';
import { jsonObject } from '../http/body.js';
import { json } from '../http/reply.js';
import type { HttpRequest, Route } from '../http/types.js';
import type { FlagMeter } from './meter.js';
import { parseLimit } from './usage.js';

export function quotaRoutes({ auth, meter, tenancy }: { auth: ManagementAuth; meter: FlagMeter; tenancy: TenancyStore }): Route[] {
  function organizationOf(req: HttpRequest, user: User): string {
    const orgId = req.params.organization_id === '@current' ? user.organization_id : req.params.organization_id;
    if (orgId !== user.organization_id) {
      if (!tenancy.organization(orgId)) throw errors.notFound();
      throw errors.permissionDenied();
    }
    return orgId;
  }
  const report = (orgId: string) => ({ feature_flag_requests: meter.report(orgId, Date.now()) });
  const pattern = '/api/organizations/:organization_id/quota';

  return [
    auth.route({
      methods: ['GET'], pattern, scope: 'organization', organizationLevel: true,
      handler: (req, { user }) => json(200, report(organizationOf(req, user))),
    }),
    auth.route({
      methods: ['PATCH'], pattern, scope: 'organization', organizationLevel: true,
      async handler(req, { user }) {
        const orgId = organizationOf(req, user);
        if (user.organization_level < OrgLevel.admin) throw errors.insufficientOrgLevel();
        const body = jsonObject(req);
        if ('feature_flag_requests' in body) {
          const limit = parseLimit(body.feature_flag_requests);
          if (limit === undefined) {
            throw errors.validation('A valid non-negative integer or null is required.', 'feature_flag_requests');
          }
          await meter.setQuota(orgId, limit);
        }
        return json(200, report(orgId));
      },
    }),
  ];
}
