// Test runs (POST …/hog_functions/<id|new>/invocations/) as PostHog answers them, and the
// address policy: a function pointed at a loopback address the operator's allowance does not
// name is refused, in a test run and on captured events, and the refusal is logged.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { eventually, postJson, startTestServer, NO_INSIGHTS, type TestServer } from '../helpers/server.js';
import { startSink, type Sink } from '../helpers/http-sink.js';

const EVENT = { uuid: '0190b4b4-0000-7000-8000-000000000001', event: 'signed up', distinct_id: 'ann', properties: { plan: 'pro' }, timestamp: '2026-01-02T03:04:05.000Z' };

// One server for both suites (a server start is most of this file's CPU): its allowance
// names 127.0.0.2, where the test runs' sink listens; the refused suite's sink listens on
// 127.0.0.1, which the allowance leaves out. Events and destinations consumers run for the
// refused suite's captured event; the test runs go through the API's own pool.
const ALLOWED = '127.0.0.2';
const ctx = {} as { t: TestServer; api: ApiCall; sink: Sink; outside: Sink; invoke(body: unknown, id?: string): ReturnType<ApiCall> };
let started: Promise<void> | null = null;
const start = () => (started ??= (async () => {
  ctx.sink = await startSink(ALLOWED);
  ctx.outside = await startSink();
  ctx.t = await startTestServer({ env: { HEDGEROW_HOG_FETCH_ALLOW: ALLOWED }, consumers: NO_INSIGHTS });
  ctx.api = apiClient(ctx.t);
  ctx.invoke = (body, id = 'new') => ctx.api('POST', `/api/environments/${ctx.t.projectId}/hog_functions/${id}/invocations/`, ctx.t.personalKey, body);
})());

const runs = suite('hog function test runs');
runs.before(start);
runs.before.each(() => ctx.sink.reset());

