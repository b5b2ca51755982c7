// Walks the whole route table of a running server: every management route (everything
// under /api/, and anything else that declares a scope) must come from auth.route or auth.projectRoutes,
// name a scope object keys can be minted with, refuse a key missing that scope and let
// a key holding only that scope past the scope check. A route added later without a
// scope fails here.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, NO_CONSUMERS, request, bearer, type TestServer } from '../../helpers/server.js';
import { SCOPE_OBJECTS, accessFor } from '../../../src/access/auth/scopes.js';
import type { Route } from '../../../src/http/types.js';

const s = suite('route scopes');
let t: TestServer;

// /api/ routes meant for callers without a personal API key. Each entry needs a reason.
const PUBLIC_API_ROUTES: readonly string[] = [
  // The web app's sign-in takes an email and password, not a key; its sign-out ends the
  // session its cookie names, if any (src/access/sessions/routes.ts, tested in test/app/).
  '/api/login', '/api/logout',
];

const PARAM_VALUES: Record<string, () => string> = {
  project_id: () => String(t.projectId),
  organization_id: () => '@current',
  user_uuid: () => '@me',
};

function concretePath(pattern: string): string {
  return pattern.replace(/:([A-Za-z_]+)/g, (_, name: string) => PARAM_VALUES[name]?.() ?? '00000000-0000-4000-8000-000000000000') + '/';
}

function managementRoutes(): (Route & { scope?: string; access?: 'read' | 'write' })[] {
  return t.server.routes.filter((r) => (r.pattern.startsWith('/api/') && !PUBLIC_API_ROUTES.includes(r.pattern)) || 'scope' in r);
}

async function keyWith(scopes: string[]): Promise<string> {
  const owner = t.server.tenancy.userByEmail('admin@hedgerow.local')!;
  return (await t.server.tenancy.createPersonalKey(owner.id, scopes, null, 'route walk')).key;
}

async function call(method: string, path: string, key?: string) {
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const init = {
    method,
    headers: { ...(key ? bearer(key) : {}), ...(hasBody ? { 'Content-Type': 'application/json' } : {}) },
    body: hasBody ? '{}' : undefined,
  };
  // A stream admitted (the app's live events) never ends: its status is the answer.
  if (path.includes('/live_events')) {
    const res = await fetch(`${t.url}${path}`, init);
    if (res.headers.get('content-type') === 'text/event-stream') {
      await res.body?.cancel();
      return { status: res.status, body: null, headers: res.headers };
    }
    return { status: res.status, body: await res.json(), headers: res.headers };
  }
  return request(`${t.url}${path}`, init);
}

// No log consumers: nothing here reads what they apply.
s.before(async () => { t = await startTestServer({ consumers: NO_CONSUMERS }); });
s.after(async () => { await t?.close(); });

s('the route table holds the management routes of this issue', () => {
  const patterns = managementRoutes().map((r) => r.pattern);
  for (const p of ['/api/projects', '/api/projects/:project_id', '/api/environments/:project_id/explicit_members',
    '/api/projects/:project_id/explicit_members/:user_uuid', '/api/users/:user_uuid', '/api/organizations/:organization_id/members']) {
    assert.ok(patterns.includes(p), `${p} is registered`);
  }
});

s('every management route declares a known scope, refuses a key without it and admits one with only it', async () => {
  const walked: string[] = [];
  for (const route of managementRoutes()) {
    assert.type(route.scope, 'string', `${route.pattern} was not built with auth.route or auth.projectRoutes (no declared scope)`);
    const scope = route.scope!;
    assert.ok((SCOPE_OBJECTS as readonly string[]).includes(scope), `${route.pattern}: scope "${scope}" is not in SCOPE_OBJECTS`);
    for (const method of route.methods) {
      const access = route.access ?? accessFor(method);
      const needed = `${scope}:${access}`;
      const path = concretePath(route.pattern);
      const label = `${method} ${route.pattern}`;

      const anonymous = await call(method, path);
      assert.is(anonymous.status, 401, `${label} without a key`);

      // Everything else, including read of the same object for a write: read never implies write.
      const others = SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`])
        .filter((x) => x !== `${scope}:write` && !(access === 'read' && x === `${scope}:read`));
      const refused = await call(method, path, await keyWith(others));
      assert.is(refused.status, 403, `${label} with a key missing ${needed}`);
      if (method !== 'HEAD') {
        assert.equal(refused.body, {
          type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${needed}'`, attr: null,
        }, label);
      }

      const admitted = await call(method, path, await keyWith([needed]));
      assert.is.not(admitted.status, 401, `${label} with only ${needed}`);
      if (admitted.status === 403) {
        assert.not.match(String(admitted.body?.detail), /missing required scope/, `${label} with only ${needed}`);
      }
      walked.push(label);
    }
  }
  assert.ok(walked.length >= 20, `walked ${walked.length} routes`);
});

s('write implies read; * is everything', async () => {
  assert.is((await call('GET', '/api/projects/', await keyWith(['project:write']))).status, 200);
  assert.is((await call('GET', '/api/users/@me/', await keyWith(['*']))).status, 200);
  const readOnly = await call('PATCH', `/api/projects/${t.projectId}/`, await keyWith(['project:read']));
  assert.is(readOnly.body.detail, "API key missing required scope 'project:write'");
});

s('a key limited to projects keeps /api/users/@me/ (exempt, as in PostHog)', async () => {
  const owner = t.server.tenancy.userByEmail('admin@hedgerow.local')!;
  const { key } = await t.server.tenancy.createPersonalKey(owner.id, ['user:read'], [t.projectId], 'limited');
  assert.is((await call('GET', '/api/users/@me/', key)).status, 200);
});

s.run();
