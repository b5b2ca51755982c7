// Explicit project members over HTTP: every rule, status and message, under both
// /api/projects/:id/ and /api/environments/:id/.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, NO_CONSUMERS, type TestServer } from '../../helpers/server.js';
import { clockTick } from '../../helpers/wait.js';
import { apiClient, denied, type ApiCall } from '../../helpers/api.js';
import { addUser, ownerOf, type TestUser } from '../../helpers/users.js';
import { OrgLevel, type Project } from '../../../src/access/tenancy/types.js';

const s = suite('explicit members');
let t: TestServer;
let api: ApiCall;
let owner: TestUser;

const SUFFICIENT = denied("You don't have sufficient permissions in the project.");
const PREFIXES = ['/api/projects', '/api/environments'];

// No log consumers: nothing here reads what they apply.
s.before(async () => {
  t = await startTestServer({ consumers: NO_CONSUMERS });
  api = apiClient(t);
  owner = { user: ownerOf(t), key: t.personalKey };
});
s.after(async () => { await t.close(); });

async function privateProject(accessControl = true): Promise<Project> {
  return await t.server.tenancy.createProject(owner.user.organization_id, 'Private', { access_control: accessControl });
}
const members = (p: Project, prefix = '/api/projects') => `${prefix}/${p.id}/explicit_members/`;
const member = (p: Project, uuid: string, prefix = '/api/projects') => `${members(p, prefix)}${uuid}/`;

async function add(p: Project, as: TestUser, who: TestUser, level?: number, prefix?: string) {
  return api('POST', members(p, prefix), as.key, level === undefined ? { user_uuid: who.user.uuid } : { user_uuid: who.user.uuid, level });
}

for (const prefix of PREFIXES) {
  s(`${prefix}: an organization owner adds a member: 201 with the member object`, async () => {
    const p = await privateProject();
    const rookie = await addUser(t);
    const r = await add(p, owner, rookie, undefined, prefix);
    assert.is(r.status, 201);
    assert.equal(Object.keys(r.body).sort(),
      ['effective_level', 'id', 'joined_at', 'level', 'parent_level', 'parent_membership_id', 'updated_at', 'user', 'user_uuid']);
    assert.equal(Object.keys(r.body.user).sort(),
      ['distinct_id', 'email', 'first_name', 'hedgehog_config', 'id', 'is_email_verified', 'last_name', 'role_at_organization', 'uuid']);
    assert.is(r.body.level, 1);
    assert.is(r.body.parent_level, 1);
    assert.is(r.body.effective_level, 1);
    assert.is(r.body.parent_membership_id, rookie.user.membership_id);
    assert.is(r.body.user.uuid, rookie.user.uuid);
    assert.is(r.body.user_uuid, rookie.user.uuid);
    assert.match(r.body.id, /^[0-9a-f-]{36}$/);
    assert.ok(!Number.isNaN(Date.parse(r.body.joined_at)));
  });

  s(`${prefix}: unknown project is 404 Project not found.`, async () => {
    const r = await api('POST', `${prefix}/2137/explicit_members/`, owner.key, { user_uuid: (await addUser(t)).user.uuid });
    assert.is(r.status, 404);
    assert.equal(r.body, { type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null });
    assert.is((await api('GET', `${prefix}/2137/explicit_members/`, owner.key)).status, 404);
  });
}

s('both prefixes name the same memberships', async () => {
  const p = await privateProject();
  const rookie = await addUser(t);
  assert.is((await add(p, owner, rookie, undefined, '/api/environments')).status, 201);
  const r = await api('GET', member(p, rookie.user.uuid, '/api/projects'), owner.key);
  assert.is(r.status, 200);
  assert.is(r.body.user.uuid, rookie.user.uuid);
});

