// Saved insights in LMDB: [project_id, id] → the insight; ids are global and handed out in
// order under [0, 0], short ids are 8 random letters and digits unique in the project.
// Written only through commands (./commands.ts).
import { randomInt } from 'node:crypto';
import type { InsightsTables } from '../tables.js';
import { projectRows } from '../../store/index.js';

export interface InsightRecord {
  id: number;
  short_id: string;
  project_id: number;
  name: string | null;
  derived_name: string | null;
  description: string;
  query: Record<string, unknown> | null;
  filters: Record<string, unknown>;
  order: number | null;
  deleted: boolean;
  saved: boolean;
  favorited: boolean;
  tags: string[];
  created_at: string;
  created_by: number | null;
  updated_at: string;
  last_modified_at: string;
  last_modified_by: number | null;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function projectInsights(store: InsightsTables, projectId: number): InsightRecord[] {
  return projectRows<InsightRecord>(store.insights, projectId);
}

export function insightById(store: InsightsTables, projectId: number, id: number): InsightRecord | undefined {
  return id > 0 ? (store.insights.get([projectId, id]) as InsightRecord | undefined) : undefined;
}

/** 8 random letters and digits, as PostHog's short ids. */
export function newShortId(): string {
  let out = '';
  for (let i = 0; i < 8; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}
