// The routes of a project's resource that is listed, created, read and changed through
// the API and deleted only softly, as PostHog's flags and cohorts are (hog functions and
// insights next):
//   GET   …/<path>/       the project's records, filtered and ordered by `list`, paginated
//   POST  …/<path>/       create from the JSON body → 201
//   GET   …/<path>/:id/   one record (404 unless a numeric id of this project)
//   PATCH …/<path>/:id/   update from the JSON body (PATCH {"deleted": true} deletes)
//   DELETE …/<path>/:id/  405, no body (errors.softDeleteOnly)
// under /api/projects/:project_id/ and /api/environments/:project_id/.
import { errors } from '../../errors.js';
import { jsonObject } from '../../http/body.js';
import { paginate } from '../../http/paginate.js';
import { json } from '../../http/reply.js';
import type { HttpRequest, HttpResponse, Route } from '../../http/types.js';
import type { ManagementAuth, ProjectContext } from './management.js';

export type JsonBody = Record<string, unknown>;

export interface ResourceSpec<R> {
  // Below the project, e.g. 'feature_flags'.
  path: string;
  scope: string;
  // The records the list shows, filtered by the request's query and in list order.
  list(req: HttpRequest, ctx: ProjectContext): R[];
  find(projectId: number, id: number): R | undefined;
  create(body: JsonBody, ctx: ProjectContext): R | Promise<R>;
  update(record: R, body: JsonBody, ctx: ProjectContext): R | Promise<R>;
  // The API shape of a record, made once per request (it may read what every record of a
  // list page shares, or the request's query: insights calculate their results).
  presenter(ctx: ProjectContext, req: HttpRequest): (record: R) => unknown | Promise<unknown>;
  // How a create or update body is read (default: a JSON object; cohorts take forms too).
  body?(req: HttpRequest): JsonBody;
  // Another rendering of a list page (insights' ?format=csv), or null for the JSON envelope.
  renderList?(req: HttpRequest, ctx: ProjectContext, shown: readonly unknown[]): HttpResponse | null;
}

export function resourceRoutes<R>(auth: ManagementAuth, spec: ResourceSpec<R>): Route[] {
  const { path, scope } = spec;
  const one = `${path}/:id`;
  function recordOf(req: HttpRequest, ctx: ProjectContext): R {
    const id = req.params.id;
    const record = /^\d+$/.test(id) ? spec.find(ctx.project.id, Number(id)) : undefined;
    if (!record) throw errors.notFound();
    return record;
  }
  return [
    ...auth.projectRoutes({
      methods: ['GET'], path, scope,
      async handler(req, ctx) {
        const page = paginate(req, spec.list(req, ctx));
        const results = await Promise.all(page.results.map(spec.presenter(ctx, req)));
        return spec.renderList?.(req, ctx, results) ?? json(200, { ...page, results });
      },
    }),
    ...auth.projectRoutes({
      methods: ['POST'], path, scope,
      handler: async (req, ctx) => json(201, await spec.presenter(ctx, req)(await spec.create((spec.body ?? jsonObject)(req), ctx))),
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: one, scope,
      handler: async (req, ctx) => json(200, await spec.presenter(ctx, req)(recordOf(req, ctx))),
    }),
    ...auth.projectRoutes({
      methods: ['PATCH'], path: one, scope,
      handler: async (req, ctx) => json(200, await spec.presenter(ctx, req)(await spec.update(recordOf(req, ctx), (spec.body ?? jsonObject)(req), ctx))),
    }),
    ...auth.projectRoutes({
      methods: ['DELETE'], path: one, scope,
      handler() { throw errors.softDeleteOnly(); },
    }),
  ];
}