s('an organization admin may add members and admins', async () => {
  const p = await privateProject();
  const admin = await addUser(t, { level: OrgLevel.admin });
  const r1 = await add(p, admin, (await addUser(t)));
  assert.is(r1.status, 201);
  const r2 = await add(p, admin, (await addUser(t)), 8);
  assert.is(r2.status, 201);
  assert.is(r2.body.level, 8);
  assert.is(r2.body.effective_level, 8);
});

s('an organization member without project admin may not add, even themselves', async () => {
  const p = await privateProject();
  const plain = await addUser(t);
  const r = await add(p, plain, (await addUser(t)));
  assert.is(r.status, 403);
  assert.equal(r.body, SUFFICIENT);
  const self = await add(p, plain, plain);
  assert.is(self.status, 403);
  assert.equal(self.body, SUFFICIENT);
  assert.equal((await api('GET', members(p), owner.key)).body, []);
});

s('an organization admin cannot explicitly add themselves', async () => {
  const p = await privateProject();
  const admin = await addUser(t, { level: OrgLevel.admin });
  const r = await add(p, admin, admin);
  assert.is(r.status, 403);
  assert.equal(r.body, denied("You can't explicitly add yourself to projects."));
});

s('a project member may read the members but not add; a project admin may add', async () => {
  const p = await privateProject();
  const viewer = await addUser(t);
  const manager = await addUser(t);
  await add(p, owner, viewer, 1);
  await add(p, owner, manager, 8);
  const list = await api('GET', members(p), viewer.key);
  assert.is(list.status, 200);
  assert.is(list.body.length, 2);
  const refused = await add(p, viewer, (await addUser(t)));
  assert.is(refused.status, 403);
  assert.equal(refused.body, SUFFICIENT);
  const refusedAdmin = await add(p, viewer, (await addUser(t)), 8);
  assert.equal(refusedAdmin.body, SUFFICIENT);
  const ok = await add(p, manager, (await addUser(t)), 8);
  assert.is(ok.status, 201);
  assert.is(ok.body.level, 8);
});

s('effective_level is the higher of the explicit and the organization level', async () => {
  const p = await privateProject();
  const orgAdmin = await addUser(t, { level: OrgLevel.admin });
  const r = await add(p, owner, orgAdmin, 1);
  assert.is(r.status, 201);
  assert.is(r.body.level, 1);
  assert.is(r.body.parent_level, 8);
  assert.is(r.body.effective_level, 8);
  // ...and that level is what it may do: add others although its explicit level is member.
  assert.is((await add(p, orgAdmin, (await addUser(t)))).status, 201);
});

s('without access control: 400 with PostHog\'s message on writes, an empty list on read', async () => {
  const p = await privateProject(false);
  const rookie = await addUser(t);
  const r = await add(p, owner, rookie);
  assert.is(r.status, 400);
  assert.equal(r.body, {
    type: 'validation_error', code: 'invalid_input',
    detail: 'Explicit members can only be accessed for projects with project-based permissioning enabled.', attr: null,
  });
  const list = await api('GET', members(p, '/api/environments'), owner.key);
  assert.is(list.status, 200);
  assert.equal(list.body, []);
  // Memberships made while access control was on cannot be changed once it is off.
  await t.server.tenancy.updateProject(p.id, { access_control: true });
  assert.is((await add(p, owner, rookie)).status, 201);
  await t.server.tenancy.updateProject(p.id, { access_control: false });
  const patch = await api('PATCH', member(p, rookie.user.uuid), owner.key, { level: 8 });
  assert.is(patch.status, 400);
  assert.is(patch.body.detail, 'Explicit members can only be accessed for projects with project-based permissioning enabled.');
});

s('a user outside the organization, or no user at all: 403 same organization', async () => {
  const p = await privateProject();
  const otherOrg = await t.server.tenancy.createOrganization('Acme');
  const mallory = await addUser(t, { organizationId: otherOrg.id });
  for (const uuid of [mallory.user.uuid, randomUUID()]) {
    const r = await api('POST', members(p), owner.key, { user_uuid: uuid });
    assert.is(r.status, 403);
    assert.equal(r.body, denied('You both need to belong to the same organization.'));
  }
});

