// The exports API as the service mounts it: the routes, the render jobs (queries through the
// insights API's service, files in the export worker pool), the resume of renders a restart
// or a dead node interrupted, and the expiry sweep.
import type { ManagementAuth, TenancyStore, Project } from '../../access/index.js';
import type { Route } from '../../http/types.js';
import { insightById, type InsightRecord, type InsightsTables, type QueryService } from '../../insights/index.js';
import type { Logger } from '../../logger.js';
import type { TaskRunner } from '../../pools/index.js';
import type { StateWrites } from '../../state/index.js';
import type { ExportsTables } from '../tables.js';
import { contentDir } from '../assets/files.js';
import type { SharedExports } from '../assets/shared.js';
import { createRenderJobs, type ExportSources, type QueryOutput } from '../assets/jobs.js';
import { startResumer } from '../assets/resume.js';
import { startSweeper, type Sweeper } from '../assets/sweep.js';
import type { ExportTasks } from '../tasks.js';
import { exportRoutes } from './routes.js';

export interface ExportsSettings {
  syncWaitMs: number;
  syncMaxRows: number;
  rowLimit: number;
  pageRows: number;
  renderTimeoutMs: number;
  sweepIntervalMs: number;
}

export interface ExportsApiOptions {
  auth: ManagementAuth;
  // Its assets, and the insights they are rendered from.
  store: ExportsTables & InsightsTables;
  writes: StateWrites;
  tenancy: TenancyStore;
  queries: QueryService;
  pool: TaskRunner<ExportTasks>;
  dataDir: string;
  settings: ExportsSettings;
  log: Logger;
  // The render claims and shared files of the cluster (../assets/shared.ts): one render per
  // asset; files every node reads (with NATS); the claims' TTL, which paces the periodic
  // resume of dead nodes' renders (null embedded: resume at start only, ../assets/resume.ts).
  shared: SharedExports;
  now?: () => Date;
}

export interface ExportsApi {
  routes: Route[];
  // Renders still running are left pending (the next start resumes them); the sweep stops.
  close(): Promise<void>;
}

const displayName = (i: InsightRecord) => i.name || i.derived_name || 'Insight';

export function createExportsApi(opts: ExportsApiOptions): ExportsApi {
  const now = opts.now ?? (() => new Date());
  const dir = contentDir(opts.dataDir);
  // Insight ids are global: the request names one without its project.
  const findInsight = (id: number): InsightRecord | undefined => {
    for (const p of opts.tenancy.projects()) {
      const found = insightById(opts.store, p.id, id);
      if (found) return found;
    }
    return undefined;
  };
  const sources: ExportSources = {
    insight(projectId, id) {
      const found = insightById(opts.store, projectId, id);
      return found && !found.deleted ? { name: displayName(found), query: found.query } : null;
    },
    project: (id) => opts.tenancy.project(id),
    async run(project: Project, query: unknown): Promise<QueryOutput> {
      const answer = await opts.queries.answer(project, query, { mode: 'blocking' });
      if (answer.kind !== 'result') throw new Error('The query was not calculated.');
      return answer.response;
    },
  };
  const jobs = createRenderJobs({
    store: opts.store, writes: opts.writes, sources, pool: opts.pool, claims: opts.shared.claims, dir,
    shared: opts.shared.files,
    syncMaxRows: opts.settings.syncMaxRows, events: { rowLimit: opts.settings.rowLimit, pageRows: opts.settings.pageRows }, timeoutMs: opts.settings.renderTimeoutMs, log: opts.log, now,
  });
  const resumer = startResumer({ jobs, writes: opts.writes, claimTtlMs: opts.shared.claimTtlMs, log: opts.log });
  const sweeper: Sweeper = startSweeper({ store: opts.store, writes: opts.writes, dir, shared: opts.shared.files }, opts.settings.sweepIntervalMs, now, opts.log);
  const routes = exportRoutes({
    auth: opts.auth, store: opts.store, writes: opts.writes, jobs, dir, shared: opts.shared.files, syncWaitMs: opts.settings.syncWaitMs, now,
    insight(id) {
      const found = findInsight(id);
      return found && { project_id: found.project_id, deleted: found.deleted, hasQuery: found.query !== null, name: displayName(found) };
    },
  });
  return {
    routes,
    async close() {
      // Before anything yields: renders failing from here on were interrupted, not broken.
      const interrupted = jobs.close();
      await resumer.stop();
      await sweeper.stop();
      await interrupted;
    },
  };
}
