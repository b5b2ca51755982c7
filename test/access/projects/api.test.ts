// Projects API over HTTP: list, create, read, update, token rotation, isolation.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { postJson, eventually, EVENTS_ONLY, type TestServer } from '../../helpers/server.js';
import { serveSuite, denied, type ApiCall } from '../../helpers/api.js';
import { addUser } from '../../helpers/users.js';
import { OrgLevel } from '../../../src/access/tenancy/types.js';

const s = suite('projects API');
let t: TestServer;
let api: ApiCall;

// Events and persons only: no insights or hog function consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: EVENTS_ONLY });

const capture = (token: string, event = 'e', distinct_id = 'd') =>
  postJson(`${t.url}/i/v0/e/`, { api_key: token, event, distinct_id, properties: { marker: randomUUID() } });

s('list: a paginated envelope of the projects the caller can see', async () => {
  const r = await api('GET', '/api/projects/', t.personalKey);
  assert.is(r.status, 200);
  assert.equal(Object.keys(r.body).sort(), ['count', 'next', 'previous', 'results']);
  const first = r.body.results[0];
  assert.is(first.id, t.projectId);
  assert.is(first.api_token, t.projectKey);
  assert.equal(Object.keys(first).sort(), ['access_control', 'api_token', 'id', 'name', 'organization', 'project_id', 'timezone', 'uuid']);
  assert.is(r.body.count, r.body.results.length);
});

s('list pages with limit and offset and absolute URLs', async () => {
  const owner = await addUser(t, { level: OrgLevel.owner });
  for (let i = 0; i < 2; i++) assert.is((await api('POST', '/api/projects/', owner.key, { name: `p${i}` })).status, 201);
  const all = (await api('GET', '/api/projects/', owner.key)).body;
  assert.ok(all.count >= 3);
  const page = await api('GET', '/api/projects/?limit=1&offset=1', owner.key);
  assert.is(page.body.results.length, 1);
  assert.is(page.body.results[0].id, all.results[1].id);
  assert.match(page.body.next, /^http:\/\/.*limit=1&offset=2$/);
  assert.match(page.body.previous, /^http:\/\/.*\?limit=1$/);
});

s('create: 201 with a fresh project API key; the creator switches to it', async () => {
  const owner = await addUser(t, { level: OrgLevel.owner });
  const r = await api('POST', '/api/projects/', owner.key, { name: 'Web', timezone: 'Europe/Paris', access_control: true });
  assert.is(r.status, 201);
  assert.is(r.body.name, 'Web');
  assert.is(r.body.timezone, 'Europe/Paris');
  assert.is(r.body.access_control, true);
  assert.match(r.body.api_token, /^phc_[A-Za-z0-9]{43}$/);
  assert.is.not(r.body.api_token, t.projectKey);
  assert.is(r.body.effective_membership_level, OrgLevel.owner);
  assert.ok(!Number.isNaN(Date.parse(r.body.created_at)));
  const current = await api('GET', '/api/projects/@current/', owner.key);
  assert.is(current.body.id, r.body.id);
  // The new key captures into the new project at once.
  assert.is((await capture(r.body.api_token)).status, 200);
});

s('create defaults: name "Default project", timezone UTC, access control off', async () => {
  const r = await api('POST', '/api/projects/', t.personalKey, {});
  assert.is(r.status, 201);
  assert.is(r.body.name, 'Default project');
  assert.is(r.body.timezone, 'UTC');
  assert.is(r.body.access_control, false);
});

s('create needs an organization admin', async () => {
  const member = await addUser(t);
  const r = await api('POST', '/api/projects/', member.key, { name: 'Nope' });
  assert.is(r.status, 403);
  assert.equal(r.body, denied('Your organization access level is insufficient.'));
});

s('create and update validate their fields', async () => {
  const tz = await api('POST', '/api/projects/', t.personalKey, { timezone: 'Mars/Olympus' });
  assert.is(tz.status, 400);
  assert.equal(tz.body, { type: 'validation_error', code: 'invalid_choice', detail: '"Mars/Olympus" is not a valid choice.', attr: 'timezone' });
  const blank = await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { name: '  ' });
  assert.equal(blank.body, { type: 'validation_error', code: 'blank', detail: 'This field may not be blank.', attr: 'name' });
  const long = await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { name: 'x'.repeat(201) });
  assert.is(long.body.code, 'max_length');
  const flag = await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { access_control: 'yes' });
  assert.equal(flag.body, { type: 'validation_error', code: 'invalid', detail: 'Must be a valid boolean.', attr: 'access_control' });
  const broken = await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, '{');
  assert.is(broken.status, 400);
  assert.is(broken.body.code, 'parse_error');
});

s('read and update under /api/projects/ and /api/environments/ alike', async () => {
  const p = (await api('POST', '/api/projects/', t.personalKey, { name: 'Twin' })).body;
  for (const prefix of ['/api/projects', '/api/environments']) {
    const r = await api('GET', `${prefix}/${p.id}/`, t.personalKey);
    assert.is(r.status, 200);
    assert.is(r.body.id, p.id);
    assert.is(r.body.api_token, p.api_token);
    const u = await api('PATCH', `${prefix}/${p.id}/`, t.personalKey, { name: `Twin ${prefix}`, timezone: 'Asia/Tokyo', ignored: 1 });
    assert.is(u.status, 200);
    assert.is(u.body.name, `Twin ${prefix}`);
    assert.is(u.body.timezone, 'Asia/Tokyo');
  }
  assert.is((await api('GET', `/api/projects/${p.id}/`, t.personalKey)).body.name, 'Twin /api/environments');
});

