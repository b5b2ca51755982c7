// posthog-js's remote config over real HTTP: /array/<token>/config (JSON) and
// /array/<token>/config.js (a script setting window._POSTHOG_REMOTE_CONFIG[token]),
// the same settings as /decide's config, hasFeatureFlags following the flags, token
// rotation, caching headers, CORS and unknown tokens. The browser side is
// test/flags/browser-sdk.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runInNewContext } from 'node:vm';
import { startTestServer, NO_CONSUMERS, request, bearer, type TestServer } from '../helpers/server.js';
import { createFlag, patchFlag } from './serving.js';

const s = suite('posthog-js remote config');
let t: TestServer;
// No log consumers: nothing here reads what they apply.
s.before(async () => { t = await startTestServer({ consumers: NO_CONSUMERS }); });
s.after(async () => { await t.close(); });

const configOf = (token: string, init: RequestInit = {}) => request(`${t.url}/array/${token}/config`, init);

async function scriptOf(token: string): Promise<{ status: number; type: string | null; cache: string | null; window: Record<string, any> }> {
  const res = await fetch(`${t.url}/array/${token}/config.js`);
  const window: Record<string, any> = {};
  runInNewContext(await res.text(), { window });
  return { status: res.status, type: res.headers.get('content-type'), cache: res.headers.get('cache-control'), window };
}

s('GET /array/<token>/config answers the client config as JSON, cacheable for a minute', async () => {
  const r = await configOf(t.projectKey);
  assert.is(r.status, 200);
  assert.is(r.headers.get('content-type'), 'application/json');
  assert.is(r.headers.get('cache-control'), 'public, max-age=60');
  assert.is(r.body.token, t.projectKey);
  assert.is(r.body.hasFeatureFlags, false);
  assert.ok(r.body.supportedCompression.includes('gzip-js'), 'posthog-js sends gzip only when gzip-js is listed');
  assert.equal(r.body.analytics, { endpoint: '/i/v0/e/' });
  assert.is(r.body.sessionRecording, false);
  assert.not.ok('surveys' in r.body, 'surveys: false would make posthog-js fetch a surveys script hedgerow does not serve');
  assert.is(r.body.heatmaps, false);
  assert.equal(r.body.siteApps, []);
  assert.is(r.body.elementsChainAsString, true);
});

s('its settings are the ones /decide answers', async () => {
  const remote = (await configOf(t.projectKey)).body;
  const decide = (await request(`${t.url}/decide/?v=3`)).body;
  for (const key of Object.keys(remote)) {
    if (key === 'token' || key === 'hasFeatureFlags') continue;
    assert.equal(decide[key], remote[key], key);
  }
});

s('config.js sets window._POSTHOG_REMOTE_CONFIG[token] to the same config, site apps beside it', async () => {
  const json = (await configOf(t.projectKey)).body;
  const js = await scriptOf(t.projectKey);
  assert.is(js.status, 200);
  assert.is(js.type, 'application/javascript');
  assert.is(js.cache, 'public, max-age=60');
  const entry = js.window._POSTHOG_REMOTE_CONFIG[t.projectKey];
  const { siteApps, ...rest } = json;
  assert.equal(siteApps, []);
  assert.equal(JSON.parse(JSON.stringify(entry.config)), rest);
  assert.equal(JSON.parse(JSON.stringify(entry.siteApps)), []);
});

s('config.js keeps what other projects on the page already set', async () => {
  const res = await fetch(`${t.url}/array/${t.projectKey}/config.js`);
  const window: Record<string, any> = { _POSTHOG_REMOTE_CONFIG: { phc_other: { config: {}, siteApps: [] } } };
  runInNewContext(await res.text(), { window });
  assert.equal(Object.keys(window._POSTHOG_REMOTE_CONFIG).sort(), [t.projectKey, 'phc_other'].sort());
});

s('hasFeatureFlags turns true with the first active flag and false again when none is left', async () => {
  const flag = await createFlag(t, { key: `remote-${process.pid}`, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  assert.is((await configOf(t.projectKey)).body.hasFeatureFlags, true);
  const js = await scriptOf(t.projectKey);
  assert.is(js.window._POSTHOG_REMOTE_CONFIG[t.projectKey].config.hasFeatureFlags, true);
  await patchFlag(t, flag.id, { active: false });
  assert.is((await configOf(t.projectKey)).body.hasFeatureFlags, false);
  await patchFlag(t, flag.id, { active: true });
  assert.is((await configOf(t.projectKey)).body.hasFeatureFlags, true);
  await patchFlag(t, flag.id, { deleted: true });
  assert.is((await configOf(t.projectKey)).body.hasFeatureFlags, false);
});

s('an unknown token is 404: a PostHog error body for JSON, a comment for the script', async () => {
  const r = await configOf('phc_nobody');
  assert.is(r.status, 404);
  assert.equal(r.body, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
  const js = await scriptOf('phc_nobody');
  assert.is(js.status, 404);
  assert.is(js.type, 'application/javascript');
  assert.is(js.window._POSTHOG_REMOTE_CONFIG, undefined);
});

s('a rotated project key: the old one is 404, the new one answers with its own token', async () => {
  const other = await startTestServer({ consumers: NO_CONSUMERS });
  try {
    const old = other.projectKey;
    const rotated = await request(`${other.url}/api/projects/${other.projectId}/reset_token/`, { method: 'PATCH', headers: bearer(other.personalKey) });
    assert.is(rotated.status, 200);
    const fresh = rotated.body.api_token as string;
    assert.is.not(fresh, old);
    assert.is((await request(`${other.url}/array/${old}/config`)).status, 404);
    const r = await request(`${other.url}/array/${fresh}/config`);
    assert.is(r.status, 200);
    assert.is(r.body.token, fresh);
  } finally {
    await other.close();
  }
});

s('a page on another origin may read it (CORS), with or without a trailing slash', async () => {
  const r = await configOf(t.projectKey, { headers: { Origin: 'https://shop.example' } });
  assert.is(r.status, 200);
  assert.is(r.headers.get('access-control-allow-origin'), 'https://shop.example');
  assert.is((await request(`${t.url}/array/${t.projectKey}/config/`)).status, 200);
  assert.is((await request(`${t.url}/array/${t.projectKey}/config`, { method: 'POST', body: '{}' })).status, 405);
});

s.run();
