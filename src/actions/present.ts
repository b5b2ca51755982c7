// An action as PostHog's API shows it.
import { userBasic, type TenancyStore } from '../access/index.js';
import type { ActionRecord } from './records.js';

export function actionBody(a: ActionRecord, tenancy: TenancyStore): Record<string, unknown> {
  const creator = a.created_by === null ? undefined : tenancy.user(a.created_by);
  return {
    id: a.id, name: a.name, description: a.description, tags: a.tags, post_to_slack: a.post_to_slack,
    slack_message_format: a.slack_message_format, steps: a.steps, created_at: a.created_at, created_by: creator ? userBasic(creator) : null,
    deleted: a.deleted, is_calculating: false, last_calculated_at: null, team_id: a.project_id, is_action: true,
    bytecode_error: a.bytecode_error, pinned_at: a.pinned_at, creation_context: null, user_access_level: 'editor',
  };
}