runs('a webhook with fetch mocked: the mocked call logged, success', async () => {
  const res = await ctx.invoke({
    configuration: { template_id: 'template-webhook', inputs: { url: { value: 'https://example.com/{event.event}' }, body: { value: { plan: '{event.properties.plan}' } } } },
    globals: { event: EVENT },
  });
  assert.is(res.status, 200);
  assert.is(res.body.status, 'success');
  assert.equal(res.body.errors, []);
  const messages = res.body.logs.map((l: { message: string }) => l.message);
  assert.is(messages[0], "Async function 'fetch' was mocked with arguments:");
  assert.is(messages[1], `fetch('https://example.com/signed up', ${JSON.stringify({ method: null, headers: null, body: { plan: 'pro' } }, null, 2)})`);
  assert.match(messages[2], /^Function completed in [\d.]+ms\. Sync: [\d.]+ms\. Mem: [\d.]+kb\. Ops: \d+\. Event: 'http:\/\/localhost:0\/project\/\d+\/events\//);
  assert.equal(res.body.logs.map((l: { level: string }) => l.level), ['info', 'info', 'debug']);
  assert.ok(res.body.logs.every((l: { timestamp: string }) => Date.parse(l.timestamp) > 0));
});

runs('no person: a person given as null (or a ClickHouse event without person_id) reads as null; a missing person key fails the input', async () => {
  // The HTTP Webhook template's own inputs (body {event, person}), as a function made from it has them.
  const configuration = { template_id: 'template-webhook', inputs: { url: { value: 'https://example.com/hook' }, body: { value: { event: '{event.event}', person: '{person}', id: '{person.id}' } } } };
  const body = (res: { body: { logs: { message: string }[] } }) => JSON.parse(res.body.logs[1].message.replace(/^fetch\('[^']*', /, '').replace(/\)$/, '')).body;
  const nulled = await ctx.invoke({ configuration, globals: { event: EVENT, person: null } });
  assert.is(nulled.body.status, 'success', JSON.stringify(nulled.body));
  assert.equal(body(nulled), { event: 'signed up', person: null, id: null });
  const row = { uuid: EVENT.uuid, event: 'signed up', distinct_id: 'ann', properties: '{"plan":"pro"}', timestamp: EVENT.timestamp, person_id: null };
  const fromRow = await ctx.invoke({ configuration, clickhouse_event: row });
  assert.is(fromRow.body.status, 'success', JSON.stringify(fromRow.body));
  assert.equal(body(fromRow), { event: 'signed up', person: null, id: null });
  // PostHog passes the globals it is given through: with no `person` at all, `{person}` is a missing global.
  const missing = await ctx.invoke({ configuration, globals: { event: EVENT } });
  assert.is(missing.body.status, 'error');
  assert.equal(missing.body.errors, [`Error building inputs for event ${EVENT.uuid}: Could not execute bytecode for input field: body`]);
  // With a person, its id is read.
  const withPerson = await ctx.invoke({ configuration, globals: { event: EVENT, person: { id: 'p-1', properties: {} } } });
  assert.equal(body(withPerson).id, 'p-1');
});

runs('a webhook with debug on prints its request before the fetch and the answer after it', async () => {
  const res = await ctx.invoke({
    configuration: {
      template_id: 'template-webhook',
      inputs: { url: { value: `${ctx.sink.url}/debug` }, body: { value: { plan: '{event.properties.plan}' } }, debug: { value: true } },
    },
    globals: { event: EVENT }, mock_async_functions: false,
  });
  assert.is(res.body.status, 'success');
  assert.is(ctx.sink.requests.length, 1);
  assert.equal(ctx.sink.requests[0].json(), { plan: 'pro' });
  const messages: string[] = res.body.logs.map((l: { message: string }) => l.message);
  assert.is(messages[0], `Request ${ctx.sink.url}/debug {'method': null, 'headers': null, 'body': {'plan': 'pro'}}`);
  assert.is(messages[1], "Response 200 {'ok': true}");
  assert.match(messages[2], /^Function completed in /);
  assert.is(messages.length, 3);
});

runs('a real fetch reaches the sink (allowed here) and the program sees its answer', async () => {
  const res = await ctx.invoke({
    configuration: { hog: `let r := fetch('${ctx.sink.url}/real', {'body': {'e': event.event}}); return r` },
    globals: { event: EVENT }, mock_async_functions: false,
  });
  assert.is(res.body.status, 'success');
  assert.equal(res.body.result, { status: 200, body: { ok: true } });
  assert.is(ctx.sink.requests.length, 1);
  assert.equal(ctx.sink.requests[0].json(), { e: 'signed up' });
});

runs('filtered: skipped with PostHog\'s log line; mappings run one invocation each', async () => {
  const skipped = await ctx.invoke({ configuration: { hog: 'return 1', filters: { events: [{ id: 'other', type: 'events' }] } }, globals: { event: EVENT } });
  assert.is(skipped.body.status, 'skipped');
  assert.equal(skipped.body.logs.map((l: { message: string }) => l.message), ['Mapping trigger not matching filters was ignored.']);
  const mapped = await ctx.invoke({
    configuration: {
      hog: "fetch(inputs.url); return inputs.url",
      inputs_schema: [{ key: 'url', type: 'string' }], inputs: { url: { value: 'https://base' } },
      mappings: [
        { inputs_schema: [{ key: 'url', type: 'string' }], inputs: { url: { value: 'https://one/{event.event}' } }, filters: {} },
        { inputs_schema: [], inputs: {}, filters: { events: [{ id: 'signed up', type: 'events' }] } },
        { inputs_schema: [], inputs: {}, filters: { events: [{ id: 'nope', type: 'events' }] } },
      ],
    },
    globals: { event: EVENT },
  });
  assert.is(mapped.body.status, 'success');
  const calls = mapped.body.logs.filter((l: { message: string }) => l.message.startsWith('fetch(')).map((l: { message: string }) => l.message.split(',')[0]);
  assert.equal(calls, ["fetch('https://one/signed up'", "fetch('https://base'"]);
});

runs('errors: a thrown error, too many fetches, bad input templates', async () => {
  const thrown = await ctx.invoke({ configuration: { hog: "throw Error('boom')" }, globals: { event: EVENT } });
  assert.is(thrown.body.status, 'error');
  assert.equal(thrown.body.errors, ['boom']);
  assert.ok(thrown.body.logs.some((l: { level: string; message: string }) => l.level === 'error' && l.message === `Error executing function on event ${EVENT.uuid}: Error('boom')`));
  const many = await ctx.invoke({ configuration: { hog: "fetch('a'); fetch('b'); fetch('c'); fetch('d'); fetch('e'); fetch('f')" }, globals: { event: EVENT } });
  assert.equal(many.body.errors, ['Exceeded maximum number of async steps: 5']);
  const badInput = await ctx.invoke({
    configuration: { hog: 'return inputs', inputs_schema: [{ key: 'x', type: 'string' }], inputs: { x: { value: '{event.properties.plan.nope()}' } } },
    globals: { event: EVENT },
  });
  assert.is(badInput.body.status, 'error');
});

runs('a transformation returns the changed event', async () => {
  const res = await ctx.invoke({ configuration: { type: 'transformation', hog: "let e := event; e.properties.seen := true; return e" }, globals: { event: EVENT } });
  assert.is(res.body.status, 'success');
  assert.equal(res.body.result.properties, { plan: 'pro', seen: true });
});

runs('a transformation test run is the event store\'s: its inputs, and the bot filter\'s functions; a failure is an error', async () => {
  const bot = { ...EVENT, properties: { $raw_user_agent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' } };
  const human = { ...EVENT, properties: { $raw_user_agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0', $ip: '81.2.69.142' } };
  const dropped = await ctx.invoke({ configuration: { type: 'transformation', template_id: 'template-bot-detection' }, globals: { event: bot } });
  assert.equal([dropped.body.status, dropped.body.result], ['success', null]);
  const kept = await ctx.invoke({ configuration: { type: 'transformation', template_id: 'template-bot-detection' }, globals: { event: human } });
  assert.is(kept.body.status, 'success');
  assert.equal(kept.body.result.properties, human.properties);
  const withInput = await ctx.invoke({
    configuration: { type: 'transformation', hog: 'let e := event; e.properties.plan := inputs.plan; return e', inputs_schema: [{ key: 'plan', type: 'string' }], inputs: { plan: { value: 'p-{event.properties.plan}' } } },
    globals: { event: EVENT },
  });
  assert.is(withInput.body.result.properties.plan, 'p-pro');
  const failed = await ctx.invoke({ configuration: { type: 'transformation', hog: "throw Error('no')" }, globals: { event: EVENT } });
  assert.equal([failed.body.status, failed.body.result], ['error', null]);
  assert.match(failed.body.errors[0], /Error\('no'\)/);
});

runs('bad requests: no event, an invalid configuration, an invalid invocation id, an unknown function', async () => {
  assert.equal((await ctx.invoke({ configuration: { hog: 'return 1' } })).body, { status: 'error', errors: ['Missing event'] });
  const bad = await ctx.invoke({ configuration: { hog: 'let x :=' }, globals: { event: EVENT } });
  assert.is(bad.status, 400);
  assert.equal(bad.body, { configuration: { hog: ['Hog code has errors.'] } });
  const badInput = await ctx.invoke({ configuration: { hog: 'return 1', inputs_schema: [{ key: 'u', type: 'string', required: true }] }, globals: { event: EVENT } });
  assert.equal(badInput.body, { configuration: { inputs: { u: ['This field is required.'] } } });
  assert.equal((await ctx.invoke({ configuration: { hog: 'return 1' }, globals: { event: EVENT }, invocation_id: 'x' })).body, { status: 'error', errors: ['Invalid invocation ID'] });
  assert.is((await ctx.invoke({ configuration: {} })).body.configuration.hog[0], 'Required.');
  assert.is((await ctx.invoke({ configuration: { hog: 'return 1' }, globals: { event: EVENT } }, '00000000-0000-4000-8000-000000000000')).status, 404);
  assert.equal((await ctx.invoke({})).body, { configuration: ['This field is required.'] });
});

runs('a ClickHouse event row stands for the globals', async () => {
  const res = await ctx.invoke({
    configuration: { hog: 'return [event.event, event.properties.plan, person.properties.email]' },
    clickhouse_event: { uuid: EVENT.uuid, event: 'row', distinct_id: 'd', properties: '{"plan":"team"}', timestamp: EVENT.timestamp, person_id: 'p', person_properties: '{"email":"a@b.c"}' },
  });
  assert.equal(res.body.result, ['row', 'team', 'a@b.c']);
});

const refused = suite('hog function fetch to an address the allowance does not name');
refused.before(start);
refused.after(async () => {
  await ctx.t?.close();
  await ctx.sink?.close();
  await ctx.outside?.close();
});

refused('127.0.0.1 is refused in a test run and on events, and the refusal is logged', async () => {
  const run = await ctx.invoke({
    configuration: { template_id: 'template-webhook', inputs: { url: { value: `${ctx.outside.url}/x` } } }, globals: { event: EVENT }, mock_async_functions: false,
  });
  assert.is(run.body.status, 'error');
  assert.match(run.body.errors[0], /^Webhook failed with status 500: SecureRequestError: Refused to connect to 127\.0\.0\.1: 127\.0\.0\.1 is not a public address$/);

  const fns = `/api/environments/${ctx.t.projectId}/hog_functions/`;
  const fn = await ctx.api('POST', fns, ctx.t.personalKey, {
    template_id: 'template-webhook', enabled: true, inputs: { url: { value: `${ctx.outside.url}/x` } },
  });
  await postJson(`${ctx.t.url}/i/v0/e/`, { api_key: ctx.t.projectKey, event: 'e', distinct_id: 'd' });
  const totals = async () => (await ctx.api('GET', `${fns}${fn.body.id}/metrics/totals/?breakdown_by=name`, ctx.t.personalKey)).body.totals;
  await eventually(async () => (await totals()).failed === 1, 10_000);
  assert.equal(await totals(), { triggered: 1, fetch: 1, failed: 1 });
  const logs = (await ctx.api('GET', `${fns}${fn.body.id}/logs/`, ctx.t.personalKey)).body.results.map((l: { message: string }) => l.message);
  assert.ok(logs.includes('HTTP fetch failed on attempt 1 with status code (none). Error: SecureRequestError: Refused to connect to 127.0.0.1: ' +
    '127.0.0.1 is not a public address.'), logs.join('\n'));
  assert.is(ctx.outside.requests.length, 0);
});

runs.run();
refused.run();
