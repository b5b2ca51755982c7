// Piscina worker for export rendering (the exports domain's tasks, src/exports/tasks.ts):
// charts, PDFs and spreadsheets are built here, and files written, off the HTTP thread.
import { serveTasks } from '../src/pools/serve.js';
import { renderExport } from '../src/exports/render.js';
import { renderDashboard } from '../src/exports/dashboard/render.js';
import { writeContent } from '../src/exports/assets/files.js';
import type { ExportTasks } from '../src/exports/tasks.js';
import { csvFromSpool, spoolPage } from '../src/exports/tabular/spool.js';
import { rmSync } from 'node:fs';

export default serveTasks<ExportTasks>({
  render: (task) => renderExport(task.format, task.insight, task.context),
  store: (task) => writeContent(task.dir, renderExport(task.format, task.insight, task.context).bytes),
  storeDashboard: (task) => writeContent(task.dir, renderDashboard(task.format, task.dashboard)),
  spool: (task) => spoolPage(task.path, task.results, task.columns),
  spoolCsv: (task) => csvFromSpool(task.dir, task.path, task.keys, task.requested, task.rows, task.note),
  discard: (task) => rmSync(task.path, { force: true }),
});
