// posthog-node, pointed at hedgerow with a personal API key, loads the feed and evaluates
// flags locally; its answers equal hedgerow's own evaluation of the same definitions
// (loadFlagDefinitions + the core). This proves the feed's shape; the large differential
// test against /flags comes with the evaluation endpoints.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PostHog } from 'posthog-node';
import { startTestServer, postJson, request, bearer, eventually, EVENTS_ONLY, type TestServer } from '../../helpers/server.js';
import { apiClient, type ApiCall } from '../../helpers/api.js';
import { compileFlags, evaluateFlags } from '../../../src/flags/index.js';
import { loadFlagDefinitions } from '../../../src/flags/definitions/index.js';
import { cohortFilters, createCohort, createFlag, flagBody, person } from './helpers.js';
import { warningsDuring } from '../../helpers/console.js';

const s = suite('posthog-node local evaluation against the feed');
let t: TestServer;
let api: ApiCall;
let client: PostHog;

interface Someone {
  id: string;
  properties: Record<string, unknown>;
  company?: string;
  companySize?: number;
}

const people: Someone[] = [
  { id: 'ann', properties: { email: 'ann@acme.com', plan: 'pro', country: 'FR', seats: 12 } },
  { id: 'bob', properties: { email: 'bob@example.com', plan: 'free', country: 'DE', seats: 1 } },
  { id: 'cy', properties: { email: 'cy@acme.com', plan: 'free', country: 'FR', seats: 3 } },
  ...Array.from({ length: 30 }, (_, i) => ({
    id: `user-${i}`, properties: { email: `u${i}@x.io`, plan: i % 3 ? 'free' : 'pro', country: i % 2 ? 'FR' : 'US', seats: i },
    company: `co-${i % 7}`, companySize: i,
  })),
];

const keys = ['half', 'acme', 'variants', 'french-pro', 'needs-acme', 'off', 'big-companies'];

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  api = apiClient(t);
  await createFlag(api, t, flagBody('half', [{ properties: [], rollout_percentage: 50 }], { filters: { payloads: { true: '{"discount":10}' } } }));
  const acme = await createFlag(api, t, flagBody('acme', [{ properties: [person('email', 'icontains', '@acme.com')] }]));
  await createFlag(api, t, {
    key: 'variants',
    filters: {
      groups: [{ properties: [person('seats', 'gt', '2')], rollout_percentage: 80 }, { properties: [person('plan', 'exact', ['pro']), person('country', 'exact', 'DE')], variant: 'blue' }],
      multivariate: { variants: [{ key: 'red', rollout_percentage: 30 }, { key: 'blue', rollout_percentage: 30 }, { key: 'green', rollout_percentage: 40 }] },
      payloads: { red: '"R"', green: '{"g":1}' },
    },
  });
  const frenchPro = await createCohort(api, t, { name: 'French pro', filters: cohortFilters(person('country', 'exact', 'FR'), person('plan', 'exact', 'pro')) });
  await createFlag(api, t, flagBody('french-pro', [{ properties: [{ key: 'id', type: 'cohort', value: frenchPro.id }] }]));
  await createFlag(api, t, flagBody('needs-acme', [{ properties: [{ key: String(acme.id), type: 'flag', operator: 'flag_evaluates_to', value: true }], rollout_percentage: 70 }]));
  await createFlag(api, t, flagBody('off', [{ properties: [] }], { active: false }));
  // Group types come from captured $groupidentify events (persons and groups).
  await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [
    { event: '$groupidentify', distinct_id: '$company_co-0', properties: { $group_type: 'company', $group_key: 'co-0', $group_set: {} } },
  ] });
  await eventually(async () => (await request(`${t.url}/api/projects/${t.projectId}/groups_types/`, { headers: bearer(t.personalKey) })).body?.length === 1);
  await createFlag(api, t, {
    key: 'big-companies',
    filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'size', type: 'group', group_type_index: 0, operator: 'gt', value: '5' }], rollout_percentage: 60 }] },
  });

  client = new PostHog(t.projectKey, {
    host: t.url, personalApiKey: t.personalKey, featureFlagsPollingInterval: 60_000, flushAt: 1000, flushInterval: 0,
  });
  assert.ok(await client.waitForLocalEvaluationReady(5000), 'posthog-node loaded the definitions');
});
s.after(async () => {
  await client.shutdown();
  await t.close();
});

const groupsOf = (p: Someone): Record<string, string> => (p.company ? { company: p.company } : {});
const groupPropertiesOf = (p: Someone): Record<string, Record<string, unknown>> => (p.company ? { company: { size: p.companySize } } : {});

function hedgerowValues(p: Someone) {
  const { definitions } = loadFlagDefinitions(t.server.store, t.projectId);
  const result = evaluateFlags(compileFlags(definitions), {
    distinct_id: p.id, person_properties: p.properties, groups: groupsOf(p), group_properties: groupPropertiesOf(p), now: Date.now(),
  });
  return new Map(result.flags.map((f) => [f.key, f]));
}

const local = (p: Someone) =>
  client.evaluateFlags(p.id, { personProperties: p.properties, groups: groupsOf(p), groupProperties: groupPropertiesOf(p), onlyEvaluateLocally: true });

s('every flag, every person: posthog-node computes locally what hedgerow computes', async () => {
  let seen = 0;
  for (const p of people) {
    const ours = hedgerowValues(p);
    const theirs = await local(p);
    for (const key of keys) {
      assert.is(theirs.getFlag(key, { sendFeatureFlagEvents: false }), ours.get(key)?.value ?? false, `${key} for ${p.id}`);
      seen++;
    }
  }
  assert.is(seen, people.length * keys.length);
  // The flags are not trivial: each takes both values across these people.
  for (const key of ['half', 'acme', 'variants', 'french-pro', 'needs-acme', 'big-companies']) {
    const values = new Set(people.map((p) => String(hedgerowValues(p).get(key)?.value)));
    assert.ok(values.size > 1, `${key} varies`);
  }
});

s('payloads come through as stored', async () => {
  for (const p of people.slice(0, 10)) {
    const ours = hedgerowValues(p);
    const theirs = await local(p);
    for (const key of ['half', 'variants']) {
      const evaluation = ours.get(key)!;
      const payload = theirs.getFlagPayload(key);
      const expected = evaluation.payload === null ? undefined : JSON.parse(evaluation.payload as string);
      assert.equal(payload ?? undefined, expected, `${key} for ${p.id}`);
    }
  }
});

s('a flag on a static cohort cannot be evaluated locally (the feed does not carry memberships)', async () => {
  const listed = await createCohort(api, t, { name: 'listed', is_static: true, distinct_ids: ['ann'] });
  await createFlag(api, t, flagBody('listed-only', [{ properties: [{ key: 'id', type: 'cohort', value: listed.id }] }]));
  // posthog-node says so when it loads the definitions.
  const warnings = await warningsDuring(() => client.reloadFeatureFlags());
  assert.ok(warnings.some((w) => w.includes('(reason: unsupported_definition): listed-only')), warnings.join('\n'));
  const flags = await local(people[0]);
  assert.is(flags.getFlag('listed-only', { sendFeatureFlagEvents: false }), undefined);
  assert.is(flags.getFlag('acme', { sendFeatureFlagEvents: false }), true);
});

s.run();
