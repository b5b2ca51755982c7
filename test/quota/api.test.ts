// The feature flag quota over HTTP and the CLI: reading and setting an organization's
// limit, the feed's 402 once it is used up (posthog-node then drops its flags), and a
// limit set from the command line reaching the running server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PostHog } from 'posthog-node';
import { request, bearer, eventually, NO_CONSUMERS, type TestServer } from '../helpers/server.js';
import { serveSuite, denied, type ApiCall } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { OrgLevel } from '../../src/access/index.js';
import { createFlag, flagBody } from '../flags/api/helpers.js';
import { warningsDuring } from '../helpers/console.js';
import { cliRun } from '../helpers/cli-server.js';

const s = suite('flag quota API and CLI');
let t: TestServer;
let api: ApiCall;

// Management API only: no log consumers.
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: NO_CONSUMERS });

const QUOTA = '/api/organizations/@current/quota/';
const feed = () => request(`${t.url}/flags/definitions?token=${t.projectKey}`, { headers: bearer(t.personalKey) });
const setLimit = (limit: unknown, key = t.personalKey) => api('PATCH', QUOTA, key, { feature_flag_requests: limit });

const cli = (...args: string[]) => cliRun(t.dataDir, 'quota', ...args);

s('GET: unlimited by default, with this month\'s usage and period (UTC)', async () => {
  const r = await api('GET', QUOTA, t.personalKey);
  assert.is(r.status, 200);
  const q = r.body.feature_flag_requests;
  assert.is(q.limit, null);
  assert.is(q.quota_limited, false);
  assert.type(q.usage, 'number');
  const now = new Date();
  assert.is(q.period_start, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString());
  assert.is(q.period_end, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
});

s('PATCH: organization admins only; a non-negative whole number or null', async () => {
  const member = await addUser(t, { level: OrgLevel.member });
  const r = await setLimit(5, member.key);
  assert.is(r.status, 403);
  assert.equal(r.body, denied('Your organization access level is insufficient.'));
  for (const bad of [-1, 1.5, 'lots', true]) {
    const b = await setLimit(bad);
    assert.is(b.status, 400, String(bad));
    assert.equal(b.body, { type: 'validation_error', code: 'invalid_input', detail: 'A valid non-negative integer or null is required.', attr: 'feature_flag_requests' });
  }
  const other = await api('GET', '/api/organizations/00000000-0000-4000-8000-000000000000/quota/', t.personalKey);
  assert.is(other.status, 404);
});

s('each answered feed call counts; over the limit the feed answers 402 with PostHog\'s body', async () => {
  await createFlag(api, t, flagBody('quota-flag', [{ properties: [] }]));
  const before = (await api('GET', QUOTA, t.personalKey)).body.feature_flag_requests.usage;
  assert.is((await feed()).status, 200);
  assert.is((await api('GET', QUOTA, t.personalKey)).body.feature_flag_requests.usage, before + 1);
  const set = await setLimit(before + 2);
  assert.is(set.body.feature_flag_requests.limit, before + 2);
  assert.is((await feed()).status, 200);
  const limited = await feed();
  assert.is(limited.status, 402);
  assert.equal(limited.body, { type: 'quota_limited', code: 'payment_required', detail: 'You have exceeded your feature flag request quota', attr: null });
  const q = (await api('GET', QUOTA, t.personalKey)).body.feature_flag_requests;
  assert.is(q.quota_limited, true);
  assert.is(q.usage, before + 2);
  assert.is((await setLimit(null)).body.feature_flag_requests.quota_limited, false);
  assert.is((await feed()).status, 200);
});

s('posthog-node drops its local flags on 402', async () => {
  const client = new PostHog(t.projectKey, { host: t.url, personalApiKey: t.personalKey, featureFlagsPollingInterval: 60_000, flushAt: 1000, flushInterval: 0 });
  try {
    assert.ok(await client.waitForLocalEvaluationReady(5000));
    const local = async () => (await client.evaluateFlags('someone', { onlyEvaluateLocally: true })).getFlag('quota-flag', { sendFeatureFlagEvents: false });
    assert.is(await local(), true);
    await setLimit(0);
    const warnings = await warningsDuring(() => client.reloadFeatureFlags());
    assert.ok(warnings.some((w) => w.includes('Feature flags quota limit exceeded')), warnings.join('\n'));
    assert.is(await local(), undefined);
  } finally {
    await setLimit(null);
    await client.shutdown();
  }
});

s('CLI: quota set and show on the data directory of the running server; the server follows', async () => {
  const set = await cli('set', '--flags', '0', '--json');
  assert.is(set.code, 0, set.stderr);
  const out = JSON.parse(set.stdout);
  assert.is(out.feature_flag_requests.limit, 0);
  assert.is(out.feature_flag_requests.quota_limited, true);
  await eventually(async () => (await feed()).status === 402);
  const shown = await cli('show');
  assert.is(shown.code, 0);
  assert.match(shown.stdout, /^organization [0-9a-f-]{36}: feature flag requests \d+ of 0 this month \(\d{4}-\d\d-01 to \d{4}-\d\d-01 UTC\), quota-limited\n$/);
  assert.is((await cli('set', '--flags', 'unlimited')).code, 0);
  await eventually(async () => (await feed()).status === 200);
  const bad = await cli('set', '--flags', 'many');
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /--flags N/);
  const noOrg = await cli('show', '--organization', 'nope');
  assert.is(noOrg.code, 1);
  assert.match(noOrg.stderr, /no organization with id nope/);
});

s.run();
