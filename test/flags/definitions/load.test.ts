// What the evaluation side reads from flag storage: loadFlagDefinitions gives the pure
// core everything it needs at one version, definitionsVersion is the cheap change check,
// staticCohortsOf supplies static membership.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_CONSUMERS, type TestServer } from '../../helpers/server.js';
import { serveSuite, type ApiCall } from '../../helpers/api.js';
import { compileFlags, evaluateFlags } from '../../../src/flags/index.js';
import { definitionsVersion, loadFlagDefinitions, staticCohortsOf } from '../../../src/flags/definitions/index.js';
import { cohortFilters, createCohort, createFlag, flagBody, flagsPath, person } from '../api/helpers.js';

const s = suite('flag definitions for evaluation');
let t: TestServer;
let api: ApiCall;

// Management API only: no log consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: NO_CONSUMERS });

s('an empty project: no flags, version 0', () => {
  assert.equal(loadFlagDefinitions(t.server.store, t.projectId), {
    version: 0, definitions: { flags: [], group_type_mapping: {}, cohorts: {} },
  });
  assert.is(definitionsVersion(t.server.store, t.projectId), 0);
});

s('flags, their dependencies by key, and the cohorts they need (static ones marked static)', async () => {
  const pro = await createCohort(api, t, { name: 'pro', filters: cohortFilters(person('plan', 'exact', 'pro')) });
  const listed = await createCohort(api, t, { name: 'listed', is_static: true, distinct_ids: ['vip-1', 'vip-2'] });
  await createCohort(api, t, { name: 'unused', filters: cohortFilters(person('x', 'is_set')) });
  const base = await createFlag(api, t, flagBody('base', [{ properties: [{ key: 'id', type: 'cohort', value: pro.id }] }]));
  await createFlag(api, t, flagBody('vip', [{ properties: [{ key: 'id', type: 'cohort', value: listed.id }] }]));
  await createFlag(api, t, flagBody('child', [{ properties: [{ key: String(base.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }]));
  const off = await createFlag(api, t, flagBody('off', [{ properties: [] }], { active: false }));
  const gone = await createFlag(api, t, flagBody('gone', [{ properties: [] }]));
  await api('PATCH', `${flagsPath(t)}${gone.id}/`, t.personalKey, { deleted: true });

  const { version, definitions } = loadFlagDefinitions(t.server.store, t.projectId);
  assert.is(version, definitionsVersion(t.server.store, t.projectId));
  assert.equal(definitions.flags.map((f) => f.key), ['base', 'vip', 'child', 'off']);
  assert.equal(definitions.flags[3], {
    id: off.id, key: 'off', version: 1, active: false, deleted: false, filters: off.filters,
    ensure_experience_continuity: false, bucketing_identifier: 'distinct_id',
  });
  assert.equal(definitions.flags[2].filters?.groups?.[0].properties,
    [{ key: 'base', type: 'flag', operator: 'flag_evaluates_to', value: true, dependency_chain: ['base'] }]);
  assert.equal(definitions.cohorts, {
    [pro.id]: { is_static: false, properties: pro.filters.properties },
    [listed.id]: { is_static: true },
  });

  // The core evaluates them as they are, with static membership from staticCohortsOf.
  const compiled = compileFlags(definitions);
  const run = (distinctId: string, plan: string) => new Map(evaluateFlags(compiled, {
    distinct_id: distinctId, person_properties: { plan }, now: Date.now(),
    static_cohorts: staticCohortsOf(t.server.store, t.projectId, [distinctId]),
  }).flags.map((f) => [f.key, f.value]));
  assert.equal([...run('vip-1', 'pro')], [['base', true], ['vip', true], ['child', true]]);
  assert.equal([...run('someone', 'free')], [['base', false], ['vip', false], ['child', false]]);
});

s('the version moves with every flag or cohort write and only then', async () => {
  const store = t.server.store;
  const v = definitionsVersion(store, t.projectId);
  const f = await createFlag(api, t, flagBody('versioned', [{ properties: [] }]));
  const c = await createCohort(api, t, { name: 'v', is_static: true });
  await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { name: 'x' });
  await api('PATCH', `/api/projects/${t.projectId}/cohorts/${c.id}/`, t.personalKey, { distinct_ids: ['a'] });
  assert.is(definitionsVersion(store, t.projectId), v + 4);
  assert.is(loadFlagDefinitions(store, t.projectId).version, v + 4);
  await api('GET', flagsPath(t), t.personalKey);
  assert.is(definitionsVersion(store, t.projectId), v + 4);
  // Other projects have their own versions.
  assert.is(definitionsVersion(store, t.projectId + 1), 0);
});

s.run();
