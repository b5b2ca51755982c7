// Hostile input through the real server: capture accepts it, and the consumer neither
// stops on it nor on the events behind it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, request, eventually, type TestServer } from '../helpers/server.js';
import { apiClient, type ApiCall } from '../helpers/api.js';

const s = suite('hostile input end to end');
let t: TestServer;
let api: ApiCall;
const get = (path: string) => api('GET', `/api/environments/${t.projectId}${path}`, t.personalKey);

s.before(async () => {
  t = await startTestServer();
  api = apiClient(t);
});
s.after(async () => { await t.close(); });

s('events nested 5,000 levels deep and 3,000-character merge ids are accepted; the events after them are processed', async () => {
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  const body = `{"api_key":"${t.projectKey}","batch":[`
    + `{"event":"deep","distinct_id":"dana","uuid":"0190a0e4-1c4e-7b1a-9e5b-00000000d001","properties":{"deep":${deep}}},`
    + `{"event":"$identify","distinct_id":"erin","properties":{"$anon_distinct_id":"${'a'.repeat(3000)}"}},`
    + `{"event":"after","distinct_id":"finn","properties":{"$set":{"plan":"pro"}}}]}`;
  const r = await request(`${t.url}/batch/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  assert.is(r.status, 200);

  const finn = await eventually(async () => (await get('/persons/?distinct_id=finn')).body.results[0]);
  assert.is(finn.properties.plan, 'pro');
  const erin = (await get('/persons/?distinct_id=erin')).body.results[0];
  assert.equal(erin.distinct_ids, ['erin', 'a'.repeat(200)]);
  const warnings = (await get('/ingestion_warnings/')).body.results;
  const failed = warnings.find((w: { type: string }) => w.type === 'event_processing_failed');
  assert.is(failed.count, 1);
  assert.is(failed.warnings[0].details.eventUuid, '0190a0e4-1c4e-7b1a-9e5b-00000000d001');
  assert.is(failed.warnings[0].details.outcome, 'stored_with_deep_values_cut');
  // Stored whole, 5,000 levels would fail every read of the event in the main thread.
  assert.is((await get('/events/0190a0e4-1c4e-7b1a-9e5b-00000000d001')).status, 200);
  assert.is((await get('/events/')).status, 200);
});

s.run();
