// hedgerow's own events for internal destinations (PostHog issue #17361: be told in Slack
// when a feature flag changes): each feature flag created, changed or deleted becomes
// PostHog's internal event `$activity_log_entry_created` (scope FeatureFlag, activity
// created | updated | deleted, item_id, detail {name: the flag key, changes}), as PostHog
// makes one for each activity log row. Found by comparing the flags table with what was
// seen before, after each flag write applied on this node; pure but for the read.
import type { InternalEvent } from './run-internal.js';

type Row = Record<string, unknown>;

// What is compared of a flag, and named in `changes`.
const FIELDS = ['key', 'name', 'active', 'filters', 'deleted', 'ensure_experience_continuity', 'evaluation_runtime', 'bucketing_identifier'] as const;

export interface FlagSeen {
  version: unknown;
  values: Record<string, string>;
}

const snapshot = (row: Row): FlagSeen => ({ version: row.version, values: Object.fromEntries(FIELDS.map((f) => [f, JSON.stringify(row[f] ?? null)])) });

/** Flags by `project/id` as seen now. */
export function seeFlags(rows: Iterable<Row>): Map<string, FlagSeen> {
  const seen = new Map<string, FlagSeen>();
  for (const row of rows) seen.set(`${row.project_id}/${row.id}`, snapshot(row));
  return seen;
}

/** The activity a flag's row shows against what was seen of it, or null when nothing changed. */
export function flagActivity(row: Row, before: FlagSeen | undefined, nowIso: string): Omit<InternalEvent, 'user'> & { userId: number | null } | null {
  const after = snapshot(row);
  let activity: 'created' | 'updated' | 'deleted';
  const changes: { type: string; action: string; field: string; before: unknown; after: unknown }[] = [];
  if (before === undefined) activity = row.deleted ? 'deleted' : 'created';
  else {
    if (before.version === after.version && FIELDS.every((f) => before.values[f] === after.values[f])) return null;
    activity = row.deleted === true && before.values.deleted !== 'true' ? 'deleted' : 'updated';
    for (const f of FIELDS) {
      if (f === 'deleted' || before.values[f] === after.values[f]) continue;
      changes.push({ type: 'FeatureFlag', action: 'changed', field: f, before: JSON.parse(before.values[f]), after: JSON.parse(after.values[f]) });
    }
  }
  const userId = typeof row.last_modified_by === 'number' ? row.last_modified_by : typeof row.created_by === 'number' ? row.created_by : null;
  return {
    projectId: Number(row.project_id),
    event: '$activity_log_entry_created',
    properties: {
      scope: 'FeatureFlag', activity, item_id: String(row.id), created_at: nowIso,
      detail: { name: String(row.key ?? ''), short_id: null, type: null, changes: activity === 'updated' ? changes : null },
    },
    userId,
  };
}
