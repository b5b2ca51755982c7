// Cohorts over HTTP: dynamic (person-property) and static (distinct id list) cohorts,
// PostHog's shape and rules, and the rules that keep flags using them evaluable.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_CONSUMERS, type TestServer } from '../../helpers/server.js';
import { serveSuite, type ApiCall } from '../../helpers/api.js';
import { definitionsVersion, staticCohortsOf } from '../../../src/flags/definitions/index.js';
import { cohortFilters, cohortsPath, createCohort, createFlag, flagBody, freshKey, invalid, person } from './helpers.js';

const s = suite('cohorts API');
let t: TestServer;
let api: ApiCall;

// Management API only: no log consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: NO_CONSUMERS });

const post = (body: unknown) => api('POST', cohortsPath(t), t.personalKey, body);
const patch = (id: number, body: unknown) => api('PATCH', `${cohortsPath(t)}${id}/`, t.personalKey, body);
const refused = async (r: Promise<{ status: number; body: unknown }>, body: unknown) => {
  const res = await r;
  assert.is(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body, body);
};

s('create a dynamic cohort: 201 with PostHog cohort fields', async () => {
  const filters = cohortFilters(person('plan', 'exact', 'pro'), person('email', 'icontains', '@acme.com'));
  const r = await post({ name: 'Pro at Acme', description: 'paying', filters });
  assert.is(r.status, 201);
  const c = r.body;
  assert.type(c.id, 'number');
  assert.is(c.name, 'Pro at Acme');
  assert.is(c.description, 'paying');
  assert.equal(c.filters, filters);
  assert.is(c.is_static, false);
  assert.is(c.deleted, false);
  // Calculated once created (src/insights/cohorts/calculate.ts), as PostHog does: due until then.
  assert.is(c.is_calculating, true);
  assert.is(c.count, null);
  assert.equal(c.groups, []);
  assert.is(c.created_by.email, 'admin@hedgerow.local');
  assert.ok(!Number.isNaN(Date.parse(c.created_at)));
  const again = await api('GET', `/api/environments/${t.projectId}/cohorts/${c.id}/`, t.personalKey);
  assert.equal(again.body, c);
});

s('create a static cohort from distinct ids; PATCH adds more; members are found by distinct id', async () => {
  const r = await post({ name: 'Beta testers', is_static: true, distinct_ids: ['ann', 'bob', 'ann'] });
  assert.is(r.status, 201);
  assert.is(r.body.is_static, true);
  assert.is(r.body.count, 2);
  const more = await patch(r.body.id, { distinct_ids: ['bob', 'cy'] });
  assert.is(more.body.count, 3);
  const store = t.server.store;
  assert.equal([...staticCohortsOf(store, t.projectId, ['cy'])], [r.body.id]);
  assert.equal([...staticCohortsOf(store, t.projectId, ['an', 'annie'])], []);
  assert.equal([...staticCohortsOf(store, t.projectId + 1, ['ann'])], []);
});

s('static cohorts skip filter checks; distinct ids need a static cohort and a list of strings', async () => {
  assert.is((await post({ is_static: true, filters: { anything: 1 } })).status, 201);
  await refused(post({ name: 'x', filters: cohortFilters(person('a', 'exact', 1)), distinct_ids: ['a'] }),
    invalid('Can only add users to static cohorts', 'distinct_ids'));
  await refused(post({ is_static: true, distinct_ids: 'ann' }), invalid('distinct_ids must be a list', 'distinct_ids'));
  await refused(post({ is_static: true, distinct_ids: ['ok', 7] }), invalid('Each distinct id must be a non-empty string.', 'distinct_ids'));
});

