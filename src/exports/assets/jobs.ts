// Rendering an asset's file: claim it, run its query (in the aggregation worker), render
// and store the file (in the export worker pool), record the outcome on the asset through
// the write path. Never on the HTTP thread. The request that created the asset waits for
// the job a little (./../api/routes.ts); a large or slow one goes on in the background.
// Pending assets no render holds (a restart, or with NATS a node that died) are resumed, or
// failed once they have had their attempts (./resume.ts says when).
import type { QueryOutput } from './query-output.js';
import type { Logger } from '../../logger.js';
import type { TaskRunner } from '../../pools/index.js';
import type { StateWrites } from '../../state/index.js';
import type { ExportsTables } from '../tables.js';
import type { Project } from '../../access/index.js';
import type { ExportTasks } from '../tasks.js';
import type { ExportContext, InsightData, StoredContent } from '../types.js';
import { collectDashboard, type DashboardSource } from '../dashboard/collect.js';
import { exportEvents, isEventsExport, type EventsExportLimits } from './events-export.js';
import { allAssets, contextObject, contextQuery, isExpired, isPending, type ExportRecord } from './asset-store.js';
import type { RenderClaims } from './claims.js';
import { finishExportCommand, resumeExportCommand } from './commands.js';
import { readContent } from './files.js';
import type { SharedFiles } from './shared.js';

// What an export is made of, from the domains that own it (insights).
export interface ExportSources {
  // The insight's display name and stored query (under the dashboard's filters when the
  // export names one the insight is on); null when it is gone (deleted).
  insight(projectId: number, id: number, dashboard: number | null): { name: string; query: unknown } | null;
  // The dashboard's tiles in order, queries under its filters; null when it is gone.
  dashboard(projectId: number, id: number): DashboardSource | null;
  project(id: number): Project | undefined;
  // The query's response in PostHog's shape (results, and columns and types for tables).
  run(project: Project, query: unknown): Promise<QueryOutput>;
}


export interface RenderJobsOptions {
  store: ExportsTables;
  writes: StateWrites;
  sources: ExportSources;
  pool: TaskRunner<ExportTasks>;
  claims: RenderClaims;
  // Where files are stored (./files.ts).
  dir: string;
  // With NATS: where every node reads files; a render's file is put there before its
  // outcome is recorded (./shared.ts).
  shared?: SharedFiles;
  // Results with more rows than this go to the background at once.
  syncMaxRows: number;
  // Exports of events: how many rows, read how many at a time.
  events: EventsExportLimits;
  timeoutMs: number;
  log: Logger;
  now(): Date;
}

export interface RenderJob {
  // Settles once the outcome is recorded, or at once when another render holds the asset.
  done: Promise<void>;
  // Resolves when the job finds itself large (more result rows than syncMaxRows).
  large: Promise<void>;
}

// A render may begin this many times: with the request, and once more after a restart (or,
// with NATS, on another node once the one rendering it died).
export const MAX_ATTEMPTS = 2;
export const INTERRUPTED = 'The export was interrupted twice while rendering (the node rendering it stopped); create it again.';


const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

function rowCount(results: unknown): number {
  return Array.isArray(results) ? results.length : 0;
}

