// The exports API as the service mounts it: the routes, the render jobs (queries through the
// insights API's service, files in the export worker pool), the resume of renders a restart
// or a dead node interrupted, and the expiry sweep.
import type { ManagementAuth, TenancyStore, Project } from '../../access/index.js';
import { dashboardById, shownTiles, tileQuery, type DashboardRecord, type DashboardsTables } from '../../dashboards/index.js';
import type { Route } from '../../http/types.js';
import { insightById, type InsightRecord, type InsightsTables, type QueryService } from '../../insights/index.js';
import type { Logger } from '../../logger.js';
import type { TaskRunner } from '../../pools/index.js';
import type { StateWrites } from '../../state/index.js';
import type { ExportsTables } from '../tables.js';
import { contentDir, readContent } from '../assets/files.js';
import { insertExportCommand } from '../assets/commands.js';
import { defaultExpiresAfter, exportFilename } from '../asset-rules.js';
import { publicLink, publicRoutes } from './public.js';
import type { SharedExports } from '../assets/shared.js';
import type { DashboardSource } from '../dashboard/collect.js';
import { gridBox } from '../dashboard/layout.js';
import { createRenderJobs, type ExportSources } from '../assets/jobs.js';
import type { QueryOutput } from '../assets/query-output.js';
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
  // Its assets, and the insights and dashboards they are rendered from.
  store: ExportsTables & InsightsTables & DashboardsTables;
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
  // Where the service is reached: public links of published pictures start with it.
  siteUrl: string;
  now?: () => Date;
}

export interface PublishRequest {
  projectId: number;
  insightId: number;
  dashboardId: number | null;
  createdBy: number;
  subscriptionId: number;
}

export interface ExportsApi {
  routes: Route[];
  // An insight's PNG (under its dashboard's filters when one is named) for what sends
  // pictures (subscriptions): its query run, drawn in the export worker pool, kept as an
  // exported asset of the subscription's creator, and given a public link (./public.ts).
  publishPng(p: PublishRequest): Promise<{ bytes: Uint8Array; url: string }>;
  // Renders still running are left pending (the next start resumes them); the sweep stops.
  close(): Promise<void>;
}

const displayName = (i: InsightRecord) => i.name || i.derived_name || 'Insight';
const dashboardName = (d: DashboardRecord) => d.name || 'Untitled dashboard';

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
  // Dashboard ids are global too.
  const findDashboard = (id: number): DashboardRecord | undefined => {
    for (const p of opts.tenancy.projects()) {
      const found = dashboardById(opts.store, p.id, id);
      if (found) return found;
    }
    return undefined;
  };
  const liveDashboard = (projectId: number, id: number) => {
    const d = dashboardById(opts.store, projectId, id);
    return d && !d.deleted ? d : null;
  };
  const sources: ExportSources = {
    insight(projectId, id, dashboardId) {
      const found = insightById(opts.store, projectId, id);
      if (!found || found.deleted) return null;
      const d = dashboardId === null ? null : liveDashboard(projectId, dashboardId);
      const tile = d && shownTiles(opts.store, d).find((t) => t.insight?.id === id);
      return { name: displayName(found), query: d && tile ? tileQuery(tile.tile, found, d.filters, d.variables) : found.query };
    },
    dashboard(projectId, id): DashboardSource | null {
      const d = liveDashboard(projectId, id);
      if (!d) return null;
      return {
        id: d.id, name: dashboardName(d), description: d.description, filters: d.filters,
        tiles: shownTiles(opts.store, d).map(({ tile, insight }) => ({
          id: tile.id, layout: gridBox(tile.layouts), text: tile.text ? tile.text.body ?? '' : null,
          insight: insight && { id: insight.id, name: displayName(insight), query: tileQuery(tile, insight, d.filters, d.variables) },
        })),
      };
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
    dashboard(id) {
      const found = findDashboard(id);
      return found && { project_id: found.project_id, deleted: found.deleted, name: dashboardName(found) };
    },
  });
  return {
    routes: [...routes, ...publicRoutes({ store: opts.store, dir, shared: opts.shared.files, now })],
    async publishPng(p) {
      const project = sources.project(p.projectId);
      if (!project) throw new Error('The project no longer exists.');
      const source = sources.insight(p.projectId, p.insightId, p.dashboardId);
      if (!source) throw new Error('The insight was deleted.');
      const output = await sources.run(project, source.query);
      const insight = { name: source.name, query: source.query, result: output.results, columns: output.columns ?? null, types: output.types ?? null, timezone: project.timezone };
      const content = await opts.pool.run('store', { format: 'image/png', insight, context: null, dir });
      const bytes = await readContent(dir, content);
      if (!bytes) throw new Error('The rendered file is missing.');
      await opts.shared.files?.put(content, bytes);
      const at = now();
      await opts.writes.submit(insertExportCommand, {
        project_id: p.projectId, created_by: p.createdBy, dashboard: p.dashboardId, insight: p.insightId, export_format: 'image/png',
        export_context: { subscription_id: p.subscriptionId }, created_at: at.toISOString(), expires_after: defaultExpiresAfter('image/png', at).toISOString(),
        filename: exportFilename({ format: 'image/png', insightName: source.name, hasInsight: true, createdAt: at }), content, exception: null, attempts: 1,
      });
      return { bytes, url: publicLink(opts.siteUrl, content) };
    },
    async close() {
      // Before anything yields: renders failing from here on were interrupted, not broken.
      const interrupted = jobs.close();
      await resumer.stop();
      await sweeper.stop();
      await interrupted;
    },
  };
}
