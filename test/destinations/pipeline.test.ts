// Destinations on captured events, end to end over HTTP: functions made through the API
// deliver to a local sink (allowed by HEDGEROW_HOG_FETCH_ALLOW) the requests their
// templates, filters, mappings and masking say, retry a failing sink and then record the
// failure, stop runaway programs, and show it all in their logs, metrics and status.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiCall } from '../helpers/api.js';
import { eventually, postJson, type TestServer } from '../helpers/server.js';
import type { ServerResponse } from 'node:http';
import { ok, type Sink } from '../helpers/http-sink.js';
import { startSinkServer, stopSinkServer } from '../helpers/sink-server.js';

const s = suite('destinations pipeline');
let t: TestServer;
let api: ApiCall;
let sink: Sink;

s.before(async () => {
  ({ t, api, sink } = await startSinkServer({ HEDGEROW_HOG_WATCHER_LOCK_SECONDS: '0' }));
});
s.after(() => stopSinkServer({ t, api, sink }));
s.before.each(() => sink.reset());

const fns = () => `/api/environments/${t.projectId}/hog_functions/`;

async function create(body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await api('POST', fns(), t.personalKey, { enabled: true, ...body });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function capture(events: { event: string; distinct_id: string; properties?: Record<string, unknown> }[]): Promise<void> {
  const res = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: events });
  assert.is(res.status, 200);
}

const totals = async (id: string, q = 'breakdown_by=name') => (await api('GET', `${fns()}${id}/metrics/totals/?${q}`, t.personalKey)).body.totals;
// Nothing more can arrive for these functions: the destinations consumer has evaluated
// every event captured so far (its position reached the log's end, and each batch's
// invocations and metrics are written before its position), and every invocation it
// triggered has finished.
async function settled(...ids: string[]): Promise<void> {
  await t.applied();
  for (const id of ids) {
    await eventually(async () => {
      const { triggered = 0, succeeded = 0, failed = 0 } = await totals(id);
      return triggered === succeeded + failed;
    });
  }
}
const logs = async (id: string, q = '') => (await api('GET', `${fns()}${id}/logs/?${q}`, t.personalKey)).body.results as { level: string; message: string; instance_id: string }[];

