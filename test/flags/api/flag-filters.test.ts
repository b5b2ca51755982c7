// Flag filters through the management API: every PostHog rule answers 400 with its
// words under attr "filters", in PostHog's order; valid filters are stored as sent.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_CONSUMERS, type TestServer } from '../../helpers/server.js';
import { serveSuite, type ApiCall } from '../../helpers/api.js';
import { cohortFilters, createCohort, createFlag, flagBody, flagsPath, freshKey, invalid, person } from './helpers.js';

const s = suite('feature flag filters');
let t: TestServer;
let api: ApiCall;

// Management API only: no log consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: NO_CONSUMERS });

const create = (filters: unknown, key = freshKey()) => api('POST', flagsPath(t), t.personalKey, { key, filters });
const refused = async (filters: unknown, body: unknown) => {
  const r = await create(filters);
  assert.is(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body, body);
};
const all = (properties: unknown[]) => ({ groups: [{ properties, rollout_percentage: 100 }] });

s('a new flag needs at least one condition', async () => {
  const detail = 'Feature flags must have at least one condition set (group).';
  await refused({ groups: [] }, invalid(detail));
  await refused({}, invalid(detail));
  // An update may leave a flag without conditions.
  const f = await createFlag(api, t, flagBody(freshKey(), [{ properties: [] }]));
  assert.equal((await api('PATCH', `${flagsPath(t)}${f.id}/`, t.personalKey, { filters: { groups: [] } })).body.filters, { groups: [] });
});

s('person flags use person, cohort and flag properties; group flags only their group type', async () => {
  await refused(all([{ key: '$browser', type: 'event', operator: 'exact', value: 'Chrome' }]),
    invalid('Filters are not valid (can only use person, cohort, and flag properties)'));
  await refused(all([{ key: 'name', type: 'group', group_type_index: 0, operator: 'exact', value: 'x' }]),
    invalid('Filters are not valid (can only use person, cohort, and flag properties)'));
  await refused({ ...all([person('email', 'is_set')]), aggregation_group_type_index: 0 }, invalid('Filters are not valid (can only use group properties)'));
  await refused({ ...all([{ key: 'name', type: 'group', group_type_index: 1, operator: 'exact', value: 'x' }]), aggregation_group_type_index: 0 },
    invalid('Filters are not valid (can only use group properties)'));
  const ok = await create({ ...all([{ key: 'name', type: 'group', group_type_index: 0, operator: 'exact', value: 'x' }]), aggregation_group_type_index: 0 });
  assert.is(ok.status, 201);
  assert.is(ok.body.filters.aggregation_group_type_index, 0);
});

