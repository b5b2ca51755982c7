// The exports domain's task for its worker pool (src/pools/, workers/exports.ts):
// rendering runs there, never on the HTTP thread. Inputs and outputs are plain data.
import type { Task } from '../pools/index.js';
import type { ExportFormat } from './formats.js';
import type { ExportContext, InsightData, RenderedExport } from './types.js';

export interface RenderTask {
  format: ExportFormat;
  insight: InsightData;
  context: ExportContext | null;
}

export type ExportTasks = {
  render: Task<RenderTask, RenderedExport>;
};