s('a project of another organization is refused', async () => {
  const otherOrg = await t.server.tenancy.createOrganization('Elsewhere');
  const foreign = await t.server.tenancy.createProject(otherOrg.id, 'Foreign', { access_control: true });
  const r = await add(foreign, owner, (await addUser(t)));
  assert.is(r.status, 403);
  assert.is(r.body.code, 'permission_denied');
});

s('adding the same user twice: 400', async () => {
  const p = await privateProject();
  const rookie = await addUser(t);
  assert.is((await add(p, owner, rookie)).status, 201);
  const r = await add(p, owner, rookie, 8);
  assert.is(r.status, 400);
  assert.equal(r.body, {
    type: 'validation_error', code: 'invalid_input', detail: 'This user likely already is an explicit member of the project.', attr: null,
  });
});

s('field validation: user_uuid required and a UUID, level a valid choice', async () => {
  const p = await privateProject();
  const missing = await api('POST', members(p), owner.key, { level: 1 });
  assert.is(missing.status, 400);
  assert.equal(missing.body, { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'user_uuid' });
  const bad = await api('POST', members(p), owner.key, { user_uuid: 'nope' });
  assert.equal(bad.body, { type: 'validation_error', code: 'invalid', detail: 'Must be a valid UUID.', attr: 'user_uuid' });
  const level = await api('POST', members(p), owner.key, { user_uuid: (await addUser(t)).user.uuid, level: 5 });
  assert.is(level.status, 400);
  assert.equal(level.body, { type: 'validation_error', code: 'invalid_choice', detail: '"5" is not a valid choice.', attr: 'level' });
  const owner15 = await api('POST', members(p), owner.key, { user_uuid: (await addUser(t)).user.uuid, level: 15 });
  assert.is(owner15.body.code, 'invalid_choice');
  const asText = await api('POST', members(p), owner.key, { user_uuid: (await addUser(t)).user.uuid, level: '8' });
  assert.is(asText.status, 201);
  assert.is(asText.body.level, 8);
  const notJson = await api('POST', members(p), owner.key, '{nope');
  assert.is(notJson.status, 400);
  assert.is(notJson.body.code, 'parse_error');
  const list = await api('POST', members(p), owner.key, []);
  assert.equal(list.body, { type: 'validation_error', code: 'invalid', detail: 'Invalid data. Expected a dictionary, but got list.', attr: null });
});

