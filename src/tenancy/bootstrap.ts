// First start: an organization, project 1, an admin user. `init` and an empty
// `serve` share this so both leave the data dir in the same state.
import type { TenancyStore } from './store.js';
import { OrgLevel, type Project, type User } from './types.js';

export interface Bootstrapped {
  project: Project;
  admin: User;
  created: boolean;
}

export const ADMIN_EMAIL = 'admin@hedgerow.local';

export async function bootstrap(tenancy: TenancyStore): Promise<Bootstrapped> {
  const existing = tenancy.project(1);
  if (existing) {
    const admin = tenancy.userByEmail(ADMIN_EMAIL) ?? tenancy.users()[0];
    if (admin) return { project: existing, admin, created: false };
  }
  const org = tenancy.firstOrganization() ?? await tenancy.createOrganization('Default organization');
  const project = existing ?? await tenancy.createProject(org.id, 'Default project');
  const admin = await tenancy.createUser({
    email: ADMIN_EMAIL, first_name: 'Admin', organization_id: org.id, level: OrgLevel.owner, current_project_id: project.id,
  });
  return { project, admin, created: true };
}
