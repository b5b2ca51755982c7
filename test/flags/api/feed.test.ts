// The local-evaluation feed over HTTP: /flags/definitions and
// /api/feature_flag/local_evaluation, their body, cohort modes, dependency chains,
// ETag revalidation, authentication and the quota's 402.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request, postJson, bearer, eventually, EVENTS_ONLY, type TestServer } from '../../helpers/server.js';
import { serveSuite, type ApiCall } from '../../helpers/api.js';
import { addUser } from '../../helpers/users.js';
import { cohortFilters, createCohort, createFlag, flagBody, flagsPath, freshKey, person } from './helpers.js';

const s = suite('local evaluation feed');
let t: TestServer;
let api: ApiCall;

// Events and persons only: no insights or hog function consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: EVENTS_ONLY });

const definitions = (query = '&send_cohorts', key = t.personalKey, headers: Record<string, string> = {}) =>
  request(`${t.url}/flags/definitions?token=${t.projectKey}${query}`, { headers: { ...bearer(key), ...headers } });
const legacy = (query = '', key = t.personalKey) =>
  request(`${t.url}/api/feature_flag/local_evaluation?token=${t.projectKey}${query}`, { headers: bearer(key) });
const flagIn = (body: { flags: { key: string }[] }, key: string): any => body.flags.find((f) => f.key === key);
const dep = (id: number) => ({ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value: true });

s('body: PostHog\'s minimal flags, inactive ones included, deleted ones not; group types and cohorts', async () => {
  const on = await createFlag(api, t, flagBody(freshKey('on'), [{ properties: [person('plan', 'exact', ['pro'])], rollout_percentage: 50 }], {
    name: 'On', ensure_experience_continuity: true,
  }));
  const off = await createFlag(api, t, flagBody(freshKey('off'), [{ properties: [] }], { active: false }));
  const gone = await createFlag(api, t, flagBody(freshKey('gone'), [{ properties: [] }]));
  await api('PATCH', `${flagsPath(t)}${gone.id}/`, t.personalKey, { deleted: true });

  const r = await definitions();
  assert.is(r.status, 200);
  assert.is(r.headers.get('content-type'), 'application/json');
  assert.equal(Object.keys(r.body).sort(), ['cohorts', 'flags', 'group_type_mapping']);
  assert.equal(r.body.group_type_mapping, {});
  assert.equal(flagIn(r.body, on.key), {
    id: on.id, team_id: t.projectId, name: 'On', key: on.key, filters: on.filters, deleted: false, active: true,
    ensure_experience_continuity: true, has_encrypted_payloads: false, version: 1, evaluation_runtime: 'all',
    bucketing_identifier: 'distinct_id', evaluation_tags: [],
  });
  assert.is(flagIn(r.body, off.key).active, false);
  assert.is(flagIn(r.body, gone.key), undefined);
  // In id order.
  const ids = r.body.flags.map((f: { id: number }) => f.id);
  assert.equal(ids, [...ids].sort((a: number, b: number) => a - b));
});

s('with cohorts: the dynamic cohorts flags need, nested ones too; static cohorts never travel', async () => {
  const inner = await createCohort(api, t, { name: 'inner', filters: cohortFilters(person('country', 'exact', 'FR')) });
  const outer = await createCohort(api, t, {
    name: 'outer', filters: { properties: { type: 'AND', values: [{ key: 'id', type: 'cohort', value: inner.id }, person('age', 'gte', '18')] } },
  });
  const unused = await createCohort(api, t, { name: 'unused', filters: cohortFilters(person('x', 'is_set')) });
  const listed = await createCohort(api, t, { name: 'listed', is_static: true, distinct_ids: ['a'] });
  await createFlag(api, t, flagBody(freshKey('cohorts'), [
    { properties: [{ key: 'id', type: 'cohort', value: outer.id }] },
    { properties: [{ key: 'id', type: 'cohort', value: listed.id }] },
  ]));
  const body = (await definitions()).body;
  assert.equal(body.cohorts[String(inner.id)], inner.filters.properties);
  assert.equal(body.cohorts[String(outer.id)], outer.filters.properties);
  assert.not.ok(String(unused.id) in body.cohorts);
  assert.not.ok(String(listed.id) in body.cohorts);
});

