// PostHog's query API, under /api/environments/:project_id/ and /api/projects/:project_id/
// (scope query:read, for every method):
//   POST   query/      {query, refresh?, client_query_id?} → the result (200), a cache miss
//                      (force_cache), or {query_status} when calculating in the background (202)
//   GET    query/:id/  a background calculation: 202 while it runs, 200 once it is done
//   DELETE query/:id/  cancels it → 204
import type { ManagementAuth } from '../../access/index.js';
import { errors } from '../../errors.js';
import { jsonObject } from '../../http/body.js';
import { json, noContent } from '../../http/reply.js';
import type { Route } from '../../http/types.js';
import { asApiErrors } from './errors.js';
import type { Answer, QueryService } from './query-service.js';
import { refreshMode } from './refresh.js';

/** An answer as the query API's body and status. */
export function answerBody(answer: Answer): { status: number; body: Record<string, unknown> } {
  switch (answer.kind) {
    case 'result':
      return { status: 200, body: { ...answer.response, ...answer.fields, query_status: answer.queryStatus } };
    case 'miss':
      return { status: 200, body: { cache_key: answer.cacheKey, is_cached: false, results: null, query_status: null } };
    case 'started':
      return { status: 202, body: { query_status: answer.queryStatus } };
  }
}

export function queryRoutes({ auth, service }: { auth: ManagementAuth; service: QueryService }): Route[] {
  return [
    ...auth.projectRoutes({
      methods: ['POST'], path: 'query', scope: 'query', access: 'read',
      async handler(req, { project }) {
        const body = jsonObject(req);
        if (body.query === undefined || body.query === null) throw errors.required('query');
        // PostHog's older clients send async: true for a background calculation.
        const mode = refreshMode(body.refresh ?? (body.async === true ? 'force_async' : undefined), 'blocking');
        if (mode === null) throw errors.invalidChoice(body.refresh, 'refresh');
        const clientQueryId = typeof body.client_query_id === 'string' && body.client_query_id !== '' ? body.client_query_id : null;
        const answer = await asApiErrors(() => service.answer(project, body.query, { mode, clientQueryId }));
        const { status, body: out } = answerBody(answer);
        return json(status, out);
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'query/:id', scope: 'query', access: 'read',
      async handler(req, { project }) {
        const status = await service.status(project.id, req.params.id);
        if (!status) throw errors.notFound();
        return json(status.complete ? 200 : 202, { query_status: status });
      },
    }),
    ...auth.projectRoutes({
      methods: ['DELETE'], path: 'query/:id', scope: 'query', access: 'read',
      async handler(req, { project }) {
        if (!(await service.cancel(project.id, req.params.id))) throw errors.notFound();
        return noContent();
      },
    }),
  ];
}
