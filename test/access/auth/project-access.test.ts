// Access control on a project: without explicit membership an organization member is
// refused on every management route of the project, whatever the key's scopes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_CONSUMERS, type TestServer } from '../../helpers/server.js';
import { serveSuite, denied, type ApiCall } from '../../helpers/api.js';
import { addUser } from '../../helpers/users.js';
import { OrgLevel, type Project } from '../../../src/access/tenancy/types.js';

const s = suite('project access control');
let t: TestServer;
let api: ApiCall;
const NO_ACCESS = denied("You don't have access to the project.");

// Management API only: no log consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: NO_CONSUMERS });

async function project(accessControl: boolean): Promise<Project> {
  const org = t.server.tenancy.userByEmail('admin@hedgerow.local')!.organization_id;
  return await t.server.tenancy.createProject(org, 'Guarded', { access_control: accessControl });
}

// Project routes of several domains, read and write.
const probes = (p: Project) => [
  ['GET', `/api/environments/${p.id}/events/`],
  ['GET', `/api/projects/${p.id}/`],
  ['GET', `/api/environments/${p.id}/`],
  ['PATCH', `/api/projects/${p.id}/`],
  ['GET', `/api/projects/${p.id}/explicit_members/`],
] as const;

s('an organization member with a * key is refused on every route of a private project', async () => {
  const p = await project(true);
  const member = await addUser(t);
  for (const [method, path] of probes(p)) {
    const r = await api(method, path, member.key, method === 'PATCH' ? { name: 'x' } : undefined);
    assert.is(r.status, 403, `${method} ${path}`);
    if (!path.includes('explicit_members')) assert.equal(r.body, NO_ACCESS, `${method} ${path}`);
  }
  const list = await api('GET', '/api/projects/', member.key);
  assert.not.ok(list.body.results.some((x: { id: number }) => x.id === p.id), 'hidden from the project list');
});

s('explicit membership opens the project; leaving closes it again', async () => {
  const p = await project(true);
  const member = await addUser(t);
  const added = await api('POST', `/api/projects/${p.id}/explicit_members/`, t.personalKey, { user_uuid: member.user.uuid });
  assert.is(added.status, 201);
  for (const [method, path] of probes(p)) {
    const r = await api(method, path, member.key, method === 'PATCH' ? { name: 'Renamed' } : undefined);
    assert.is(r.status, 200, `${method} ${path}`);
  }
  assert.is((await api('GET', `/api/projects/${p.id}/`, member.key)).body.effective_membership_level, 1);
  const list = await api('GET', '/api/projects/', member.key);
  assert.ok(list.body.results.some((x: { id: number }) => x.id === p.id));
  // Members may read but not manage: no token rotation, no adding others.
  assert.equal((await api('POST', `/api/projects/${p.id}/reset_token/`, member.key)).body,
    denied("You don't have sufficient permissions in the project."));
  assert.is((await api('DELETE', `/api/projects/${p.id}/explicit_members/${member.user.uuid}/`, member.key)).status, 204);
  assert.equal((await api('GET', `/api/environments/${p.id}/events/`, member.key)).body, NO_ACCESS);
});

s('organization admins and owners keep implicit access', async () => {
  const p = await project(true);
  const admin = await addUser(t, { level: OrgLevel.admin });
  for (const [method, path] of probes(p)) {
    const r = await api(method, path, admin.key, method === 'PATCH' ? { name: 'Admin' } : undefined);
    assert.is(r.status, 200, `${method} ${path}`);
  }
  assert.is((await api('GET', `/api/projects/${p.id}/`, t.personalKey)).body.effective_membership_level, OrgLevel.owner);
});

s('without access control every organization member gets in; switching it on shuts them out', async () => {
  const p = await project(false);
  const member = await addUser(t);
  assert.is((await api('GET', `/api/environments/${p.id}/events/`, member.key)).status, 200);
  assert.is((await api('PATCH', `/api/projects/${p.id}/`, t.personalKey, { access_control: true })).status, 200);
  assert.equal((await api('GET', `/api/environments/${p.id}/events/`, member.key)).body, NO_ACCESS);
});

s('scopes still apply to members: a member key without query:read is refused on events', async () => {
  const p = await project(true);
  const member = await addUser(t, { scopes: ['project:read'] });
  await api('POST', `/api/projects/${p.id}/explicit_members/`, t.personalKey, { user_uuid: member.user.uuid });
  assert.is((await api('GET', `/api/projects/${p.id}/`, member.key)).status, 200);
  assert.equal((await api('GET', `/api/environments/${p.id}/events/`, member.key)).body,
    denied("API key missing required scope 'query:read'"));
});

s.run();
