// `/public/webhooks/:id` (PostHog's source webhook endpoint): an enabled source_webhook runs
// its Hog on the request (PostHog's `request` globals) and captures what postHogCapture()
// gives into its project; its answer is the program's `httpResponse`, else PostHog's
// statuses; anything else is PostHog's 404.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { eventually, postJson, request, startTestServer, EVENTS_ONLY, type TestServer } from '../helpers/server.js';

const s = suite('destinations: public webhooks');
let t: TestServer;
let api: ApiCall;

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  api = apiClient(t);
});
s.after(async () => { await t.close(); });

const fns = () => `/api/environments/${t.projectId}/hog_functions/`;
async function source(hog: string, extra: Record<string, unknown> = {}): Promise<string> {
  const made = await api('POST', fns(), t.personalKey, { type: 'source_webhook', name: 'incoming', hog, enabled: true, ...extra });
  assert.is(made.status, 201, JSON.stringify(made.body));
  return made.body.id;
}
const stored = async (distinctId: string) => (await api('GET', `/api/projects/${t.projectId}/events/?distinct_id=${distinctId}`, t.personalKey)).body.results;

s('a request runs the function: it captures into its project from the body, headers, query and inputs, and answers as its result says', async () => {
  const id = await source(`
if (empty(request.body.event)) { return {'httpResponse': {'status': 400, 'body': {'error': 'no event'}}} }
postHogCapture({'event': request.body.event, 'distinct_id': request.body.distinct_id, 'properties': {
  'plan': inputs.plan, 'sig': request.headers['x-signature'], 'source': request.query.source, 'method': request.method, 'raw': length(request.stringBody)
}})`, {
    inputs_schema: [{ key: 'plan', type: 'string', label: 'Plan' }],
    inputs: { plan: { value: 'from-{request.query.source}' } },
  });
  const body = { event: 'signed up', distinct_id: 'hook-ann' };
  const ok = await postJson(`${t.url}/public/webhooks/${id}?source=stripe`, body, { 'X-Signature': 'abc', Cookie: 'secret=1' });
  assert.equal([ok.status, ok.body], [200, { status: 'ok' }]);
  const refused = await postJson(`${t.url}/public/webhooks/${id}`, { distinct_id: 'hook-bob' });
  assert.equal([refused.status, refused.body], [400, { error: 'no event' }]);
  await t.applied();
  const [ev] = await stored('hook-ann');
  assert.is(ev.event, 'signed up');
  assert.equal(
    [ev.properties.plan, ev.properties.sig, ev.properties.source, ev.properties.method, ev.properties.raw],
    ['from-stripe', 'abc', 'stripe', 'POST', JSON.stringify(body).length],
  );
  assert.equal(await stored('hook-bob'), []);
  await eventually(async () => {
    const logs = (await api('GET', `${fns()}${id}/logs/`, t.personalKey)).body.results as { level: string; message: string }[];
    return logs.some((l) => l.level === 'WARN' && l.message === 'Responded with response status - 400');
  });
  const totals = (await api('GET', `${fns()}${id}/metrics/totals/?breakdown_by=name`, t.personalKey)).body.totals;
  assert.equal(totals, { succeeded: 2 });
});

s('a text answer, a failing program (500) and a fetch (201, then the rest runs); cookies never reach the program', async () => {
  const text = await source(`let sig := request.headers['x-signature']
return {'httpResponse': {'status': 202, 'body': f'cookie: {request.headers.cookie}, sig: {sig}'}}`);
  const answered = await request(`${t.url}/public/webhooks/${text}`, { method: 'POST', headers: { Cookie: 'a=1', 'X-Signature': 'abc' }, body: '{}' });
  assert.is(answered.status, 202);
  assert.is(answered.body, 'cookie: , sig: abc');
  assert.match(answered.headers.get('content-type') ?? '', /^text\/plain/);
  const failing = await source("throw Error('nope')");
  const failed = await postJson(`${t.url}/public/webhooks/${failing}`, {});
  assert.equal([failed.status, failed.body], [500, { status: 'Unhandled error' }]);
  // The fetch is refused by the address policy (PostHog's 500 answer to the program), then it captures.
  const fetching = await source(`let res := fetch('http://127.0.0.1:9/x', {'method': 'POST'})
postHogCapture({'event': 'after fetch', 'distinct_id': 'hook-cid', 'properties': {'status': res.status}})`);
  const queued = await postJson(`${t.url}/public/webhooks/${fetching}`, {});
  assert.equal([queued.status, queued.body], [201, { status: 'queued' }]);
  await eventually(async () => (await stored('hook-cid')).length === 1);
  assert.is((await stored('hook-cid'))[0].properties.status, 500);
});

s('disabled, deleted, other functions and unknown ids are 404', async () => {
  const id = await source("return {'httpResponse': {'status': 200, 'body': 'ok'}}");
  assert.is((await request(`${t.url}/public/webhooks/${id}.json`)).status, 200);
  assert.is((await api('PATCH', `${fns()}${id}/`, t.personalKey, { enabled: false })).status, 200);
  const disabled = await postJson(`${t.url}/public/webhooks/${id}`, {});
  assert.equal([disabled.status, disabled.body], [404, { error: 'Not found' }]);
  const dest = await api('POST', fns(), t.personalKey, { template_id: 'template-webhook', enabled: true, inputs: { url: { value: 'https://example.com/' } } });
  assert.is((await postJson(`${t.url}/public/webhooks/${dest.body.id}`, {})).status, 404);
  assert.is((await postJson(`${t.url}/public/webhooks/not-a-uuid`, {})).status, 404);
});

s.run();
