// The exports module's start: the render pool (started on the first export: ECharts, resvg
// and the PDF writer load there; a worker over its heap limit fails its render), the
// cluster's claims and shared files (with NATS a render whose node died is resumed by
// another once its claim lapsed), and the API.
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import type { InsightsTables, QueryService } from '../insights/index.js';
import { insightsModule } from '../insights/module.js';
import type { DashboardsTables } from '../dashboards/index.js';
import { createLazyWorkerPool } from '../pools/index.js';
import type { ExportsTables } from './tables.js';
import type { ExportTasks } from './tasks.js';
import { openSharedExports } from './assets/shared.js';
import { createExportsApi, type ExportsApi } from './api/wiring.js';

const EXPORT_WORKER_URL = new URL('../../workers/exports.js', import.meta.url);

export type ExportsTablesUsed = ExportsTables & InsightsTables & DashboardsTables;

// What the exports module gives the modules after it.
export interface ExportsProvides {
  publishPng: ExportsApi['publishPng'];
}

export async function startExports(ctx: NodeContext<ExportsTablesUsed>, use: Use): Promise<Started<ExportsProvides>> {
  const { config, log } = ctx;
  const { auth, tenancy } = use(accessModule);
  const { service } = use(insightsModule);
  const pool = createLazyWorkerPool<ExportTasks>({
    worker: EXPORT_WORKER_URL, threads: config.exports.workers, workerData: undefined, resourceLimits: { maxOldGenerationSizeMb: 2048 },
  });
  const shared = await openSharedExports(ctx.cluster, { onError: (err) => log.warn('export claim lost', { error: err.message }) });
  // A render still waiting for its query when the node closes is interrupted (it resumes at
  // the next start) rather than waited for: the insights module closes after this one.
  let interrupt!: (err: Error) => void;
  const closing = new Promise<never>((_resolve, reject) => { interrupt = reject; });
  closing.catch(() => undefined);
  const queries: QueryService = { ...service, answer: (...args) => Promise.race([service.answer(...args), closing]) };
  const exports = createExportsApi({ auth, store: ctx.store, writes: ctx.writes, tenancy, queries, pool, dataDir: config.dataDir, settings: config.exports, log, shared, siteUrl: config.siteUrl });
  return {
    provides: { publishPng: exports.publishPng },
    routes: exports.routes,
    async close() {
      const closed = exports.close();
      interrupt(new Error('the node is closing'));
      await pool.close();
      await closed;
      await shared.close();
    },
  };
}
