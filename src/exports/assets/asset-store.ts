// Exported assets in LMDB: [project_id, id] → the asset; ids are global and handed out in
// order under [0, 0], as PostHog's. Written only through commands (./commands.ts); the
// file itself is stored apart, by the hash of its bytes (./files.ts).
import type { ExportsTables } from '../tables.js';
import type { ExportFormat } from '../formats.js';
import type { ExportContext, StoredContent } from '../types.js';
import { projectRows } from '../../store/index.js';

export interface ExportRecord {
  id: number;
  project_id: number;
  // The user whose key created it: PostHog lists and shows an export to its creator only.
  created_by: number;
  dashboard: number | null;
  insight: number | null;
  export_format: ExportFormat;
  // As the client sent it.
  export_context: unknown;
  created_at: string;
  expires_after: string;
  filename: string;
  // Set once the file is stored; exception once rendering failed. Neither: pending.
  content: StoredContent | null;
  exception: string | null;
  // Renders begun: the first with the request, one more per restart that found it pending.
  attempts: number;
}

export const SEQ_KEY: [number, number] = [0, 0];

export function isPending(a: ExportRecord): boolean {
  return a.content === null && a.exception === null;
}

export function isExpired(a: ExportRecord, now: Date): boolean {
  return Date.parse(a.expires_after) <= now.getTime();
}

export function assetById(store: ExportsTables, projectId: number, id: number): ExportRecord | undefined {
  return id > 0 ? (store.exports.get([projectId, id]) as ExportRecord | undefined) : undefined;
}

export function projectAssets(store: ExportsTables, projectId: number): ExportRecord[] {
  return projectRows<ExportRecord>(store.exports, projectId);
}

// Every project's assets (start-up and the expiry sweep: one range over a small database).
export function allAssets(store: ExportsTables): ExportRecord[] {
  return [...store.exports.getRange({ start: [1, 1] })].map((e) => e.value as ExportRecord);
}

// export_context when it is an object (it is kept as sent, whatever it is).
export function contextObject(context: unknown): ExportContext | null {
  return typeof context === 'object' && context !== null && !Array.isArray(context) ? (context as ExportContext) : null;
}

// export_context.source: a query exported without an insight (PostHog's data table export).
export function contextQuery(context: unknown): unknown {
  return contextObject(context)?.source ?? null;
}
