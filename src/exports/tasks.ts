// The exports domain's tasks for its worker pool (src/pools/, workers/exports.ts):
// rendering runs there, never on the HTTP thread. Inputs and outputs are plain data.
import type { Task } from '../pools/index.js';
import type { ExportFormat } from './formats.js';
import type { DashboardData } from './dashboard/types.js';
import type { ExportContext, InsightData, RenderedExport, StoredContent } from './types.js';

export interface RenderTask {
  format: ExportFormat;
  insight: InsightData;
  context: ExportContext | null;
}

// Render and store the file under `dir` (./assets/files.ts): the bytes never cross back
// to the main thread, only their hash and size.
export interface StoreTask extends RenderTask {
  dir: string;
}

// A dashboard rendered whole (./dashboard/render.ts) and stored under `dir`.
export interface StoreDashboardTask {
  dir: string;
  format: ExportFormat;
  dashboard: DashboardData;
}

// A page of an export of events appended to its spool file (../tabular/spool.ts); answers
// the page's columns.
export interface SpoolTask {
  path: string;
  results: unknown[][];
  columns: string[] | null;
}

// The CSV of a spool, stored under `dir`; the spool is deleted.
export interface SpoolCsvTask {
  dir: string;
  path: string;
  keys: string[];
  requested: string[];
  rows: number;
  note: string | null;
}

export type ExportTasks = {
  render: Task<RenderTask, RenderedExport>;
  store: Task<StoreTask, StoredContent>;
  storeDashboard: Task<StoreDashboardTask, StoredContent>;
  spool: Task<SpoolTask, string[]>;
  spoolCsv: Task<SpoolCsvTask, StoredContent>;
  discard: Task<{ path: string }, void>;
};
