// Feature flag management over HTTP: PostHog's shape, lifecycle and error bodies.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_CONSUMERS, type TestServer } from '../../helpers/server.js';
import { serveSuite, type ApiCall } from '../../helpers/api.js';
import { addUser, ownerOf } from '../../helpers/users.js';
import { definitionsVersion } from '../../../src/flags/definitions/index.js';
import { createFlag, flagBody, flagsPath, freshKey, person } from './helpers.js';

const s = suite('feature flags API');
let t: TestServer;
let api: ApiCall;

// Management API only: no log consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: NO_CONSUMERS });

const everyone = [{ properties: [], rollout_percentage: 100 }];

s('create: 201 with PostHog flag fields, version 1 and the creator', async () => {
  const key = freshKey('checkout');
  const r = await api('POST', flagsPath(t), t.personalKey, {
    key, name: 'New checkout', filters: { groups: [{ properties: [person('email', 'icontains', '@acme.com')], rollout_percentage: 30 }] },
  });
  assert.is(r.status, 201);
  const f = r.body;
  assert.type(f.id, 'number');
  assert.is(f.key, key);
  assert.is(f.name, 'New checkout');
  assert.equal(f.filters, { groups: [{ properties: [person('email', 'icontains', '@acme.com')], rollout_percentage: 30 }] });
  assert.is(f.active, true);
  assert.is(f.deleted, false);
  assert.is(f.ensure_experience_continuity, false);
  assert.is(f.version, 1);
  assert.ok(!Number.isNaN(Date.parse(f.created_at)));
  const owner = ownerOf(t);
  assert.equal(f.created_by, {
    id: owner.id, uuid: owner.uuid, distinct_id: owner.distinct_id, first_name: owner.first_name, last_name: owner.last_name,
    email: owner.email, is_email_verified: false, hedgehog_config: null, role_at_organization: '',
  });
  for (const field of ['updated_at', 'last_modified_by', 'experiment_set', 'tags', 'evaluation_runtime', 'bucketing_identifier']) {
    assert.ok(field in f, `${field} present`);
  }
  assert.is(f.evaluation_runtime, 'all');
  assert.is(f.bucketing_identifier, 'distinct_id');
});

s('create without filters: one condition for everyone, as PostHog shows it', async () => {
  const f = await createFlag(api, t, { key: freshKey() });
  assert.equal(f.filters, { groups: [{ properties: [], rollout_percentage: null }] });
  assert.is(f.name, '');
});

s('the /api/environments/ twin and @current reach the same flags', async () => {
  const created = (await api('POST', flagsPath(t, 'environments'), t.personalKey, flagBody(freshKey(), everyone))).body;
  const viaProjects = await api('GET', `${flagsPath(t)}${created.id}/`, t.personalKey);
  assert.is(viaProjects.status, 200);
  assert.is(viaProjects.body.key, created.key);
  const viaCurrent = await api('GET', `/api/environments/@current/feature_flags/${created.id}/`, t.personalKey);
  assert.is(viaCurrent.body.id, created.id);
});