s('group type indexes run from 0 to 4', async () => {
  const r = await create({ ...all([]), aggregation_group_type_index: 5 });
  assert.is(r.status, 400);
  assert.is(r.body.attr, 'filters');
  assert.match(r.body.detail, /^Filters are not valid \(\/aggregation_group_type_index: /);
});

s('variants: percentages sum to exactly 100; overrides name a declared variant', async () => {
  const variants = (...pcts: number[]) => ({ variants: pcts.map((p, i) => ({ key: `v${i}`, rollout_percentage: p })) });
  await refused({ ...all([]), multivariate: variants(50, 49) },
    invalid('Invalid variant definitions: Variant rollout percentages must sum to 100.', 'filters', 'invalid_input'));
  await refused({ ...all([]), multivariate: variants(60, 50) },
    invalid('Invalid variant definitions: Variant rollout percentages must sum to 100.', 'filters', 'invalid_input'));
  await refused({ groups: [{ properties: [], variant: 'nope' }], multivariate: variants(100) },
    invalid('Filters are not valid (variant override does not exist)'));
  const ok = await create({ groups: [{ properties: [], variant: 'v1' }], multivariate: variants(25, 75) });
  assert.is(ok.status, 201);
});

s('operators: in/not_in only on cohorts; string-only operators need strings; dates must parse; unknown ones are refused', async () => {
  await refused(all([person('plan', 'in', ['a'])]),
    invalid("The 'in' operator is only valid for cohort properties, not 'person' properties.", 'filters', 'invalid_operator'));
  await refused(all([person('age', 'gt', 5)]), invalid('Invalid value for operator gt: 5', 'filters', 'invalid_value'));
  await refused(all([person('name', 'regex', ['a'])]), invalid("Invalid value for operator regex: ['a']", 'filters', 'invalid_value'));
  await refused(all([person('signup', 'is_date_before', 'next tuesday')]), invalid('Invalid date value: next tuesday', 'filters', 'invalid_date'));
  await refused(all([person('email', 'resembles', 'x')]), invalid("Unknown operator 'resembles' on property 'email'.", 'filters', 'invalid_operator'));
  for (const value of ['-7d', '2024-01-31', '2024-01-31T10:00:00Z']) {
    assert.is((await create(all([person('signup', 'is_date_after', value)]))).status, 201, value);
  }
  assert.is((await create(all([person('age', 'gt', '5')]))).status, 201);
});

s('a property may list at most 1000 values', async () => {
  const many = Array.from({ length: 1001 }, (_, i) => `v${i}`);
  await refused(all([person('plan', 'exact', many)]), invalid('Property group expressions of type plan cannot contain more than 1000 values.'));
  assert.is((await create(all([person('plan', 'exact', many.slice(0, 1000))]))).status, 201);
});

s('payloads: a dictionary of JSON; "true" only for boolean flags, variant keys for multivariate ones', async () => {
  await refused({ ...all([]), payloads: [] }, invalid('Payloads must be passed as a dictionary'));
  await refused({ ...all([]), payloads: { true: '{not json' } }, invalid('Payload value is not valid JSON'));
  await refused({ ...all([]), payloads: { false: '1' } }, invalid("Payload keys must be 'true' for boolean flags"));
  await refused({ ...all([]), multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] }, payloads: { b: '1' } },
    invalid('Payload keys must match a variant key for multivariate flags'));
  // Objects sent through the API are stored as JSON text, as the UI sends them.
  const r = await create({ ...all([]), payloads: { true: { color: 'blue' } } });
  assert.is(r.status, 201);
  assert.equal(r.body.filters.payloads, { true: '{"color":"blue"}' });
});

s('cohort properties: the cohort must exist and have no event filters', async () => {
  await refused(all([{ key: 'id', type: 'cohort', value: 987654 }]), invalid('Cohort with id 987654 does not exist', 'filters', 'cohort_does_not_exist'));
  const behavioral = await createCohort(api, t, {
    name: 'Buyers', filters: { properties: { type: 'AND', values: [{ key: 'purchase', type: 'behavioral', value: 'performed_event', event_type: 'events' }] } },
  });
  await refused(all([{ key: 'id', type: 'cohort', value: behavioral.id }]),
    invalid("Cohort 'Buyers' with filters on events cannot be used in feature flags.", 'filters', 'behavioral_cohort_found'));
  const wrapper = await createCohort(api, t, { name: 'Wrapper', filters: cohortFilters({ key: 'id', type: 'cohort', value: behavioral.id }) });
  await refused(all([{ key: 'id', type: 'cohort', value: wrapper.id }]),
    invalid("Cohort 'Buyers' with filters on events cannot be used in feature flags.", 'filters', 'behavioral_cohort_found'));
  const fine = await createCohort(api, t, { name: 'Pro', filters: cohortFilters(person('plan', 'exact', 'pro')) });
  const r = await create(all([{ key: 'id', type: 'cohort', value: fine.id }]));
  assert.is(r.status, 201);
  // PostHog adds each cohort's name when it shows the filters.
  assert.is(r.body.filters.groups[0].properties[0].cohort_name, 'Pro');
});