export function createRenderJobs(opts: RenderJobsOptions) {
  const running = new Set<Promise<void>>();
  let closed = false;

  // The stored file, and the asset's export_context when the render changes it (an export
  // of events cut at the row limit).
  async function render(asset: ExportRecord, large: () => void): Promise<{ content: StoredContent; context: ExportContext | null }> {
    const project = opts.sources.project(asset.project_id);
    if (!project) throw new Error('The project no longer exists.');
    if (asset.insight === null && asset.dashboard !== null) {
      const dashboard = opts.sources.dashboard(asset.project_id, asset.dashboard);
      if (!dashboard) throw new Error('The dashboard was deleted.');
      const { data, rows } = await collectDashboard(dashboard, project, opts.sources.run, opts.now());
      if (rows > opts.syncMaxRows) large();
      return { content: await share(await opts.pool.run('storeDashboard', { dir: opts.dir, format: asset.export_format, dashboard: data })), context: null };
    }
    let source: { name: string; query: unknown } | null;
    if (asset.insight !== null) {
      source = opts.sources.insight(asset.project_id, asset.insight, asset.dashboard);
      if (!source) throw new Error('The insight was deleted.');
    } else {
      const filename = contextObject(asset.export_context)?.filename;
      source = { name: typeof filename === 'string' ? filename : 'Query', query: contextQuery(asset.export_context) };
    }
    let content: StoredContent;
    let context: ExportContext | null = null;
    if (asset.insight === null && isEventsExport(source.query)) {
      ({ content, context } = await exportEvents({
        project, name: source.name, query: source.query, format: asset.export_format, context: contextObject(asset.export_context),
        dir: opts.dir, pool: opts.pool, limits: opts.events, run: opts.sources.run, large: { rows: opts.syncMaxRows, reached: large }, now: opts.now(),
      }));
    } else {
      const output = await opts.sources.run(project, source.query);
      if (rowCount(output.results) > opts.syncMaxRows) large();
      const insight: InsightData = {
        name: source.name, query: source.query, result: output.results, columns: output.columns ?? null, types: output.types ?? null,
        timezone: project.timezone,
      };
      content = await opts.pool.run('store', { format: asset.export_format, insight, context: contextObject(asset.export_context), dir: opts.dir });
    }
    return { content: await share(content), context };
  }

  // With NATS the file goes where every node reads it before its outcome is recorded.
  async function share(content: StoredContent): Promise<StoredContent> {
    if (opts.shared) {
      const bytes = await readContent(opts.dir, content);
      if (!bytes) throw new Error('The rendered file is missing.');
      await opts.shared.put(content, bytes);
    }
    return content;
  }

  function withTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Rendering took longer than ${opts.timeoutMs / 1000} s and was stopped.`)), opts.timeoutMs);
    });
    return Promise.race([work, limit]).finally(() => clearTimeout(timer));
  }

  async function record(asset: ExportRecord, content: StoredContent | null, exception: string | null, context: ExportContext | null = null): Promise<void> {
    try {
      await opts.writes.submit(finishExportCommand, { project_id: asset.project_id, id: asset.id, content, exception, ...(context ? { export_context: context } : {}) });
    } catch (err) {
      opts.log.error('an export\'s outcome could not be recorded', { export_id: asset.id, error: messageOf(err) });
    }
  }

  // `claimed`: the caller holds the asset's claim already (a resume).
  async function run(asset: ExportRecord, large: () => void, claimed: boolean): Promise<void> {
    if (!claimed && !(await opts.claims.claim(asset))) return;
    try {
      const { content, context } = await withTimeout(render(asset, large));
      await record(asset, content, null, context);
    } catch (err) {
      // Stopping the service interrupts renders: they stay pending and resume at the next start.
      if (closed) return;
      opts.log.warn('an export failed to render', { export_id: asset.id, error: messageOf(err) });
      await record(asset, null, messageOf(err));
    } finally {
      opts.claims.release(asset);
    }
  }

  function start(asset: ExportRecord, claimed = false): RenderJob {
    let markLarge!: () => void;
    const large = new Promise<void>((resolve) => { markLarge = resolve; });
    const done = run(asset, markLarge, claimed);
    running.add(done);
    void done.finally(() => running.delete(done));
    return { done, large };
  }

  return {
    start,
    // Pending assets no render holds: those a previous run of the service left (it stopped
    // or crashed while they rendered), and with NATS those of a node that died rendering
    // them. Each gets another attempt, or fails visibly once it had them all. Only those
    // this node can claim: in a cluster, another node may have one in hand (its attempt is
    // not counted, nor its render repeated). Assets created less than `minAgeMs` ago are left
    // to the node that created them, which claims them at once. `waiting`: the pending
    // assets left as they are (held elsewhere, or too young).
    async resumePending(minAgeMs = 0): Promise<{ resumed: number; waiting: number }> {
      let resumed = 0;
      let waiting = 0;
      const now = opts.now();
      for (const pending of allAssets(opts.store).filter((a) => isPending(a) && !isExpired(a, now))) {
        if (closed) break;
        if (now.getTime() - Date.parse(pending.created_at) < minAgeMs || !(await opts.claims.claim(pending))) {
          waiting++;
          continue;
        }
        let asset: ExportRecord | null = null;
        try {
          asset = await opts.writes.submit(resumeExportCommand, {
            project_id: pending.project_id, id: pending.id, maxAttempts: MAX_ATTEMPTS, exception: INTERRUPTED,
          });
        } finally {
          if (!(asset && isPending(asset))) opts.claims.release(pending);
        }
        if (asset && isPending(asset)) {
          start(asset, true);
          resumed++;
        }
      }
      return { resumed, waiting };
    },
    // Renders still running are interrupted (left pending); waits for them to let go. Marks
    // the jobs closed before it returns its promise.
    close(): Promise<void> {
      closed = true;
      return Promise.allSettled([...running]).then(() => undefined);
    },
  };
}

export type RenderJobs = ReturnType<typeof createRenderJobs>;