s('key: required, not blank, at most 400 characters, letters digits - and _ only', async () => {
  const post = (body: unknown) => api('POST', flagsPath(t), t.personalKey, body);
  assert.equal((await post({ filters: { groups: everyone } })).body,
    { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'key' });
  assert.equal((await post({ key: '  ' })).body, { type: 'validation_error', code: 'blank', detail: 'This field may not be blank.', attr: 'key' });
  assert.equal((await post({ key: 'k'.repeat(401) })).body,
    { type: 'validation_error', code: 'max_length', detail: 'Ensure this field has no more than 400 characters.', attr: 'key' });
  const bad = await post({ key: 'has space' });
  assert.is(bad.status, 400);
  assert.equal(bad.body, { type: 'validation_error', code: 'invalid_key', detail: 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.', attr: 'key' });
  assert.equal((await post({ key: null })).body, { type: 'validation_error', code: 'null', detail: 'This field may not be null.', attr: 'key' });
});

s('key is unique among the project\'s undeleted flags; a soft-deleted flag frees it', async () => {
  const key = freshKey('unique');
  const first = await createFlag(api, t, flagBody(key, everyone));
  const dup = await api('POST', flagsPath(t), t.personalKey, flagBody(key, everyone));
  assert.is(dup.status, 400);
  assert.equal(dup.body, { type: 'validation_error', code: 'unique', detail: 'There is already a feature flag with this key.', attr: 'key' });
  assert.is((await api('PATCH', `${flagsPath(t)}${first.id}/`, t.personalKey, { deleted: true })).status, 200);
  const again = await api('POST', flagsPath(t), t.personalKey, flagBody(key, everyone));
  assert.is(again.status, 201);
  // PostHog removes the soft-deleted flag that held the key.
  assert.is((await api('GET', `${flagsPath(t)}${first.id}/`, t.personalKey)).status, 404);
});

s('list: paginated, newest first, without deleted flags; active, search and type filters', async () => {
  const stem = freshKey('listing');
  const a = await createFlag(api, t, flagBody(`${stem}-a`, everyone, { name: 'Alpha' }));
  const b = await createFlag(api, t, { ...flagBody(`${stem}-b`, everyone, { active: false }) });
  const c = await createFlag(api, t, {
    key: `${stem}-c`, filters: { groups: everyone, multivariate: { variants: [{ key: 'x', rollout_percentage: 100 }] } },
  });
  const gone = await createFlag(api, t, flagBody(`${stem}-gone`, everyone));
  await api('PATCH', `${flagsPath(t)}${gone.id}/`, t.personalKey, { deleted: true });

  const all = await api('GET', `${flagsPath(t)}?search=${stem}`, t.personalKey);
  assert.is(all.status, 200);
  assert.equal(Object.keys(all.body).sort(), ['count', 'next', 'previous', 'results']);
  assert.equal(all.body.results.map((f: { id: number }) => f.id), [c.id, b.id, a.id]);
  const ids = async (q: string) => (await api('GET', `${flagsPath(t)}?search=${stem}&${q}`, t.personalKey)).body.results.map((f: { id: number }) => f.id);
  assert.equal(await ids('active=false'), [b.id]);
  assert.equal(await ids('active=true'), [c.id, a.id]);
  assert.equal(await ids('type=multivariant'), [c.id]);
  assert.equal(await ids('type=boolean'), [b.id, a.id]);
  assert.equal((await api('GET', `${flagsPath(t)}?search=ALPHA`, t.personalKey)).body.results.map((f: { id: number }) => f.id), [a.id]);
  const page = await api('GET', `${flagsPath(t)}?search=${stem}&limit=1&offset=1`, t.personalKey);
  assert.is(page.body.count, 3);
  assert.equal(page.body.results.map((f: { id: number }) => f.id), [b.id]);
  assert.match(page.body.next, /limit=1&offset=2$/);
});

s('retrieve: unknown ids, ids of another project and non-numbers are 404', async () => {
  const notFound = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
  assert.equal((await api('GET', `${flagsPath(t)}999999/`, t.personalKey)).body, notFound);
  assert.is((await api('GET', `${flagsPath(t)}abc/`, t.personalKey)).status, 404);
  const other = (await api('POST', '/api/projects/', t.personalKey, { name: 'Other' })).body;
  const theirs = (await api('POST', `/api/projects/${other.id}/feature_flags/`, t.personalKey, flagBody(freshKey(), everyone))).body;
  assert.is((await api('GET', `${flagsPath(t)}${theirs.id}/`, t.personalKey)).status, 404);
  // Keys are unique per project only.
  assert.is((await api('POST', `/api/projects/${other.id}/feature_flags/`, t.personalKey, flagBody(theirs.key, everyone))).status, 400);
  assert.is((await api('POST', flagsPath(t), t.personalKey, flagBody(theirs.key, everyone))).status, 201);
});

s('PATCH: changes what it names, version grows by one, last_modified_by is the caller', async () => {
  const f = await createFlag(api, t, flagBody(freshKey(), everyone, { name: 'Before' }));
  const admin = await addUser(t, { level: 8 });
  const r = await api('PATCH', `${flagsPath(t)}${f.id}/`, admin.key, { name: 'After', active: false, ensure_experience_continuity: true });
  assert.is(r.status, 200);
  assert.is(r.body.name, 'After');
  assert.is(r.body.active, false);
  assert.is(r.body.ensure_experience_continuity, true);
  assert.is(r.body.version, 2);
  assert.is(r.body.last_modified_by.uuid, admin.user.uuid);
  assert.is(r.body.created_by.uuid, ownerOf(t).uuid);
  assert.equal(r.body.filters, f.filters);
  assert.is((await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, {})).body.version, 3);
});

s('PATCH with filters but no groups keeps the stored filters, as in PostHog', async () => {
  const f = await createFlag(api, t, flagBody(freshKey(), [{ properties: [], rollout_percentage: 42 }]));
  const r = await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { filters: { payloads: { true: '1' } } });
  assert.is(r.status, 200);
  assert.equal(r.body.filters, f.filters);
});