s('flag dependencies: by id, of an existing active flag, flag_evaluates_to only', async () => {
  const dep = (key: unknown, operator = 'flag_evaluates_to', value: unknown = true) => ({ key, type: 'flag', operator, value });
  const base = await createFlag(api, t, flagBody(freshKey('base'), [{ properties: [] }]));
  await refused(all([dep(String(base.id), 'exact')]), invalid("Flag properties must use the 'flag_evaluates_to' operator"));
  await refused(all([dep(base.key)]),
    invalid(`Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${base.key}'`));
  await refused(all([dep('999999')]), invalid('Flag dependency references non-existent flag with ID 999999'));
  const off = await createFlag(api, t, flagBody(freshKey('off'), [{ properties: [] }], { active: false }));
  await refused(all([dep(String(off.id))]),
    invalid(`Cannot create dependency on disabled flag '${off.key}' (ID: ${off.id}). Flag dependencies must reference active flags only.`));
  const child = await create(all([dep(String(base.id))]));
  assert.is(child.status, 201);
  assert.equal(child.body.filters.groups[0].properties, [dep(String(base.id))]);
});

s('flag dependencies may not loop', async () => {
  const dep = (id: number) => ({ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value: true });
  const a = await createFlag(api, t, flagBody(freshKey('a'), [{ properties: [] }]));
  const b = await createFlag(api, t, flagBody(freshKey('b'), [{ properties: [dep(a.id)] }]));
  const self = await api('PATCH', `${flagsPath(t)}${a.id}/`, t.personalKey, { filters: all([dep(a.id)]) });
  assert.equal(self.body, invalid(`Feature flag '${a.key}' cannot depend on itself`));
  const loop = await api('PATCH', `${flagsPath(t)}${a.id}/`, t.personalKey, { filters: all([dep(b.id)]) });
  assert.equal(loop.body, invalid(`Circular dependency detected: ${a.key} → ${b.key} → ${a.key}`));
});

s('a flag others depend on cannot be deleted or disabled; one cannot be enabled while it depends on a disabled flag', async () => {
  const dep = (id: number) => ({ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value: true });
  const base = await createFlag(api, t, flagBody(freshKey('base'), [{ properties: [] }]));
  const child = await createFlag(api, t, flagBody(freshKey('child'), [{ properties: [dep(base.id)] }]));
  const del = await api('PATCH', `${flagsPath(t)}${base.id}/`, t.personalKey, { deleted: true });
  assert.equal(del.body, invalid(`Cannot delete this feature flag because other flags depend on it: ${child.key} (ID: ${child.id}). ` +
    'Please update or delete the dependent flags first.', null));
  const disable = await api('PATCH', `${flagsPath(t)}${base.id}/`, t.personalKey, { active: false });
  assert.equal(disable.body, invalid(`Cannot disable this feature flag because other flags depend on it: ${child.key} (ID: ${child.id}). ` +
    'Please update or disable the dependent flags first.', null));
  // Disable the dependent first, then the base; enabling the dependent again is refused.
  assert.is((await api('PATCH', `${flagsPath(t)}${child.id}/`, t.personalKey, { active: false })).status, 200);
  assert.is((await api('PATCH', `${flagsPath(t)}${base.id}/`, t.personalKey, { active: false })).status, 200);
  const enable = await api('PATCH', `${flagsPath(t)}${child.id}/`, t.personalKey, { active: true });
  assert.equal(enable.body, invalid(`Cannot enable this feature flag because it depends on disabled flags: ${base.key} (ID: ${base.id}). ` +
    'Please enable the dependency flags first.', null));
});

s('structure the evaluator cannot read is refused even where PostHog is silent', async () => {
  const r = await create({ groups: [{ properties: [], rollout_percentage: 120 }] });
  assert.is(r.status, 400);
  assert.match(r.body.detail, /^Filters are not valid \(\/groups\/0\/rollout_percentage: /);
  assert.equal((await create({ groups: { 0: {} } })).body, invalid('Filters are not valid (/groups: Expected an array of conditions)'));
});

s.run();
