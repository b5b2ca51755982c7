// `/public/webhooks/:id` (PostHog's source webhook endpoint): not run here yet, so an
// enabled source_webhook answers 501 saying so; anything else PostHog's 404.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient } from '../helpers/api.js';
import { postJson, request, startTestServer, NO_CONSUMERS, type TestServer } from '../helpers/server.js';

const s = suite('destinations: public webhooks');
let t: TestServer;

s.before(async () => { t = await startTestServer({ consumers: NO_CONSUMERS }); });
s.after(async () => { await t.close(); });

s('an enabled source_webhook is refused with 501; unknown, disabled and other ids are 404', async () => {
  const api = apiClient(t);
  const fns = `/api/environments/${t.projectId}/hog_functions/`;
  const made = await api('POST', fns, t.personalKey, { type: 'source_webhook', name: 'incoming', hog: "return {'httpResponse': {'status': 200}}", enabled: true });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const posted = await postJson(`${t.url}/public/webhooks/${made.body.id}`, { event: 'signup', distinct_id: 'x' });
  assert.is(posted.status, 501);
  assert.match(posted.body.error, /not run on requests/);
  assert.is((await request(`${t.url}/public/webhooks/${made.body.id}.json`)).status, 501);
  assert.is((await api('PATCH', `${fns}${made.body.id}/`, t.personalKey, { enabled: false })).status, 200);
  const disabled = await postJson(`${t.url}/public/webhooks/${made.body.id}`, {});
  assert.equal([disabled.status, disabled.body], [404, { error: 'Not found' }]);
  const dest = await api('POST', fns, t.personalKey, { template_id: 'template-webhook', enabled: true, inputs: { url: { value: 'https://example.com/' } } });
  assert.is((await postJson(`${t.url}/public/webhooks/${dest.body.id}`, {})).status, 404);
  assert.is((await postJson(`${t.url}/public/webhooks/not-a-uuid`, {})).status, 404);
});

s.run();
