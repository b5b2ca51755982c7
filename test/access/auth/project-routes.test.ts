// The management route helpers without sockets: projectRoutes declares a project's route
// once for both of PostHog's prefixes and hands the handler the project; resourceRoutes is
// the list/create/read/update skeleton flags and cohorts share, DELETE refused with 405.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../../src/tables.js';
import { createTenancyStore } from '../../../src/access/tenancy/store.js';
import { tenancyCommands } from '../../../src/access/tenancy/commands.js';
import { createLocalWrites } from '../../../src/state/index.js';
import { bootstrap } from '../../../src/access/tenancy/bootstrap.js';
import { createManagementAuth, type ManagementAuth } from '../../../src/access/auth/management.js';
import { resourceRoutes } from '../../../src/access/auth/resource-routes.js';
import { createRateLimiter } from '../../../src/access/auth/rate-limit.js';
import { createRouter } from '../../../src/http/router.js';
import { errorResponse, json } from '../../../src/http/reply.js';
import type { HttpRequest, HttpResponse, Route } from '../../../src/http/types.js';
import { createLogger } from '../../../src/logger.js';
import { storePerTest } from '../../helpers/temp-store.js';

let store: Store;
let auth: ManagementAuth;
let key: string;
let projectId: number;
const s = suite('project routes');
storePerTest(s, 'hedgerow-project-routes-', (opened) => { store = opened; });
s.before.each(async () => {
  const tenancy = createTenancyStore(store, createLocalWrites(store, tenancyCommands));
  const boot = await bootstrap(tenancy);
  projectId = boot.project.id;
  key = (await tenancy.createPersonalKey(boot.admin.id, ['*'], null, 'test')).key;
  auth = createManagementAuth({ tenancy, onAuthFailure() {}, rateLimit: createRateLimiter({ limit: 1000, windowMs: 60_000 }) });
});

// Routes a request as the server would and answers it, errors included.
async function call(routes: Route[], method: string, path: string, body?: unknown): Promise<HttpResponse> {
  const { route, params } = createRouter(routes).match(method, path);
  if (!route) return { status: 404 };
  const req: HttpRequest = {
    method, path, rawQuery: '', query: new URLSearchParams(), headers: { authorization: `Bearer ${key}` }, ip: '127.0.0.1',
    body: body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body)), params,
  };
  try {
    return await route.handler(req);
  } catch (err) {
    return errorResponse(err, createLogger('silent'));
  }
}
const bodyOf = (r: HttpResponse) => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body);

s('one declaration serves the project under /api/projects/ and /api/environments/, with the project resolved', async () => {
  const routes = auth.projectRoutes({
    methods: ['GET'], path: 'things/:id', scope: 'query',
    handler: (req, { project, user }) => json(200, { project: project.id, user: user.email, id: req.params.id }),
  });
  assert.equal(routes.map((r) => r.pattern), ['/api/projects/:project_id/things/:id', '/api/environments/:project_id/things/:id']);
  for (const path of [`/api/projects/${projectId}/things/7`, `/api/environments/${projectId}/things/7`, '/api/projects/@current/things/7']) {
    assert.equal(bodyOf(await call(routes, 'GET', path)), { project: projectId, user: 'admin@hedgerow.local', id: '7' });
  }
  assert.equal(bodyOf(await call(routes, 'GET', '/api/projects/999/things/7')).detail, 'Project not found.');
});

s('a route outside projects refuses a project pattern: projectRoutes declares those', () => {
  assert.throws(() => auth.route({ methods: ['GET'], pattern: '/api/projects/:project_id/things', scope: 'query', handler: () => json(200, {}) }),
    /projectRoutes/);
});

s('the resource skeleton lists, creates, reads and updates; DELETE is 405 with no body', async () => {
  interface Thing { id: number; project_id: number; name: string }
  const things = new Map<number, Thing>();
  const routes = resourceRoutes<Thing>(auth, {
    path: 'things', scope: 'query',
    list: (_req, { project }) => [...things.values()].filter((t) => t.project_id === project.id).reverse(),
    find: (pid, id) => (things.get(id)?.project_id === pid ? things.get(id) : undefined),
    create(body, { project }) {
      const thing = { id: things.size + 1, project_id: project.id, name: String(body.name) };
      things.set(thing.id, thing);
      return thing;
    },
    update: (thing, body) => { thing.name = String(body.name ?? thing.name); return thing; },
    presenter: ({ user }) => (t) => ({ ...t, seen_by: user.id }),
  });
  const base = `/api/environments/${projectId}/things`;
  const created = await call(routes, 'POST', `${base}/`, { name: 'a' });
  assert.is(created.status, 201);
  assert.equal(bodyOf(created), { id: 1, project_id: projectId, name: 'a', seen_by: 1 });
  await call(routes, 'POST', `${base}/`, { name: 'b' });
  const listed = bodyOf(await call(routes, 'GET', `${base}/`));
  assert.is(listed.count, 2);
  assert.equal(listed.results.map((t: Thing) => t.name), ['b', 'a']);
  assert.is(bodyOf(await call(routes, 'PATCH', `/api/projects/${projectId}/things/1/`, { name: 'c' })).name, 'c');
  assert.is(bodyOf(await call(routes, 'GET', `${base}/1/`)).name, 'c');
  assert.is((await call(routes, 'GET', `${base}/x/`)).status, 404);
  assert.is((await call(routes, 'GET', `${base}/9/`)).status, 404);
  const deleted = await call(routes, 'DELETE', `${base}/1/`);
  assert.is(deleted.status, 405);
  assert.is(deleted.body, null);
  assert.is(things.size, 2);
});

s.run();