s('filters: PostHog\'s shape and its words for missing keys', async () => {
  await refused(post({ filters: {} }), invalid("Must contain a 'properties' key with type and values"));
  await refused(post({ filters: cohortFilters({ key: 'plan', type: 'person', operator: 'exact' }) }),
    invalid('Missing required keys for person filter: value'));
  await refused(post({ filters: cohortFilters({ key: 'plan', type: 'person' }) }),
    invalid('Missing required keys for person filter: value, operator'));
  await refused(post({ filters: cohortFilters({ key: 'id', type: 'cohort' }) }), invalid('Missing required keys for cohort filter: value'));
  await refused(post({ filters: cohortFilters({ type: 'behavioral', key: 'x', value: 'performed_event' }) }),
    invalid('Missing required keys for behavioral filter: event_type'));
  await refused(post({ filters: { properties: { type: 'XOR', values: [] } } }),
    invalid("Invalid cohort filters at properties.type: expected 'AND' or 'OR'"));
  await refused(post({ filters: cohortFilters({ key: '$browser', type: 'event', operator: 'exact', value: 'x' }) }),
    invalid("Invalid cohort filters at properties.values.0.values.0.type: expected 'AND', 'OR', 'person', 'cohort' or 'behavioral'"));
  await refused(post({ filters: cohortFilters({ ...person('a', 'exact', 1), extra: true }) }),
    invalid("Invalid cohort filters at properties.values.0.values.0: unexpected key 'extra'"));
  await refused(post({ filters: cohortFilters(person('a', 'resembles', 1)) }), invalid("Unknown operator 'resembles' on property 'a'.", 'filters', 'invalid_operator'));
  assert.is((await post({ filters: cohortFilters(person('email', 'is_set')) })).status, 201);
});

s('name and description lengths', async () => {
  await refused(post({ name: 'n'.repeat(401) }), invalid('Ensure this field has no more than 400 characters.', 'name', 'max_length'));
  await refused(post({ description: 'd'.repeat(1001) }), invalid('Ensure this field has no more than 1000 characters.', 'description', 'max_length'));
});

s('list: newest first without deleted cohorts; type and search filters', async () => {
  const stem = freshKey('cohort');
  const dyn = await createCohort(api, t, { name: `${stem} dynamic`, filters: cohortFilters(person('a', 'is_set')) });
  const stat = await createCohort(api, t, { name: `${stem} static`, is_static: true });
  const gone = await createCohort(api, t, { name: `${stem} gone`, is_static: true });
  await patch(gone.id, { deleted: true });
  const ids = async (q = '') => (await api('GET', `${cohortsPath(t)}?search=${stem}${q}`, t.personalKey)).body.results.map((c: { id: number }) => c.id);
  assert.equal(await ids(), [stat.id, dyn.id]);
  assert.equal(await ids('&type=static'), [stat.id]);
  assert.equal(await ids('&type=dynamic'), [dyn.id]);
});

