// The web app's start: its pages (the HTML page, the files it loads, the world map the
// charts draw countries on), which the node serves on its port or on the app's own
// (HEDGEROW_APP_PORT, src/node/serve.ts), and the two API routes only the app uses: the
// live events tail (server-sent events) and the node's status.
import type { NodeContext, Started, Use } from '../modules/index.js';
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import { json } from '../http/reply.js';
import { accessModule } from '../access/module.js';
import { openLogReader } from '../log/open.js';
import type { LogTables } from '../log/tables.js';
import { captureCodec } from '../capture/frames.js';
import { listNodes } from '../ops/announce.js';
import { appFiles, REVALIDATE, staticFile, type StaticFile } from './static.js';
import { indexPage } from './page.js';
import { createLiveTail, type LiveEvent } from './live.js';

export interface AppProvides {
  // What serves the app in a browser; empty when HEDGEROW_APP_PORT is off.
  pages: Route[];
}

const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin' };
// A comment line every so often keeps proxies from closing a quiet stream.
const KEEPALIVE_MS = 15_000;

function serveFile(file: StaticFile, extra: Record<string, string> = {}) {
  const headers = { ...SECURITY_HEADERS, 'Content-Type': file.type, 'Cache-Control': file.cache, ETag: file.etag, ...extra };
  const notModified = { ...SECURITY_HEADERS, 'Cache-Control': file.cache, ETag: file.etag, ...extra };
  return (req: HttpRequest): HttpResponse => {
    const tags = req.headers['if-none-match'];
    if (tags !== undefined && tags.split(',').some((t) => t.trim() === file.etag || t.trim() === '*')) return { status: 304, headers: notModified, body: null };
    return { status: 200, headers, body: file.body };
  };
}

const page = (pattern: string, handler: Route['handler']): Route => ({ methods: ['GET'], pattern, bodyLimit: 0, handler });

function pages(): Route[] {
  const app = appFiles();
  const index = indexPage(app);
  const routes = [page('/', serveFile(index.file, { 'Content-Security-Policy': index.csp, 'X-Frame-Options': 'DENY' }))];
  for (const [url, file] of app.files) routes.push(page(url, serveFile(file)));
  // Made on the first map drawn (reading the atlas takes a while), then kept.
  let world: ((req: HttpRequest) => HttpResponse) | null = null;
  routes.push(page('/app/world.json', async (req) => {
    if (!world) {
      const { worldGeoJson } = await import('../exports/chart/world.js');
      world = serveFile(staticFile(Buffer.from(JSON.stringify(worldGeoJson())), 'application/json', REVALIDATE));
    }
    return world(req);
  }));
  return routes;
}

export function startApp(ctx: NodeContext<LogTables>, use: Use): Started<AppProvides> {
  const { auth } = use(accessModule);
  const tail = createLiveTail({
    openReader: () => openLogReader(ctx.cluster, ctx.store, captureCodec), lastSeq: () => ctx.eventLog.lastSeq(), log: ctx.log,
  });
  const streams = new Set<() => void>();
  const api: Route[] = [
    ...auth.projectRoutes({
      methods: ['GET'], path: 'live_events', scope: 'query',
      handler: (req, { project }): HttpResponse => ({
        status: 200,
        headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
        stream(out) {
          const filter = { projectId: project.id, event: req.query.get('event') || null, distinctId: req.query.get('distinct_id') || null };
          const send = (events: LiveEvent[]) => { out.write(`data: ${JSON.stringify(events)}\n\n`); };
          const end = () => out.end();
          streams.add(end);
          const keepalive = setInterval(() => out.write(': keepalive\n\n'), KEEPALIVE_MS);
          let stop: (() => void) | null = null;
          let closed = false;
          out.onClose(() => { closed = true; clearInterval(keepalive); streams.delete(end); stop?.(); });
          tail.watch(filter, send).then((s) => {
            if (closed) s();
            else { stop = s; out.write('event: ready\ndata: {}\n\n'); }
          }, () => out.end());
        },
      }),
    }),
    auth.route({
      methods: ['GET'], pattern: '/api/app/status', scope: 'project',
      async handler() {
        const last = ctx.eventLog.lastSeq();
        const readiness = ctx.readiness();
        return json(200, {
          ready: readiness.ok, checks: readiness.checks, reasons: readiness.reasons ?? {},
          log: { id: ctx.eventLog.id, last_seq: last },
          consumers: ctx.consumers.positions().map((c) => ({ ...c, lag_records: Math.max(0, last - c.position) })),
          claims: ctx.consumers.held(),
          control: ctx.control ? { applied: ctx.control.applied(), lag: ctx.control.lag() } : null,
          nodes: ctx.cluster.jetstream ? await listNodes(ctx.cluster) : null,
        });
      },
    }),
  ];
  return {
    provides: { pages: ctx.config.app.port === 'off' ? [] : pages() },
    routes: api,
    close() {
      for (const end of [...streams]) end();
      tail.close();
    },
  };
}