s('PATCH of the key: still unique; early-access conditions follow the new key', async () => {
  const taken = await createFlag(api, t, flagBody(freshKey(), everyone));
  const f = await createFlag(api, t, {
    key: freshKey('ea'), filters: {
      groups: everyone, feature_enrollment: true,
      super_groups: [{ properties: [{ key: '$feature_enrollment/old', type: 'person', operator: 'exact', value: ['true'] }], rollout_percentage: 100 }],
    },
  });
  const clash = await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { key: taken.key });
  assert.equal(clash.body, { type: 'validation_error', code: 'unique', detail: 'There is already a feature flag with this key.', attr: 'key' });
  // Its own key is no clash.
  assert.is((await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { key: f.key })).status, 200);
  const moved = await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { key: 'renamed-ea' });
  assert.is(moved.body.filters.super_groups[0].properties[0].key, '$feature_enrollment/renamed-ea');
});

s('DELETE is 405 without a body; PATCH deleted=true soft-deletes (still retrievable, gone from lists)', async () => {
  const f = await createFlag(api, t, flagBody(freshKey(), everyone));
  const del = await api('DELETE', `${flagsPath(t)}${f.id}/`, t.personalKey);
  assert.is(del.status, 405);
  assert.is(del.body, null);
  const soft = await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { deleted: true });
  assert.is(soft.body.deleted, true);
  assert.is((await api('GET', `${flagsPath(t)}${f.id}/`, t.personalKey)).body.deleted, true);
  const listed = (await api('GET', `${flagsPath(t)}?search=${f.key}`, t.personalKey)).body;
  assert.is(listed.count, 0);
  const restored = await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { deleted: false });
  assert.is(restored.body.deleted, false);
});

s('field types: booleans, choices and filters refuse other JSON types', async () => {
  const post = (extra: Record<string, unknown>) => api('POST', flagsPath(t), t.personalKey, { key: freshKey(), ...extra });
  assert.equal((await post({ active: 'yes' })).body, { type: 'validation_error', code: 'invalid', detail: 'Must be a valid boolean.', attr: 'active' });
  assert.equal((await post({ evaluation_runtime: 'edge' })).body,
    { type: 'validation_error', code: 'invalid_choice', detail: '"edge" is not a valid choice.', attr: 'evaluation_runtime' });
  assert.equal((await post({ filters: [] })).body,
    { type: 'validation_error', code: 'not_a_dict', detail: 'Expected a dictionary of items but got type "list".', attr: 'filters' });
  assert.equal((await post({ bucketing_identifier: 'device_id' })).body.bucketing_identifier, 'device_id');
  const parse = await api('POST', flagsPath(t), t.personalKey, '{"key":');
  assert.is(parse.status, 400);
  assert.is(parse.body.code, 'parse_error');
});

s('a read-only key cannot write flags', async () => {
  const reader = await addUser(t, { scopes: ['feature_flag:read'] });
  assert.is((await api('GET', flagsPath(t), reader.key)).status, 200);
  const r = await api('POST', flagsPath(t), reader.key, flagBody(freshKey(), everyone));
  assert.is(r.status, 403);
  assert.equal(r.body, { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'feature_flag:write'", attr: null });
});

s('every change bumps the project\'s definitions version; reads do not', async () => {
  const v0 = definitionsVersion(t.server.store, t.projectId);
  const f = await createFlag(api, t, flagBody(freshKey(), everyone));
  const v1 = definitionsVersion(t.server.store, t.projectId);
  assert.is(v1, v0 + 1);
  await api('GET', `${flagsPath(t)}${f.id}/`, t.personalKey);
  await api('GET', flagsPath(t), t.personalKey);
  assert.is(definitionsVersion(t.server.store, t.projectId), v1);
  await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { active: false });
  assert.is(definitionsVersion(t.server.store, t.projectId), v1 + 1);
  // A refused write changes nothing.
  await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { key: 'bad key' });
  assert.is(definitionsVersion(t.server.store, t.projectId), v1 + 1);
});

s.run();
