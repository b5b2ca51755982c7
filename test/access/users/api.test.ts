// The key owner and the organization's members.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { NO_CONSUMERS, type TestServer } from '../../helpers/server.js';
import { clockTick } from '../../helpers/wait.js';
import { serveSuite, denied, type ApiCall } from '../../helpers/api.js';
import { addUser, ownerOf } from '../../helpers/users.js';
import { OrgLevel } from '../../../src/access/tenancy/types.js';

const s = suite('users and organization members');
let t: TestServer;
let api: ApiCall;
const USER_FIELDS = ['distinct_id', 'email', 'first_name', 'hedgehog_config', 'id', 'is_email_verified', 'last_name', 'role_at_organization', 'uuid'];

// Management API only: no log consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: NO_CONSUMERS });

s('/api/users/@me/ is the key owner, with organization and current project', async () => {
  const alice = await addUser(t, { email: 'Alice@Example.com', level: OrgLevel.admin, scopes: ['user:read'] });
  const r = await api('GET', '/api/users/@me/', alice.key);
  assert.is(r.status, 200);
  for (const f of USER_FIELDS) assert.ok(f in r.body, f);
  assert.is(r.body.email, 'alice@example.com');
  assert.is(r.body.uuid, alice.user.uuid);
  assert.is(r.body.team.id, t.projectId);
  assert.is(r.body.team.api_token, t.projectKey);
  assert.is(r.body.organization.id, alice.user.organization_id);
  assert.is(r.body.organization.membership_level, OrgLevel.admin);
  assert.is((await api('GET', `/api/users/${alice.user.uuid}/`, alice.key)).body.email, 'alice@example.com');
});

s('another user\'s uuid is 404; user:read is required', async () => {
  const bob = await addUser(t, { scopes: ['project:read'] });
  const r = await api('GET', `/api/users/${ownerOf(t).uuid}/`, t.personalKey);
  assert.is(r.status, 200);
  assert.is((await api('GET', `/api/users/${bob.user.uuid}/`, t.personalKey)).status, 404);
  assert.equal((await api('GET', '/api/users/@me/', bob.key)).body, denied("API key missing required scope 'user:read'"));
});

s('members: a paginated list embedding the user, newest first', async () => {
  const carol = await addUser(t, { email: 'carol@example.com' });
  await clockTick();
  const dave = await addUser(t, { email: 'dave@example.com', level: OrgLevel.admin });
  const r = await api('GET', '/api/organizations/@current/members/', carol.key);
  assert.is(r.status, 200);
  assert.equal(Object.keys(r.body).sort(), ['count', 'next', 'previous', 'results']);
  const [first, second] = r.body.results;
  assert.is(first.user.uuid, dave.user.uuid);
  assert.is(second.user.uuid, carol.user.uuid);
  assert.equal(Object.keys(first).sort(), ['has_social_auth', 'id', 'is_2fa_enabled', 'joined_at', 'last_login', 'level', 'updated_at', 'user']);
  assert.equal(Object.keys(first.user).sort(), USER_FIELDS);
  assert.is(first.level, OrgLevel.admin);
  assert.is(first.id, dave.user.membership_id);
  assert.ok(r.body.results.some((m: { user: { email: string }; level: number }) => m.user.email === 'admin@hedgerow.local' && m.level === OrgLevel.owner));
  const byOrgId = await api('GET', `/api/organizations/${carol.user.organization_id}/members/?email=CAROL@example.com`, carol.key);
  assert.equal(byOrgId.body.results.map((m: { user: { email: string } }) => m.user.email), ['carol@example.com']);
  const page = await api('GET', '/api/organizations/@current/members/?limit=1', carol.key);
  assert.is(page.body.results.length, 1);
  assert.match(page.body.next, /offset=1/);
  assert.is(page.body.previous, null);
});

s('members: organization_member:read needed, project-limited keys refused, other organizations too', async () => {
  const erin = await addUser(t, { scopes: ['user:read'] });
  assert.equal((await api('GET', '/api/organizations/@current/members/', erin.key)).body,
    denied("API key missing required scope 'organization_member:read'"));
  const limited = await addUser(t, { scopes: ['organization_member:read'], projects: [t.projectId] });
  assert.equal((await api('GET', '/api/organizations/@current/members/', limited.key)).body,
    denied('API keys with scoped projects are only supported on project-based endpoints.'));
  const other = await t.server.tenancy.createOrganization('Other org');
  assert.is((await api('GET', `/api/organizations/${other.id}/members/`, t.personalKey)).status, 403);
  assert.is((await api('GET', `/api/organizations/${randomUUID()}/members/`, t.personalKey)).status, 404);
});

s.run();