s('DELETE is 405; soft delete is refused while an active flag uses the cohort, even through another cohort', async () => {
  const inner = await createCohort(api, t, { name: 'Inner', filters: cohortFilters(person('plan', 'exact', 'pro')) });
  const outer = await createCohort(api, t, { name: 'Outer', filters: cohortFilters({ key: 'id', type: 'cohort', value: inner.id }) });
  const flag = await createFlag(api, t, flagBody(freshKey('uses'), [{ properties: [{ key: 'id', type: 'cohort', value: outer.id }] }], { name: 'Uses outer' }));
  const del = await api('DELETE', `${cohortsPath(t)}${inner.id}/`, t.personalKey);
  assert.is(del.status, 405);
  assert.is(del.body, null);
  await refused(patch(inner.id, { deleted: true }),
    invalid('This cohort is used in 1 active feature flag(s): Uses outer. Please remove the cohort from these feature flags before deleting it.', null));
  await api('PATCH', `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, t.personalKey, { active: false });
  const ok = await patch(inner.id, { deleted: true });
  assert.is(ok.status, 200);
  assert.is(ok.body.deleted, true);
});

s('a cohort used in flags cannot take event filters, directly or through a cohort it names', async () => {
  const used = await createCohort(api, t, { name: 'Used', filters: cohortFilters(person('plan', 'exact', 'pro')) });
  await createFlag(api, t, flagBody(freshKey('f'), [{ properties: [{ key: 'id', type: 'cohort', value: used.id }] }]));
  const behavioral = { key: 'purchase', type: 'behavioral', value: 'performed_event', event_type: 'events' };
  await refused(patch(used.id, { filters: cohortFilters(behavioral) }),
    invalid('Behavioral filters cannot be added to cohorts used in feature flags.', 'filters', 'behavioral_cohort_found'));
  const buyers = await createCohort(api, t, { name: 'Buyers', filters: cohortFilters(behavioral) });
  await refused(patch(used.id, { filters: cohortFilters({ key: 'id', type: 'cohort', value: buyers.id }) }),
    invalid("A cohort dependency (Buyers) has filters based on events. These cohorts can't be used in feature flags.", 'filters', 'behavioral_cohort_found'));
});

s('cohorts may not reference each other in a loop', async () => {
  const a = await createCohort(api, t, { name: 'A', filters: cohortFilters(person('x', 'is_set')) });
  const b = await createCohort(api, t, { name: 'B', filters: cohortFilters({ key: 'id', type: 'cohort', value: a.id }) });
  await refused(patch(a.id, { filters: cohortFilters({ key: 'id', type: 'cohort', value: b.id }) }),
    invalid('Cohorts cannot reference other cohorts in a loop.', null));
  await refused(patch(a.id, { filters: cohortFilters({ key: 'id', type: 'cohort', value: a.id }) }),
    invalid('Cohorts cannot reference other cohorts in a loop.', null));
});

s('cohort changes bump the definitions version', async () => {
  const v0 = definitionsVersion(t.server.store, t.projectId);
  const c = await createCohort(api, t, { name: 'V', is_static: true });
  await patch(c.id, { distinct_ids: ['z'] });
  await patch(c.id, { name: 'V2' });
  assert.is(definitionsVersion(t.server.store, t.projectId), v0 + 3);
});

s('unknown cohorts are 404; a key without cohort:write cannot create', async () => {
  assert.is((await api('GET', `${cohortsPath(t)}424242/`, t.personalKey)).status, 404);
  const owner = t.server.tenancy.userByEmail('admin@hedgerow.local')!;
  const { key } = await t.server.tenancy.createPersonalKey(owner.id, ['cohort:read'], null, 'read only');
  const r = await api('POST', cohortsPath(t), key, { name: 'x' });
  assert.is(r.status, 403);
  assert.is(r.body.detail, "API key missing required scope 'cohort:write'");
});

s('static cohorts from a CSV upload (PostHog\'s csv form field): a distinct_id column, or the first column without a header', async () => {
  const upload = async (method: 'POST' | 'PATCH', path: string, fields: Record<string, string>, csv: string) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('csv', new Blob([csv], { type: 'text/csv' }), 'members.csv');
    const r = await fetch(`${t.url}${path}`, { method, body: form, headers: { authorization: `Bearer ${t.personalKey}` } });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };
  const withHeader = await upload('POST', cohortsPath(t), { name: 'From CSV', is_static: 'true' }, 'email,Distinct_ID\r\nx@y.z,csv-1\r\n,"csv-2"\r\n\r\n,csv-1\r\n');
  assert.is(withHeader.status, 201, JSON.stringify(withHeader.body));
  assert.is(withHeader.body.name, 'From CSV');
  assert.is(withHeader.body.is_static, true);
  assert.is(withHeader.body.count, 2);
  assert.equal([...staticCohortsOf(t.server.store, t.projectId, ['csv-2'])], [withHeader.body.id]);
  // Without a known header, every row's first cell is a distinct id; a PATCH adds them.
  const more = await upload('PATCH', `${cohortsPath(t)}${withHeader.body.id}/`, {}, 'csv-3,ignored\ncsv-4\n');
  assert.is(more.status, 200, JSON.stringify(more.body));
  assert.is(more.body.count, 4);
  const dynamic = await upload('POST', cohortsPath(t), { name: 'Not static' }, 'distinct_id\nx\n');
  assert.is(dynamic.status, 400);
  assert.is(dynamic.body.attr, 'csv');
});

s.run();
