// Saved insights in LMDB: [project_id, id] → the insight; ids are global and handed out in
// order under [0, 0], short ids are 8 random letters and digits unique in the project.
import { randomInt } from 'node:crypto';
import type { Store } from '../../store/env.js';

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

const SEQ_KEY: [number, number] = [0, 0];
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function projectInsights(store: Store, projectId: number): InsightRecord[] {
  return [...store.insights.getRange({ start: [projectId, 1], end: [projectId, Number.MAX_SAFE_INTEGER] })].map((e) => e.value as InsightRecord);
}

export function insightById(store: Store, projectId: number, id: number): InsightRecord | undefined {
  return id > 0 ? (store.insights.get([projectId, id]) as InsightRecord | undefined) : undefined;
}

function shortId(): string {
  let out = '';
  for (let i = 0; i < 8; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** Stores a new insight under the next id and a short id no other insight of the project has. */
export function insertInsight(store: Store, fields: Omit<InsightRecord, 'id' | 'short_id'>): Promise<InsightRecord> {
  return store.root.transaction(() => {
    const id = ((store.insights.get(SEQ_KEY) as number | undefined) ?? 0) + 1;
    const taken = new Set(projectInsights(store, fields.project_id).map((i) => i.short_id));
    let short = shortId();
    while (taken.has(short)) short = shortId();
    const record: InsightRecord = { ...fields, id, short_id: short };
    store.insights.put(SEQ_KEY, id);
    store.insights.put([fields.project_id, id], record);
    return record;
  });
}

export async function saveInsight(store: Store, record: InsightRecord): Promise<InsightRecord> {
  await store.insights.put([record.project_id, record.id], record);
  return record;
}