s('send_cohorts on the older path: bare or true includes cohorts; without it single-cohort flags become person filters', async () => {
  const pro = await createCohort(api, t, { name: 'pro', filters: cohortFilters(person('plan', 'exact', 'pro'), person('seats', 'gt', '5')) });
  const either = await createCohort(api, t, {
    name: 'either', filters: { properties: { type: 'OR', values: [person('a', 'exact', '1'), person('b', 'exact', '2')] } },
  });
  const negated = await createCohort(api, t, { name: 'neg', filters: cohortFilters({ ...person('c', 'exact', '3'), negation: true }) });
  const cohortProp = (id: number) => ({ key: 'id', type: 'cohort', value: id });
  const single = await createFlag(api, t, flagBody(freshKey('single'), [
    { properties: [person('email', 'is_set')], rollout_percentage: 10 },
    { properties: [cohortProp(pro.id)], rollout_percentage: 40 },
  ]));
  const ored = await createFlag(api, t, flagBody(freshKey('ored'), [{ properties: [cohortProp(either.id)], rollout_percentage: 70 }]));
  const kept = await createFlag(api, t, flagBody(freshKey('kept'), [{ properties: [cohortProp(negated.id)] }]));

  for (const q of ['&send_cohorts', '&send_cohorts=true', '&send_cohorts=1']) {
    const withCohorts = (await legacy(q)).body;
    assert.ok(String(pro.id) in withCohorts.cohorts, q);
    assert.equal(flagIn(withCohorts, single.key), flagIn((await definitions()).body, single.key));
  }
  const plain = (await legacy('&send_cohorts=false')).body;
  assert.equal(plain.cohorts, {});
  assert.equal(flagIn(plain, single.key).filters, { groups: [
    { properties: [person('email', 'is_set')], rollout_percentage: 10 },
    { properties: [person('plan', 'exact', 'pro'), person('seats', 'gt', '5')], rollout_percentage: 40 },
  ] });
  assert.equal(flagIn(plain, ored.key).filters, { groups: [
    { properties: [person('a', 'exact', '1')], rollout_percentage: 70 },
    { properties: [person('b', 'exact', '2')], rollout_percentage: 70 },
  ] });
  // Negation cannot be said as conditions: sent unchanged.
  assert.equal(flagIn(plain, kept.key).filters, { groups: [{ properties: [cohortProp(negated.id)] }] });
  assert.equal((await legacy()).body, plain);

  const bad = await legacy('&send_cohorts=maybe');
  assert.is(bad.status, 400);
  assert.equal(bad.body, { type: 'validation_error', code: 'invalid', detail: 'Must be a valid boolean.', attr: 'send_cohorts' });
});

s('flag dependencies travel by key with their evaluation chain; a chain through a deleted flag is empty', async () => {
  const base = await createFlag(api, t, flagBody(freshKey('base'), [{ properties: [] }]));
  const mid = await createFlag(api, t, flagBody(freshKey('mid'), [{ properties: [dep(base.id)] }]));
  const top = await createFlag(api, t, flagBody(freshKey('top'), [{ properties: [dep(mid.id)] }]));
  const body = (await definitions()).body;
  const prop = (key: string) => flagIn(body, key).filters.groups[0].properties[0];
  assert.equal(prop(top.key), { key: mid.key, type: 'flag', operator: 'flag_evaluates_to', value: true, dependency_chain: [base.key, mid.key] });
  assert.equal(prop(mid.key), { key: base.key, type: 'flag', operator: 'flag_evaluates_to', value: true, dependency_chain: [base.key] });
  // The management API still shows the stored id.
  assert.equal((await api('GET', `${flagsPath(t)}${top.id}/`, t.personalKey)).body.filters.groups[0].properties[0], dep(mid.id));

  await api('PATCH', `${flagsPath(t)}${top.id}/`, t.personalKey, { active: false });
  await api('PATCH', `${flagsPath(t)}${mid.id}/`, t.personalKey, { active: false });
  await api('PATCH', `${flagsPath(t)}${mid.id}/`, t.personalKey, { deleted: true });
  const after = (await definitions()).body;
  const orphan = flagIn(after, top.key).filters.groups[0].properties[0];
  assert.equal(orphan, { key: String(mid.id), type: 'flag', operator: 'flag_evaluates_to', value: true, dependency_chain: [] });
});

