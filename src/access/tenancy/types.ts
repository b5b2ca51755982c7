// Organizations, projects, users and personal API keys as stored.

export interface Organization {
  id: string;
  name: string;
  created_at: string;
}

export interface Project {
  id: number;
  uuid: string;
  organization_id: string;
  name: string;
  api_token: string;
  access_control: boolean;
  timezone: string;
  // PostHog's week_start_day: 0 weeks start on Sunday, 1 on Monday; null (or absent, in
  // projects stored before it) is Sunday.
  week_start_day?: 0 | 1 | null;
  // PostHog's test_account_filters: the property filters an insight with filterTestAccounts
  // applies (absent in projects stored before them: none).
  test_account_filters?: unknown[];
  // PostHog's path_cleaning_filters: the rules (regex → alias, in order) a paths insight with
  // pathReplacements applies before its own (absent in projects stored before them: none).
  path_cleaning_filters?: PathCleaningRule[];
  created_at: string;
}

export interface PathCleaningRule {
  alias: string;
  regex: string;
  order?: number;
}

// PostHog's organization membership levels.
export const OrgLevel = { member: 1, admin: 8, owner: 15 } as const;
export type OrgLevelName = keyof typeof OrgLevel;

export interface User {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
  is_email_verified: boolean;
  hedgehog_config: Record<string, unknown> | null;
  role_at_organization: string;
  // The user's organization membership (one organization per user): its id is
  // what explicit project members name as parent_membership_id.
  organization_id: string;
  membership_id: string;
  organization_level: number;
  current_project_id: number;
  joined_at: string;
  membership_updated_at: string;
}

export interface PersonalKey {
  id: string;
  user_id: number;
  label: string;
  // SHA-256 of the key; the key itself is shown once and never stored.
  secure_value: string;
  mask_value: string;
  scopes: string[];
  // null: every project of the user's organization.
  scoped_projects: number[] | null;
  created_at: string;
  last_used_at: string | null;
}
