// User shapes of the API: the basic user embedded everywhere (SPEC §2.2), an
// organization membership, and the key owner's own profile (/api/users/@me/).
import type { Organization, Project, User } from '../tenancy/types.js';

export function userBasic(u: User) {
  return {
    id: u.id, uuid: u.uuid, distinct_id: u.distinct_id, first_name: u.first_name, last_name: u.last_name,
    email: u.email, is_email_verified: u.is_email_verified, hedgehog_config: u.hedgehog_config,
    role_at_organization: u.role_at_organization,
  };
}

export function organizationMember(u: User) {
  return {
    id: u.membership_id, user: userBasic(u), level: u.organization_level, joined_at: u.joined_at,
    updated_at: u.membership_updated_at, is_2fa_enabled: false, has_social_auth: false, last_login: null,
  };
}

export function me(u: User, org: Organization | undefined, team: Project | undefined) {
  const organization = org ? { id: org.id, name: org.name, created_at: org.created_at, membership_level: u.organization_level } : null;
  return {
    ...userBasic(u),
    date_joined: u.joined_at,
    pending_email: null,
    is_staff: false,
    is_impersonated: false,
    team: team ? {
      id: team.id, uuid: team.uuid, organization: team.organization_id, project_id: team.id, api_token: team.api_token,
      name: team.name, timezone: team.timezone, access_control: team.access_control,
    } : null,
    organization,
    organizations: organization ? [{ id: organization.id, name: organization.name, membership_level: u.organization_level }] : [],
  };
}