s('a webhook made from its template delivers the right request for each matching event and none for the others', async () => {
  const fn = await create({
    template_id: 'template-webhook', name: 'signups',
    inputs: {
      url: { value: `${sink.url}/hook/{event.event}` },
      method: { value: 'PUT' },
      headers: { value: { 'Content-Type': 'application/json', 'X-Distinct': '{event.distinct_id}' } },
      body: { value: { event: '{event.event}', uuid: '{event.uuid}', email: '{person.properties.email}', plan: '{event.properties.plan}' } },
    },
    filters: { events: [{ id: 'signed up', type: 'events' }], properties: [{ key: 'plan', value: 'free', operator: 'is_not', type: 'event' }] },
  });
  await capture([
    { event: '$identify', distinct_id: 'ann', properties: { $set: { email: 'ann@example.com' } } },
    { event: 'signed up', distinct_id: 'ann', properties: { plan: 'pro' } },
    { event: '$pageview', distinct_id: 'ann' },
    { event: 'signed up', distinct_id: 'bob', properties: { plan: 'free' } },
    { event: 'signed up', distinct_id: 'cid', properties: { plan: 'team' } },
  ]);
  await eventually(async () => sink.requests.length >= 2);
  await settled(fn.id);
  assert.is(sink.requests.length, 2);
  const [first, second] = [...sink.requests].sort((a, b) => a.json().plan.localeCompare(b.json().plan));
  assert.is(first.method, 'PUT');
  assert.is(first.path, '/hook/signed%20up');
  assert.is(first.headers['x-distinct'], 'ann');
  assert.is(first.headers['content-type'], 'application/json');
  assert.equal({ ...first.json(), uuid: undefined }, { event: 'signed up', email: 'ann@example.com', plan: 'pro', uuid: undefined });
  assert.match(first.json().uuid, /^[0-9a-f-]{36}$/);
  assert.equal({ ...second.json(), uuid: undefined }, { event: 'signed up', email: null, plan: 'team', uuid: undefined });

  await eventually(async () => (await totals(fn.id)).succeeded === 2);
  assert.equal(await totals(fn.id), { triggered: 2, filtered: 3, fetch: 2, succeeded: 2 });
  assert.equal(await totals(fn.id, ''), { other: 7, success: 2 });
  const series = (await api('GET', `${fns()}${fn.id}/metrics/?interval=hour&after=-2h`, t.personalKey)).body;
  assert.is(series.labels.length, 3);
  assert.equal(series.series.map((x: { name: string }) => x.name), ['other', 'success']);
  assert.is(series.series[1].values.reduce((a: number, b: number) => a + b, 0), 2);
  const lines = await logs(fn.id);
  assert.is(lines.filter((l) => l.level === 'DEBUG' && /^Function completed in [\d.]+ms\. Sync: [\d.]+ms\. Mem: [\d.]+kb\. Ops: \d+\. Event: 'http/.test(l.message)).length, 2);
});

s('mappings: one call per matching mapping, with the mapping\'s inputs over the function\'s and the secret write key', async () => {
  const template = (await api('GET', `/api/environments/${t.projectId}/hog_function_templates/template-segment-api/`, t.personalKey)).body;
  const mappings = template.mapping_templates.map((m: { filters: unknown; inputs_schema: { key: string; default: unknown }[] }) => ({
    filters: m.filters, inputs_schema: m.inputs_schema,
    inputs: Object.fromEntries(m.inputs_schema.map((i) => [i.key, { value: i.default }])),
  }));
  const fn = await create({ template_id: 'template-segment-api', inputs: { api_url: { value: sink.url }, write_key: { value: 'wk_secret' } }, mappings });
  await capture([
    { event: '$pageview', distinct_id: 'm1', properties: { $current_url: 'https://x.test/a', $pathname: '/a' } },
    { event: 'clicked', distinct_id: 'm1' },
    { event: '$identify', distinct_id: 'm1', properties: { $set: { plan: 'pro' } } },
  ]);
  await eventually(async () => sink.requests.length >= 5);
  await settled(fn.id);
  const calls = sink.requests.map((r) => `${r.path} ${r.json().event ?? r.json().name ?? ''}`).sort();
  assert.equal(calls, ['/v1/identify ', '/v1/page /a', '/v1/track $identify', '/v1/track $pageview', '/v1/track clicked']);
  for (const r of sink.requests) assert.is(r.headers.authorization, `Basic ${Buffer.from('wk_secret:').toString('base64')}`);
  const identify = sink.requests.find((r) => r.path === '/v1/identify')!.json();
  assert.is(identify.traits.plan, 'pro');
  assert.equal(await totals(fn.id), { triggered: 5, fetch: 5, succeeded: 5 });
});

s('masking lets through PostHog\'s counts: the first per hash and window, or every Nth with a threshold', async () => {
  const make = (threshold: number | null) => create({
    template_id: 'template-webhook', inputs: { url: { value: `${sink.url}/mask/${threshold}` }, body: { value: { d: '{event.distinct_id}' } } },
    filters: { events: [{ id: 'masked', type: 'events' }] }, masking: { ttl: 60, threshold, hash: '{event.distinct_id}' },
  });
  const plain = await make(null);
  const every2 = await make(2);
  await capture([
    ...Array.from({ length: 5 }, () => ({ event: 'masked', distinct_id: 'same' })),
    ...Array.from({ length: 2 }, () => ({ event: 'masked', distinct_id: 'other' })),
  ]);
  await eventually(async () => sink.requests.length >= 6);
  await settled(plain.id, every2.id);
  const count = (path: string, d: string) => sink.requests.filter((r) => r.path === path && r.json().d === d).length;
  assert.is(count('/mask/null', 'same'), 1);
  assert.is(count('/mask/null', 'other'), 1);
  assert.is(count('/mask/2', 'same'), 3);
  assert.is(count('/mask/2', 'other'), 1);
  assert.is((await totals(plain.id)).masked, 5);
  assert.is((await totals(every2.id)).masked, 3);
});

s('a failing sink is retried with backoff, then the invocation is recorded as failed', async () => {
  sink.respond = (_req, res) => { res.statusCode = 503; res.end('down'); };
  const fn = await create({
    template_id: 'template-webhook', inputs: { url: { value: `${sink.url}/down` } }, filters: { events: [{ id: 'retry me', type: 'events' }] },
  });
  const started = Date.now();
  await capture([{ event: 'retry me', distinct_id: 'r1' }]);
  await eventually(async () => (await totals(fn.id)).failed === 1, 20_000);
  assert.is(sink.requests.filter((r) => r.path === '/down').length, 3);
  // PostHog's backoff: at least a second before the second attempt and two before the third.
  assert.ok(Date.now() - started >= 3000);
  const lines = (await logs(fn.id)).map((l) => `${l.level} ${l.message}`).reverse();
  assert.ok(lines.includes('WARN HTTP fetch failed on attempt 1 with status code 503. Retrying.'), lines.join('\n'));
  assert.ok(lines.includes('WARN HTTP fetch failed on attempt 2 with status code 503. Retrying.'));
  assert.ok(lines.includes('ERROR HTTP fetch failed on attempt 3 with status code 503.'));
  assert.ok(lines.some((l) => /^ERROR Error executing function on event [0-9a-f-]+: Error\('Webhook failed with status 503: down'\)$/.test(l)), lines.join('\n'));
  assert.equal(await totals(fn.id), { triggered: 1, fetch: 3, failed: 1 });
  // Log filters: level, search, instance and limit.
  assert.is((await logs(fn.id, 'level=warn')).length, 2);
  assert.is((await logs(fn.id, 'search=ATTEMPT 3')).length, 1);
  assert.is((await logs(fn.id, 'limit=1')).length, 1);
  const instance = (await logs(fn.id))[0].instance_id;
  assert.is((await logs(fn.id, `instance_id=${instance}`)).length, 4);
  assert.is((await logs(fn.id, 'instance_id=other')).length, 0);
  const bad = await api('GET', `${fns()}${fn.id}/logs/?limit=501`, t.personalKey);
  assert.equal(bad.body, { type: 'validation_error', code: 'max_value', detail: 'Ensure this value is less than or equal to 500.', attr: 'limit' });
});

s('a slow endpoint holds up only its own function: 16 of its requests open, the other function delivered meanwhile', async () => {
  const held: ServerResponse[] = [];
  // Requests to the slow endpoint open at once, at most: counted over the whole test, so
  // no waiting is needed to know that a 17th never came while 16 were held.
  let open = 0;
  let mostOpen = 0;
  let holding = true;
  sink.respond = (req, res) => {
    if (req.path !== '/slow') return ok(req, res);
    mostOpen = Math.max(mostOpen, ++open);
    res.once('close', () => { open--; });
    if (holding) held.push(res);
    else ok(req, res);
  };
  const make = (path: string) => create({
    template_id: 'template-webhook', inputs: { url: { value: `${sink.url}${path}` }, body: { value: { n: '{event.properties.n}' } } },
    filters: { events: [{ id: 'both', type: 'events' }] },
  });
  const slow = await make('/slow');
  const quick = await make('/quick');
  await capture(Array.from({ length: 40 }, (_, n) => ({ event: 'both', distinct_id: `b${n}`, properties: { n } })));
  const at = (path: string) => sink.requests.filter((r) => r.path === path).map((r) => r.json().n as number);
  await eventually(async () => (await totals(quick.id)).succeeded === 40);
  assert.is(new Set(at('/quick')).size, 40);
  await eventually(async () => held.length === 16);
  // Every event evaluated: all 40 invocations of the slow function are queued.
  await t.applied();
  assert.is(held.length, 16);
  assert.is(at('/slow').length, 16);
  // The endpoint answers: the rest follow, each event once.
  holding = false;
  for (const res of held.splice(0)) res.end('{"ok":true}');
  await eventually(async () => (await totals(slow.id)).succeeded === 40, 10_000);
  assert.equal(at('/slow').sort((a, b) => a - b), Array.from({ length: 40 }, (_, n) => n));
  assert.is(mostOpen, 16, 'requests to the slow endpoint open at once');
});

s('an infinite loop and a memory hog are stopped by the limits and recorded', async () => {
  const loop = await create({ hog: 'while (true) { }', filters: { events: [{ id: 'runaway', type: 'events' }] } });
  const hog = await create({ hog: "let s := 'x'; while (true) { s := s || s }", filters: { events: [{ id: 'runaway', type: 'events' }] } });
  await capture([{ event: 'runaway', distinct_id: 'x' }]);
  await eventually(async () => (await totals(loop.id)).failed === 1 && (await totals(hog.id)).failed === 1, 10_000);
  assert.match((await logs(loop.id, 'level=error'))[0].message, /^Error executing function on event [0-9a-f-]+: HogVMException: Execution timed out after 0.55 seconds\. Performed \d+ ops\.$/);
  // The VM's memory estimate stops it at 64 MB, unless the loaded machine reaches the
  // 550 ms time budget first (building the strings takes tens of milliseconds).
  assert.match((await logs(hog.id, 'level=error'))[0].message,
    /^Error executing function on event [0-9a-f-]+: HogVMException: (Memory limit of 67108864 bytes exceeded|Execution timed out after 0.55 seconds)/);
  // The pipeline goes on: a later event is delivered as usual.
  const after = await create({ template_id: 'template-webhook', inputs: { url: { value: `${sink.url}/after` } }, filters: { events: [{ id: 'after', type: 'events' }] } });
  await capture([{ event: 'after', distinct_id: 'x' }]);
  await eventually(async () => (await totals(after.id)).succeeded === 1);
});

s('disabled and deleted functions do nothing; an API change applies to the next event', async () => {
  const fn = await create({
    enabled: false, template_id: 'template-webhook', inputs: { url: { value: `${sink.url}/toggle` }, body: { value: { n: '{event.properties.n}' } } },
    filters: { events: [{ id: 'toggle', type: 'events' }] },
  });
  const one = `${fns()}${fn.id}/`;
  const delivered = () => sink.requests.filter((r) => r.path === '/toggle').map((r) => r.json().n);
  await capture([{ event: 'toggle', distinct_id: 'x', properties: { n: 1 } }]);
  // Evaluated: a disabled function triggers nothing (its metrics would say so, written
  // with the batch), so nothing can be delivered later.
  await t.applied();
  assert.is((await totals(fn.id)).triggered, undefined);
  assert.equal(delivered(), []);
  await api('PATCH', one, t.personalKey, { enabled: true });
  await capture([{ event: 'toggle', distinct_id: 'x', properties: { n: 2 } }]);
  await eventually(async () => delivered().length === 1);
  await api('PATCH', one, t.personalKey, { filters: { events: [{ id: 'other', type: 'events' }] } });
  await capture([{ event: 'toggle', distinct_id: 'x', properties: { n: 3 } }, { event: 'other', distinct_id: 'x', properties: { n: 4 } }]);
  await eventually(async () => delivered().length === 2);
  await settled(fn.id);
  const before = await totals(fn.id);
  await api('PATCH', one, t.personalKey, { deleted: true });
  await capture([{ event: 'other', distinct_id: 'x', properties: { n: 5 } }]);
  // Evaluated, and nothing more triggered for the deleted function (undeleted afterwards
  // to read its metrics, which the batch would have counted it in).
  await t.applied();
  await api('PATCH', one, t.personalKey, { deleted: false });
  assert.equal(await totals(fn.id), before);
  assert.equal(delivered(), [2, 4]);
});

s('the watcher degrades and then disables a function that keeps failing; enabling it again takes it back as degraded', async () => {
  const fn = await create({ hog: "throw Error('always')", filters: { events: [{ id: 'fail', type: 'events' }] } });
  const one = `${fns()}${fn.id}/`;
  await capture(Array.from({ length: 130 }, (_, i) => ({ event: 'fail', distinct_id: `f${i}` })));
  await eventually(async () => (await api('GET', one, t.personalKey)).body.status.state === 3, 20_000);
  const disabled = (await api('GET', one, t.personalKey)).body.status;
  assert.ok(disabled.tokens < 0 && disabled.rating < 0);
  const failedBefore = (await totals(fn.id)).failed;
  await capture([{ event: 'fail', distinct_id: 'late' }]);
  // The consumer has evaluated the late event (not only dropped a leftover of the 130 as
  // disabled): else it could run after the function is enabled below, and its failure be
  // charged before the answer.
  await t.applied();
  await eventually(async () => (await totals(fn.id)).disabled_permanently >= 1);
  assert.is((await totals(fn.id)).failed, failedBefore);
  const back = await api('PATCH', one, t.personalKey, { enabled: true });
  assert.equal(back.body.status, { state: 2, rating: 0.8, tokens: 8000 });
});

s('transformations run before an event is stored, in execution order: every consumer sees the event they made, none what they dropped', async () => {
  const t1 = await create({
    type: 'transformation', name: 'first', execution_order: 1,
    hog: `let e := event
if (e.event == 'drop me') { return null }
if (e.event == 'rename me') { e.event := 'renamed' }
e.properties.order := 'a'
e.properties.$set := {'plan': inputs.plan}
return e`,
    inputs_schema: [{ key: 'plan', type: 'string', label: 'Plan' }],
    inputs: { plan: { value: 'pro-{event.distinct_id}' } },
  });
  const t2 = await create({
    type: 'transformation', name: 'second', execution_order: 2,
    hog: `let e := event
e.properties.order := concat(e.properties.order, 'b')
print('second saw', e.event)
return e`,
  });
  const failing = await create({ type: 'transformation', name: 'failing', execution_order: 3, hog: "throw Error('boom')" });
  const skipped = await create({
    type: 'transformation', name: 'only pageviews', execution_order: 4, hog: 'return {\'properties\': {}}',
    filters: { events: [{ id: '$pageview', type: 'events' }] },
  });
  const hook = await create({
    template_id: 'template-webhook', name: 'sees transformed',
    inputs: { url: { value: `${sink.url}/transformed` }, body: { value: { event: '{event.event}', order: '{event.properties.order}', plan: '{person.properties.plan}' } } },
  });
  await capture([
    { event: 'keep', distinct_id: 'tr-ann' },
    { event: 'rename me', distinct_id: 'tr-bob' },
    { event: 'drop me', distinct_id: 'tr-cid' },
  ]);
  await settled(hook.id);
  assert.equal(sink.requests.filter((r) => r.path === '/transformed').map((r) => r.json()).sort((a, b) => a.event.localeCompare(b.event)), [
    { event: 'keep', order: 'ab', plan: 'pro-tr-ann' },
    { event: 'renamed', order: 'ab', plan: 'pro-tr-bob' },
  ]);
  // The event store: the renamed event as transformed, with PostHog's lists; nothing of the dropped one.
  const stored = async (distinctId: string) => (await api('GET', `/api/projects/${t.projectId}/events/?distinct_id=${distinctId}`, t.personalKey)).body.results;
  const [bob] = await stored('tr-bob');
  assert.is(bob.event, 'renamed');
  assert.is(bob.properties.order, 'ab');
  assert.equal(bob.properties.$transformations_succeeded, [`first (${t1.id})`, `second (${t2.id})`]);
  assert.equal(bob.properties.$transformations_failed, [`failing (${failing.id})`]);
  assert.equal(bob.properties.$transformations_skipped, [`only pageviews (${skipped.id})`]);
  assert.equal(await stored('tr-cid'), []);
  // Person processing ran on the transformed event.
  const persons = (await api('GET', `/api/projects/${t.projectId}/persons/?distinct_id=tr-ann`, t.personalKey)).body.results;
  assert.is(persons[0].properties.plan, 'pro-tr-ann');
  // Logs and metrics per transformation (what the first dropped goes no further).
  await eventually(async () => (await totals(failing.id)).failed === 2);
  assert.equal(await totals(t1.id), { succeeded: 3, dropped: 1 });
  assert.equal(await totals(t2.id), { succeeded: 2 });
  assert.equal(await totals(skipped.id), { filtered: 2 });
  assert.ok((await logs(failing.id)).some((l) => l.level === 'ERROR' && /Error\('boom'\)/.test(l.message)));
  assert.equal((await logs(t2.id)).filter((l) => l.level === 'INFO').map((l) => l.message).sort(), ['second saw keep', 'second saw renamed']);
  for (const id of [t1.id, t2.id, failing.id, skipped.id, hook.id]) {
    assert.is((await api('PATCH', `${fns()}${id}/`, t.personalKey, { deleted: true })).status, 200);
  }
});

s('PostHog\'s bot filter, made from its template id: a crawler\'s and a script\'s pageviews are never stored, a browser\'s are', async () => {
  const filter = await create({ template_id: 'template-bot-detection', inputs: { customIpPrefixes: { value: '198.51.100.0/24' } } });
  const made = (await api('GET', `${fns()}${filter.id}/`, t.personalKey)).body;
  assert.is(made.type, 'transformation');
  const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.86 Safari/537.36';
  await capture([
    { event: '$pageview', distinct_id: 'bot-google', properties: { $lib: 'web', $raw_user_agent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' } },
    { event: '$pageview', distinct_id: 'bot-curl', properties: { $raw_user_agent: 'curl/8.5.0' } },
    { event: '$pageview', distinct_id: 'bot-range', properties: { $lib: 'web', $raw_user_agent: chrome, $ip: '66.249.66.1' } },
    { event: '$pageview', distinct_id: 'bot-own', properties: { $lib: 'posthog-node', $raw_user_agent: 'axios/1.7', $ip: '198.51.100.9' } },
    { event: '$pageview', distinct_id: 'human', properties: { $lib: 'web', $raw_user_agent: chrome, $ip: '81.2.69.142' } },
    { event: 'signed up', distinct_id: 'server', properties: { $lib: 'posthog-python', $raw_user_agent: 'python-httpx/0.27' } },
  ]);
  await t.applied();
  const stored = async (distinctId: string) => (await api('GET', `/api/projects/${t.projectId}/events/?distinct_id=${distinctId}`, t.personalKey)).body.results;
  for (const gone of ['bot-google', 'bot-curl', 'bot-range', 'bot-own']) assert.equal(await stored(gone), [], gone);
  const [human] = await stored('human');
  assert.equal(human.properties.$transformations_succeeded, [`Filter Bot Events (${filter.id})`]);
  assert.is((await stored('server')).length, 1);
  await eventually(async () => (await totals(filter.id)).dropped === 4);
  assert.equal(await totals(filter.id), { succeeded: 6, dropped: 4 });
  assert.is((await api('PATCH', `${fns()}${filter.id}/`, t.personalKey, { deleted: true })).status, 200);
});

s.run();
