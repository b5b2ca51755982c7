// Exported assets under /api/projects/:project_id/exports/ and its /api/environments/ twin
// (scope export): list (the caller's own, newest first; ?export_format= filters), create
// (201: the file is rendered before the answer when it is quick and small, else in the
// background), retrieve, and …/exports/:id/content/ (the file, 404 until it exists). An
// expired asset is gone for every read from the moment it expires. No PATCH or DELETE, as
// PostHog (the router answers 405).
import type { ManagementAuth, ProjectContext } from '../../access/index.js';
import { errors } from '../../errors.js';
import { jsonObject } from '../../http/body.js';
import { paginate } from '../../http/paginate.js';
import { json } from '../../http/reply.js';
import type { HttpRequest, HttpResponse, Route } from '../../http/types.js';
import type { StateWrites } from '../../state/index.js';
import type { ExportsTables } from '../tables.js';
import { defaultExpiresAfter, exportFilename } from '../asset-rules.js';
import { assetById, contextObject, isExpired, projectAssets, type ExportRecord } from '../assets/asset-store.js';
import { insertExportCommand } from '../assets/commands.js';
import { cacheContent, readContent } from '../assets/files.js';
import type { RenderJobs } from '../assets/jobs.js';
import type { SharedFiles } from '../assets/shared.js';
import { EXPORT_FORMATS } from '../formats.js';
import { presentAsset } from './present.js';
import { parseExportRequest, type DashboardTarget, type InsightTarget } from './validate.js';

export interface ExportRoutesOptions {
  auth: ManagementAuth;
  store: ExportsTables;
  writes: StateWrites;
  jobs: RenderJobs;
  // Where files are stored.
  dir: string;
  // With NATS: where a file this node did not render is read from.
  shared?: SharedFiles;
  // An insight by its global id, in whichever project; its name for the file name.
  insight(id: number): (InsightTarget & { name: string }) | undefined;
  // A dashboard likewise.
  dashboard(id: number): (DashboardTarget & { name: string }) | undefined;
  // How long a create waits for its file.
  syncWaitMs: number;
  now(): Date;
}

const newestFirst = (a: ExportRecord, b: ExportRecord) => b.created_at.localeCompare(a.created_at) || b.id - a.id;

function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); });
  return { promise, cancel: () => clearTimeout(timer) };
}

export function exportRoutes(opts: ExportRoutesOptions): Route[] {
  const { auth, store } = opts;

  // The caller's own asset of this project, unexpired (PostHog shows an export to its creator only).
  function assetOf(req: HttpRequest, { project, user }: ProjectContext): ExportRecord {
    const id = req.params.id;
    const asset = /^\d+$/.test(id) ? assetById(store, project.id, Number(id)) : undefined;
    if (!asset || asset.created_by !== user.id || isExpired(asset, opts.now())) throw errors.notFound();
    return asset;
  }

  async function create(req: HttpRequest, ctx: ProjectContext): Promise<HttpResponse> {
    const request = parseExportRequest(jsonObject(req), ctx.project.id, opts);
    const now = opts.now();
    const insight = request.insight === null ? undefined : opts.insight(request.insight);
    // The file is named after the dashboard when the whole dashboard is exported.
    const dashboard = request.dashboard === null || insight ? undefined : opts.dashboard(request.dashboard);
    const asset = await opts.writes.submit(insertExportCommand, {
      project_id: ctx.project.id, created_by: ctx.user.id, dashboard: request.dashboard, insight: request.insight,
      export_format: request.format, export_context: request.exportContext, created_at: now.toISOString(),
      expires_after: (request.expiresAfter ?? defaultExpiresAfter(request.format, now)).toISOString(),
      filename: exportFilename({
        format: request.format, contextFilename: contextObject(request.exportContext)?.filename, insightName: insight?.name,
        dashboardName: dashboard?.name, hasInsight: insight !== undefined, createdAt: now,
      }),
      content: null, exception: null, attempts: 1,
    });
    const job = opts.jobs.start(asset);
    const waited = delay(opts.syncWaitMs);
    await Promise.race([job.done, job.large, waited.promise]);
    waited.cancel();
    return json(201, presentAsset(assetById(store, asset.project_id, asset.id) ?? asset));
  }

  return [
    ...auth.projectRoutes({
      methods: ['GET'], path: 'exports', scope: 'export',
      handler(req, ctx) {
        const format = req.query.get('export_format');
        const byFormat = format !== null && (EXPORT_FORMATS as readonly string[]).includes(format) ? format : null;
        const now = opts.now();
        const shown = projectAssets(store, ctx.project.id)
          .filter((a) => a.created_by === ctx.user.id && !isExpired(a, now) && (byFormat === null || a.export_format === byFormat))
          .sort(newestFirst);
        const page = paginate(req, shown);
        return json(200, { ...page, results: page.results.map(presentAsset) });
      },
    }),
    ...auth.projectRoutes({ methods: ['POST'], path: 'exports', scope: 'export', handler: create }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'exports/:id', scope: 'export',
      handler: (req, ctx) => json(200, presentAsset(assetOf(req, ctx))),
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'exports/:id/content', scope: 'export',
      async handler(req, ctx) {
        const asset = assetOf(req, ctx);
        // The local file, else (in a cluster, rendered by another node) the shared copy.
        let bytes: Buffer | null = asset.content ? await readContent(opts.dir, asset.content) : null;
        if (!bytes && asset.content && opts.shared) {
          bytes = await opts.shared.get(asset.content);
          // Kept here for the next read; a failure to keep it only costs a read from NATS.
          if (bytes) void cacheContent(opts.dir, asset.content, bytes).catch(() => undefined);
        }
        if (!bytes) throw errors.notFound();
        return {
          status: 200,
          headers: { 'Content-Type': asset.export_format, 'Content-Disposition': `attachment; filename="${asset.filename}"` },
          body: bytes,
        };
      },
    }),
  ];
}
