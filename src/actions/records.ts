// Actions in LMDB (./tables.ts), written only through ./commands.ts. An action is a named
// set of steps; an event matches it when it matches any step, and a step when it matches
// every condition the step sets (event name, URL, element, properties). Deleting is soft.
import { projectRows } from '../store/index.js';
import type { ActionsTables } from './tables.js';

export const MATCHINGS = ['contains', 'regex', 'exact'] as const;
export type Matching = (typeof MATCHINGS)[number];

// PostHog's ActionStepJSON: every condition optional; url_matching defaults to contains.
export interface ActionStepRecord {
  event: string | null;
  properties: Record<string, unknown>[] | null;
  selector: string | null;
  tag_name: string | null;
  text: string | null;
  text_matching: Matching | null;
  href: string | null;
  href_matching: Matching | null;
  url: string | null;
  url_matching: Matching | null;
}

export interface ActionRecord {
  id: number;
  project_id: number;
  name: string | null;
  description: string;
  tags: string[];
  post_to_slack: boolean;
  slack_message_format: string;
  steps: ActionStepRecord[];
  created_at: string;
  created_by: number | null;
  deleted: boolean;
  pinned_at: string | null;
  // Why the steps do not compile to a filter (hog functions that name the action then
  // match nothing and say so), or null.
  bytecode_error: string | null;
}

export const SEQ_KEY: [number, number] = [0, 0];

export function projectActions(store: ActionsTables, projectId: number): ActionRecord[] {
  return projectRows<ActionRecord>(store.actions, projectId);
}

export function actionById(store: ActionsTables, projectId: number, id: number): ActionRecord | undefined {
  return id > 0 ? (store.actions.get([projectId, id]) as ActionRecord | undefined) : undefined;
}

// The steps of the project's live actions by id: what filters that name actions compile
// against (hog functions' filters are compiled in a worker, so they travel as data).
export function liveActionSteps(store: ActionsTables, projectId: number): Record<number, ActionStepRecord[]> {
  const out: Record<number, ActionStepRecord[]> = {};
  for (const a of projectActions(store, projectId)) if (!a.deleted) out[a.id] = a.steps;
  return out;
}
