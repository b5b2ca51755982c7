// The exports domain's tasks for its worker pool (src/pools/, workers/exports.ts):
// rendering runs there, never on the HTTP thread. Inputs and outputs are plain data.
import type { Task } from '../pools/index.js';
import type { ExportFormat } from './formats.js';
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

export type ExportTasks = {
  render: Task<RenderTask, RenderedExport>;
  store: Task<StoreTask, StoredContent>;
};
