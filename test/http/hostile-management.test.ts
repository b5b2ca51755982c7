// Hostile input to the management API is answered 4xx with PostHog's body, never 500
// (issue 13, item 5; docs/decisions/0028): bodies nested deeper than MAX_BODY_LEVELS
// are refused with 400 naming the field, a path parameter no id can be as long as
// answers 404 on every route, and ids longer than ingestion keeps are not found
// (queries) or cut as capture cuts them (static cohort members). Over real HTTP; the
// server answers normally afterwards.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_CONSUMERS, type TestServer } from '../helpers/server.js';
import { serveSuite, type ApiCall } from '../helpers/api.js';
import { MAX_BODY_LEVELS } from '../../src/http/body.js';
import { evaluate } from '../flags/serving.js';

const s = suite('hostile management input');
let t: TestServer;
let api: ApiCall;

// Management API only: no log consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: NO_CONSUMERS });

const nested = (levels: number, leaf = '1') => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;
const flags = () => `/api/projects/${t.projectId}/feature_flags/`;
const cohorts = () => `/api/projects/${t.projectId}/cohorts/`;
const tooDeep = (attr: string) => ({
  type: 'validation_error', code: 'invalid_input', attr, detail: `Objects nested more than ${MAX_BODY_LEVELS} levels deep are not accepted.`,
});
const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
const ROLLOUT = '"groups":[{"properties":[],"rollout_percentage":100}]';

async function stillAnswers() {
  const r = await api('GET', flags(), t.personalKey);
  assert.is(r.status, 200);
}

s('flag filters nested 100,000 deep: 400 naming filters (was: 500, msgpackr overflowed storing them)', async () => {
  const r = await api('POST', flags(), t.personalKey, `{"key":"deep-filters","filters":{${ROLLOUT},"extra":${nested(100_000)}}}`);
  assert.is(r.status, 400);
  assert.equal(r.body, tooDeep('filters'));
  await stillAnswers();
});

s('a flag payload nested 100,000 deep: 400 (was: 500, JSON.stringify overflowed normalising it)', async () => {
  const r = await api('POST', flags(), t.personalKey, `{"key":"deep-payload","filters":{${ROLLOUT},"payloads":{"true":${nested(100_000)}}}}`);
  assert.is(r.status, 400);
  assert.equal(r.body, tooDeep('filters'));
  const created = await api('POST', flags(), t.personalKey, { key: 'deep-payload', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  assert.is(created.status, 201);
  const patched = await api('PATCH', `${flags()}${created.body.id}/`, t.personalKey, `{"filters":{${ROLLOUT},"payloads":{"true":${nested(100_000)}}}}`);
  assert.is(patched.status, 400);
  assert.equal(patched.body, tooDeep('filters'));
  await stillAnswers();
});

s('cohort property groups nested 1,000 deep: 400 (was: 500, the group check recursed)', async () => {
  const groups = `${'{"type":"AND","values":['.repeat(1000)}${']}'.repeat(1000)}`;
  const r = await api('POST', cohorts(), t.personalKey, `{"name":"deep","filters":{"properties":${groups}}}`);
  assert.is(r.status, 400);
  assert.equal(r.body, tooDeep('filters'));
  await stillAnswers();
});

s(`a body nested ${MAX_BODY_LEVELS} levels below its fields is read; one level more is refused`, async () => {
  // Under a key PostHog ignores, so only the depth decides.
  const fits = await api('POST', flags(), t.personalKey, `{"key":"deep-enough","unknown":${nested(MAX_BODY_LEVELS)},"filters":{${ROLLOUT}}}`);
  assert.is(fits.status, 201, JSON.stringify(fits.body));
  const over = await api('POST', flags(), t.personalKey, `{"key":"too-deep","unknown":${nested(MAX_BODY_LEVELS + 1)},"filters":{${ROLLOUT}}}`);
  assert.is(over.status, 400);
  assert.equal(over.body, tooDeep('unknown'));
  const arrays = await api('PATCH', '/api/organizations/@current/quota/', t.personalKey, `{"feature_flag_requests":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
  assert.is(arrays.status, 400);
  assert.equal(arrays.body, tooDeep('feature_flag_requests'));
});

s('a static cohort member of 3,000 characters is kept cut to 200, as capture keeps distinct ids, and meets that person in flags (was: 500, LMDB key too long)', async () => {
  const id = `member-${'m'.repeat(3000)}`;
  const r = await api('POST', cohorts(), t.personalKey, { name: 'long ids', is_static: true, distinct_ids: [id, 'short'] });
  assert.is(r.status, 201, JSON.stringify(r.body));
  const flag = await api('POST', flags(), t.personalKey, {
    key: 'long-members', filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: r.body.id }], rollout_percentage: 100 }] },
  });
  assert.is(flag.status, 201, JSON.stringify(flag.body));
  for (const distinctId of [id, 'short', 'stranger']) {
    const answer = await evaluate(t, '/flags/?v=2', { distinct_id: distinctId, flag_keys_to_evaluate: ['long-members'] });
    assert.is(answer.status, 200);
    assert.is(answer.body.flags['long-members'].enabled, distinctId !== 'stranger', distinctId.slice(0, 20));
  }
});

s('a 10,000-character path segment answers 404 Not found on every route that takes a parameter (was: 500 on quota, events, explicit members, hog functions)', async () => {
  const long = 'x'.repeat(10_000);
  const named = [
    ['GET', '/api/organizations/:organization_id/quota'],
    ['PATCH', '/api/organizations/:organization_id/quota'],
    ['GET', '/api/projects/:project_id/events/:uuid'],
    ['GET', '/api/environments/:project_id/explicit_members/:user_uuid'],
    ['PATCH', '/api/environments/:project_id/explicit_members/:user_uuid'],
    ['DELETE', '/api/environments/:project_id/explicit_members/:user_uuid'],
  ];
  const withParams = t.server.routes.filter((r) => r.pattern.includes('/:'));
  for (const [method, pattern] of named) assert.ok(withParams.some((r) => r.pattern === pattern && r.methods.includes(method as never)), pattern);
  let tried = 0;
  for (const route of withParams) {
    const segments = route.pattern.split('/');
    for (const param of segments.filter((p) => p.startsWith(':'))) {
      // The other parameters as a request that could succeed would have them.
      const path = segments.map((p) => (p === param ? long : p === ':project_id' ? String(t.projectId) : p === ':organization_id' ? '@current' : p.startsWith(':') ? '1' : p)).join('/');
      for (const method of route.methods) {
        const r = await api(method, `${path}/`, t.personalKey, method === 'GET' || method === 'DELETE' ? undefined : {});
        assert.is(r.status, 404, `${method} ${route.pattern} ${param}`);
        assert.equal(r.body, NOT_FOUND, `${method} ${route.pattern} ${param}`);
        tried++;
      }
    }
  }
  assert.ok(tried > 100, String(tried));
  await stillAnswers();
});

s('ids in queries longer than ingestion keeps are not found: persons by distinct id (200, none), a group by key (404)', async () => {
  const persons = await api('GET', `/api/environments/${t.projectId}/persons/?distinct_id=${'d'.repeat(10_000)}`, t.personalKey);
  assert.is(persons.status, 200);
  assert.equal(persons.body.results, []);
  const group = await api('GET', `/api/environments/${t.projectId}/groups/find?group_type_index=0&group_key=${'g'.repeat(10_000)}`, t.personalKey);
  assert.is(group.status, 404);
  assert.equal(group.body, NOT_FOUND);
  await stillAnswers();
});

s.run();