s('ETag: a weak tag, 304 while nothing changed (weak, strong or bare), a new tag after any change', async () => {
  const first = await definitions();
  const etag = first.headers.get('etag')!;
  assert.match(etag, /^W\/"[0-9a-f]{32}"$/);
  assert.is(first.headers.get('cache-control'), 'private, must-revalidate');
  const bare = etag.slice(3, -1);
  for (const sent of [etag, `"${bare}"`, bare]) {
    const again = await definitions('&send_cohorts', t.personalKey, { 'If-None-Match': sent });
    assert.is(again.status, 304, sent);
    assert.is(again.body, null);
    assert.is(again.headers.get('etag'), etag);
  }
  assert.is((await definitions('&send_cohorts', t.personalKey, { 'If-None-Match': 'W/"stale"' })).status, 200);
  await createFlag(api, t, flagBody(freshKey('change'), [{ properties: [] }]));
  const changed = await definitions('&send_cohorts', t.personalKey, { 'If-None-Match': etag });
  assert.is(changed.status, 200);
  assert.is.not(changed.headers.get('etag'), etag);
  // The two cohort modes are different bodies with different tags.
  assert.is.not((await legacy()).headers.get('etag'), changed.headers.get('etag'));
});

s('group types come from persons and groups; a new group type is a new body and tag', async () => {
  const before = await definitions();
  assert.equal(before.body.group_type_mapping, {});
  await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [
    { event: '$groupidentify', distinct_id: '$company_acme', properties: { $group_type: 'company', $group_key: 'acme', $group_set: {} } },
    { event: '$groupidentify', distinct_id: '$team_red', properties: { $group_type: 'team', $group_key: 'red', $group_set: {} } },
  ] });
  const after = await eventually(async () => {
    const r = await definitions('&send_cohorts', t.personalKey, { 'If-None-Match': before.headers.get('etag')! });
    return r.status === 200 && Object.keys(r.body.group_type_mapping).length === 2 ? r : null;
  });
  assert.equal(after.body.group_type_mapping, { 0: 'company', 1: 'team' });
  assert.is.not(after.headers.get('etag'), before.headers.get('etag'));
});

s('authentication: personal key with feature_flag:read, a valid project token, access to that project', async () => {
  const noKey = await request(`${t.url}/flags/definitions?token=${t.projectKey}`);
  assert.is(noKey.status, 401);
  assert.is(noKey.body.code, 'not_authenticated');
  assert.is((await definitions('', 'phx_not_a_key')).status, 401);
  const noToken = await request(`${t.url}/flags/definitions`, { headers: bearer(t.personalKey) });
  assert.is(noToken.status, 400);
  assert.equal(noToken.body, { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'token' });
  const badToken = await request(`${t.url}/flags/definitions?token=phc_nope`, { headers: bearer(t.personalKey) });
  assert.is(badToken.status, 401);
  assert.is(badToken.body.code, 'invalid_api_key');
  const wrongScope = await addUser(t, { scopes: ['insight:read'] });
  const scoped = await definitions('', wrongScope.key);
  assert.is(scoped.status, 403);
  assert.is(scoped.body.detail, "API key missing required scope 'feature_flag:read'");
  const reader = await addUser(t, { scopes: ['feature_flag:read'] });
  assert.is((await definitions('', reader.key)).status, 200);
  assert.is((await legacy('', reader.key)).status, 200);
  const elsewhere = await addUser(t, { projects: [t.projectId + 1000] });
  assert.is((await definitions('', elsewhere.key)).status, 403);
});

s.run();
