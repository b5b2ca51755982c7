// Export writes as commands (src/state/, docs/decisions/0015). Ids are a global sequence the
// applier assigns; times, file hashes and failure messages are chosen by the node that
// renders and carried in the payload, so every node applies the same state.
import { commandsOn } from '../../state/index.js';
import type { ExportsTables } from '../tables.js';
import type { StoredContent } from '../types.js';
import { allAssets, assetById, isPending, SEQ_KEY, type ExportRecord } from './asset-store.js';

// The export commands apply to the exports' table.
const defineCommand = commandsOn<ExportsTables>();

export const insertExportCommand = defineCommand('exports.insert', (store, fields: Omit<ExportRecord, 'id'>): ExportRecord => {
  const id = ((store.exports.get(SEQ_KEY) as number | undefined) ?? 0) + 1;
  const record: ExportRecord = { ...fields, id };
  store.exports.put(SEQ_KEY, id);
  store.exports.put([fields.project_id, id], record);
  return record;
});

export interface FinishPayload {
  project_id: number;
  id: number;
  content: StoredContent | null;
  exception: string | null;
  // Replaces the asset's export_context (an export of events cut at the row limit says so).
  export_context?: unknown;
}

// A render's outcome, recorded once: an asset that already has one (a late render after a
// timeout) or that expired meanwhile is left as it is.
export const finishExportCommand = defineCommand('exports.finish', (store, p: FinishPayload): ExportRecord | null => {
  const asset = assetById(store, p.project_id, p.id);
  if (!asset || !isPending(asset)) return null;
  const next: ExportRecord = { ...asset, content: p.content, exception: p.content ? null : p.exception };
  if (p.export_context !== undefined) next.export_context = p.export_context;
  store.exports.put([p.project_id, p.id], next);
  return next;
});

export interface ResumePayload {
  project_id: number;
  id: number;
  maxAttempts: number;
  // Recorded when the asset has had its attempts.
  exception: string;
}

// A pending asset found at start-up: one more attempt, or failed when it had them all (a
// render that brings the process down must not do so on every start).
export const resumeExportCommand = defineCommand('exports.resume', (store, p: ResumePayload): ExportRecord | null => {
  const asset = assetById(store, p.project_id, p.id);
  if (!asset || !isPending(asset)) return null;
  const next: ExportRecord = asset.attempts >= p.maxAttempts ? { ...asset, exception: p.exception } : { ...asset, attempts: asset.attempts + 1 };
  store.exports.put([p.project_id, p.id], next);
  return next;
});

// Deletes every asset expired at `now` (an ISO time the sweeping node read); returns how many.
export const expireExportsCommand = defineCommand('exports.expire', (store: ExportsTables, p: { now: string }): number => {
  const now = Date.parse(p.now);
  let removed = 0;
  for (const asset of allAssets(store)) {
    if (Date.parse(asset.expires_after) > now) continue;
    store.exports.remove([asset.project_id, asset.id]);
    removed++;
  }
  return removed;
});

export const exportCommands = [insertExportCommand, finishExportCommand, resumeExportCommand, expireExportsCommand];