s('retrieve by user uuid or @me; unknown is 404', async () => {
  const p = await privateProject();
  const rookie = await addUser(t);
  await add(p, owner, rookie);
  const one = await api('GET', member(p, rookie.user.uuid.toUpperCase()), owner.key);
  assert.is(one.status, 200);
  assert.is(one.body.user.email, rookie.user.email);
  const mine = await api('GET', member(p, '@me'), rookie.key);
  assert.is(mine.status, 200);
  assert.is(mine.body.user.uuid, rookie.user.uuid);
  const unknown = await api('GET', member(p, randomUUID()), owner.key);
  assert.is(unknown.status, 404);
  assert.equal(unknown.body, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
});

s('the list is a bare array ordered by level, then newest first', async () => {
  const p = await privateProject();
  const [a, b, c] = [(await addUser(t)), (await addUser(t)), (await addUser(t))];
  await add(p, owner, a, 1);
  await clockTick();
  await add(p, owner, b, 8);
  await clockTick();
  await add(p, owner, c, 1);
  const r = await api('GET', members(p), owner.key);
  assert.is(r.status, 200);
  assert.ok(Array.isArray(r.body));
  assert.equal(r.body.map((m: { user: { uuid: string } }) => m.user.uuid), [c.user.uuid, a.user.uuid, b.user.uuid]);
});

s('PATCH: an owner or a project admin changes a level (200); a plain member may not', async () => {
  const p = await privateProject();
  const rookie = await addUser(t);
  const manager = await addUser(t);
  const viewer = await addUser(t);
  const created = (await add(p, owner, rookie)).body;
  await add(p, owner, manager, 8);
  await add(p, owner, viewer, 1);
  await clockTick();
  const up = await api('PATCH', member(p, rookie.user.uuid), owner.key, { level: 8 });
  assert.is(up.status, 200);
  assert.is(up.body.level, 8);
  assert.is(up.body.effective_level, 8);
  assert.ok(up.body.updated_at > created.updated_at);
  const down = await api('PATCH', member(p, rookie.user.uuid, '/api/environments'), manager.key, { level: 1 });
  assert.is(down.status, 200);
  assert.is(down.body.level, 1);
  const refused = await api('PATCH', member(p, rookie.user.uuid), viewer.key, { level: 8 });
  assert.is(refused.status, 403);
  assert.equal(refused.body, SUFFICIENT);
  const invalid = await api('PATCH', member(p, rookie.user.uuid), owner.key, { level: 3 });
  assert.is(invalid.body.code, 'invalid_choice');
  const unknown = await api('PATCH', member(p, randomUUID()), owner.key, { level: 1 });
  assert.is(unknown.status, 404);
});

s('PATCH: nobody sets their own level', async () => {
  const p = await privateProject();
  const manager = await addUser(t);
  await add(p, owner, manager, 8);
  const r = await api('PATCH', member(p, manager.user.uuid), manager.key, { level: 1 });
  assert.is(r.status, 403);
  assert.equal(r.body, denied("You can't set your own access level."));
  // A PATCH naming oneself as the user is the self-add rule.
  const other = await addUser(t);
  await add(p, owner, other);
  const renamed = await api('PATCH', member(p, other.user.uuid), manager.key, { user_uuid: manager.user.uuid });
  assert.equal(renamed.body, denied("You can't explicitly add yourself to projects."));
});

s('DELETE: admins remove others (204); plain members may not; anyone may leave', async () => {
  const p = await privateProject();
  const [rookie, viewer, manager, leaver] = [(await addUser(t)), (await addUser(t)), (await addUser(t)), (await addUser(t))];
  await add(p, owner, rookie);
  await add(p, owner, viewer, 1);
  await add(p, owner, manager, 8);
  await add(p, owner, leaver, 1);
  const refused = await api('DELETE', member(p, rookie.user.uuid), viewer.key);
  assert.is(refused.status, 403);
  assert.equal(refused.body, SUFFICIENT);
  const removed = await api('DELETE', member(p, rookie.user.uuid), manager.key);
  assert.is(removed.status, 204);
  assert.is(removed.body, null);
  assert.is((await api('GET', member(p, rookie.user.uuid), owner.key)).status, 404);
  const left = await api('DELETE', member(p, leaver.user.uuid, '/api/environments'), leaver.key);
  assert.is(left.status, 204);
  assert.is((await api('DELETE', member(p, viewer.user.uuid), owner.key)).status, 204);
  // An organization admin with implicit access has no membership to leave.
  const orgAdmin = await addUser(t, { level: OrgLevel.admin });
  assert.is((await api('DELETE', member(p, orgAdmin.user.uuid), orgAdmin.key)).status, 404);
});

s('a member who left loses access to the project', async () => {
  const p = await privateProject();
  const leaver = await addUser(t);
  await add(p, owner, leaver);
  assert.is((await api('GET', members(p), leaver.key)).status, 200);
  assert.is((await api('DELETE', member(p, '@me'), leaver.key)).status, 403);
  assert.is((await api('DELETE', member(p, leaver.user.uuid), leaver.key)).status, 204);
  const after = await api('GET', members(p), leaver.key);
  assert.is(after.status, 403);
  assert.equal(after.body, SUFFICIENT);
});

s.run();
