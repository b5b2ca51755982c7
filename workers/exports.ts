// Piscina worker for export rendering (the exports domain's tasks, src/exports/tasks.ts):
// charts, PDFs and spreadsheets are built here, off the HTTP thread.
import { serveTasks } from '../src/pools/serve.js';
import { renderExport } from '../src/exports/index.js';
import type { ExportTasks } from '../src/exports/tasks.js';

export default serveTasks<ExportTasks>({
  render: (task) => renderExport(task.format, task.insight, task.context),
});