s('week_start_day: null (Sunday) until set to 0 or 1; anything else is refused', async () => {
  const p = (await api('POST', '/api/projects/', t.personalKey, { name: 'Weeks' })).body;
  assert.is((await api('GET', `/api/projects/${p.id}/`, t.personalKey)).body.week_start_day, null);
  assert.is((await api('PATCH', `/api/projects/${p.id}/`, t.personalKey, { week_start_day: 1 })).body.week_start_day, 1);
  assert.is((await api('GET', `/api/environments/${p.id}/`, t.personalKey)).body.week_start_day, 1);
  const bad = await api('PATCH', `/api/projects/${p.id}/`, t.personalKey, { week_start_day: 3 });
  assert.is(bad.status, 400);
  assert.is(bad.body.attr, 'week_start_day');
});

s('unknown project: 404 Project not found.', async () => {
  for (const path of ['/api/projects/9999/', '/api/environments/9999/', '/api/projects/abc/']) {
    const r = await api('GET', path, t.personalKey);
    assert.is(r.status, 404);
    assert.equal(r.body, { type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null });
  }
});

s('only organization admins switch access control', async () => {
  const member = await addUser(t);
  const r = await api('PATCH', `/api/projects/${t.projectId}/`, member.key, { access_control: true });
  assert.is(r.status, 403);
  assert.equal(r.body, denied('Your organization access level is insufficient to configure project access restrictions.'));
  // Other fields are open to members, as in PostHog.
  assert.is((await api('PATCH', `/api/projects/${t.projectId}/`, member.key, { timezone: 'UTC' })).status, 200);
});

s('reset_token rotates the project API key: the old key is refused by capture at once', async () => {
  const p = (await api('POST', '/api/projects/', t.personalKey, { name: 'Rotating' })).body;
  assert.is((await capture(p.api_token)).status, 200);
  const r = await api('POST', `/api/projects/${p.id}/reset_token/`, t.personalKey);
  assert.is(r.status, 200);
  assert.match(r.body.api_token, /^phc_/);
  assert.is.not(r.body.api_token, p.api_token);
  const old = await capture(p.api_token);
  assert.is(old.status, 401);
  assert.equal(old.body, {
    type: 'authentication_error', code: 'invalid_api_key',
    detail: 'Project API key invalid. You can find your project API key in your project settings.', attr: null,
  });
  assert.is((await capture(r.body.api_token)).status, 200);
  // PostHog's own verb, and the environments twin.
  const again = await api('PATCH', `/api/environments/${p.id}/reset_token/`, t.personalKey);
  assert.is(again.status, 200);
  assert.is((await capture(r.body.api_token)).status, 401);
  assert.is((await api('GET', `/api/projects/${p.id}/`, t.personalKey)).body.api_token, again.body.api_token);
});

s('reset_token needs project admin', async () => {
  const member = await addUser(t);
  const r = await api('POST', `/api/projects/${t.projectId}/reset_token/`, member.key);
  assert.is(r.status, 403);
  assert.equal(r.body, denied("You don't have sufficient permissions in the project."));
  assert.is((await capture(t.projectKey)).status, 200);
});

s('a key limited to some projects is refused elsewhere and on organization-wide routes', async () => {
  const other = (await api('POST', '/api/projects/', t.personalKey, { name: 'Other' })).body;
  const { user } = await addUser(t, { level: OrgLevel.admin });
  const { key } = await t.server.tenancy.createPersonalKey(user.id, ['project:write'], [t.projectId], 'limited');
  assert.is((await api('GET', `/api/projects/${t.projectId}/`, key)).status, 200);
  const r = await api('GET', `/api/projects/${other.id}/`, key);
  assert.is(r.status, 403);
  assert.equal(r.body, denied(`API key does not have access to the requested project: ID ${other.id}.`));
  const list = await api('GET', '/api/projects/', key);
  assert.is(list.status, 403);
  assert.equal(list.body, denied('API keys with scoped projects are only supported on project-based endpoints.'));
  assert.is((await api('POST', '/api/projects/', key, {})).status, 403);
});

s('capture into one project is never visible from another', async () => {
  const a = (await api('POST', '/api/projects/', t.personalKey, { name: 'A' })).body;
  const b = (await api('POST', '/api/projects/', t.personalKey, { name: 'B' })).body;
  assert.is((await capture(a.api_token, 'only-a', 'alice')).status, 200);
  assert.is((await capture(b.api_token, 'only-b', 'alice')).status, 200);
  const events = async (id: number) =>
    (await api('GET', `/api/environments/${id}/events/`, t.personalKey)).body.results.map((e: { event: string }) => e.event);
  await eventually(async () => (await events(a.id)).length === 1 && (await events(b.id)).length === 1);
  assert.equal(await events(a.id), ['only-a']);
  assert.equal(await events(b.id), ['only-b']);
  // A key limited to A cannot read B's events.
  const { key } = await t.server.tenancy.createPersonalKey(t.server.tenancy.users()[0].id, ['query:read'], [a.id], 'a only');
  assert.is((await api('GET', `/api/environments/${b.id}/events/`, key)).status, 403);
});

s.run();
