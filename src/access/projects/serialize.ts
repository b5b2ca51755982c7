// Project shapes: the basic one of lists, and the detail with the caller's level.
import type { Project } from '../tenancy/types.js';

export function projectBasic(p: Project) {
  return {
    id: p.id, uuid: p.uuid, organization: p.organization_id, project_id: p.id, api_token: p.api_token,
    name: p.name, timezone: p.timezone, access_control: p.access_control,
  };
}

export function projectDetail(p: Project, effectiveMembershipLevel: number | null) {
  return {
    ...projectBasic(p), week_start_day: p.week_start_day ?? null, test_account_filters: p.test_account_filters ?? [],
    path_cleaning_filters: p.path_cleaning_filters ?? [], created_at: p.created_at, effective_membership_level: effectiveMembershipLevel,
  };
}
