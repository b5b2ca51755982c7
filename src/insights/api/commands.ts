// Insight writes as commands (src/state/, docs/decisions/0015). Ids are a global sequence
// the applier assigns (as PostHog's); the short id is drawn by the submitter, and the
// applier refuses one the project already has (the submitter draws again).
import { commandsOn } from '../../state/index.js';
import type { InsightsTables } from '../tables.js';
import type { InsightRecord } from './insight-store.js';
import { projectInsights } from './insight-store.js';

// The insight commands apply to insights' tables.
const defineCommand = commandsOn<InsightsTables>();

export const SEQ_KEY: [number, number] = [0, 0];

export class ShortIdTakenError extends Error {}

export const insertInsightCommand = defineCommand('insights.insert', (store, fields: Omit<InsightRecord, 'id'>): InsightRecord => {
  if (projectInsights(store, fields.project_id).some((i) => i.short_id === fields.short_id)) throw new ShortIdTakenError(fields.short_id);
  const id = ((store.insights.get(SEQ_KEY) as number | undefined) ?? 0) + 1;
  const record: InsightRecord = { ...fields, id };
  store.insights.put(SEQ_KEY, id);
  store.insights.put([fields.project_id, id], record);
  return record;
});

export const saveInsightCommand = defineCommand('insights.save', (store, record: InsightRecord): InsightRecord => {
  store.insights.put([record.project_id, record.id], record);
  return record;
});

export const insightCommands = [insertInsightCommand, saveInsightCommand];
