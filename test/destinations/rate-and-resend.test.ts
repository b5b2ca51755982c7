// Beyond PostHog (issue 30, item 5): a 429 or 503 with Retry-After (seconds or an HTTP date)
// is waited for, the function's other fetches with it; a function's rate limit paces its
// fetches; deliveries that fail after their retries are kept, listed per function and sent
// again from the API and the CLI.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiCall } from '../helpers/api.js';
import { cliRun, cliRunWith } from '../helpers/cli-server.js';
import { eventually, postJson, type TestServer } from '../helpers/server.js';
import { ok, type Sink } from '../helpers/http-sink.js';
import { startSinkServer, stopSinkServer } from '../helpers/sink-server.js';

const s = suite('destinations: Retry-After, rate limit, failed deliveries');
let t: TestServer;
let api: ApiCall;
let sink: Sink;

s.before(async () => {
  ({ t, api, sink } = await startSinkServer());
});
s.after(() => stopSinkServer({ t, api, sink }));
s.before.each(() => sink.reset());

const fns = () => `/api/environments/${t.projectId}/hog_functions/`;

async function webhook(event: string, path: string, extra: object = {}) {
  const made = await api('POST', fns(), t.personalKey, {
    enabled: true, template_id: 'template-webhook', name: event,
    inputs: { url: { value: `${sink.url}${path}` }, body: { value: { n: '{event.properties.n}' } } },
    filters: { events: [{ id: event, type: 'events' }] }, ...extra,
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  return made.body.id as string;
}

async function capture(event: string, ns: number[]) {
  const res = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: ns.map((n) => ({ event, distinct_id: `d${n}`, properties: { n } })) });
  assert.is(res.status, 200);
}

const totals = async (id: string) => (await api('GET', `${fns()}${id}/metrics/totals/?breakdown_by=name`, t.personalKey)).body.totals as Record<string, number>;

s('rate_limit_per_second is validated, stored and shown', async () => {
  const bad = await api('POST', fns(), t.personalKey, { template_id: 'template-webhook', inputs: { url: { value: 'http://127.0.0.1/' } }, rate_limit_per_second: -1 });
  assert.is(bad.status, 400);
  assert.is(bad.body.attr, 'rate_limit_per_second');
  const id = await webhook('shown', '/shown', { rate_limit_per_second: 0.5 });
  assert.is((await api('GET', `${fns()}${id}/`, t.personalKey)).body.rate_limit_per_second, 0.5);
  const cleared = await api('PATCH', `${fns()}${id}/`, t.personalKey, { rate_limit_per_second: null });
  assert.is(cleared.body.rate_limit_per_second, null);
});

s('429 with Retry-After in seconds: the retry and the function\'s next fetches wait that long', async () => {
  let refused = 0;
  sink.respond = (req, res) => {
    if (req.json().n === 1 && refused === 0) {
      refused++;
      res.statusCode = 429;
      res.setHeader('Retry-After', '2');
      return res.end('slow down');
    }
    ok(req, res);
  };
  // One fetch at a time (rate 4/s, a burst of 4 at most): what comes after the 429 waits.
  const id = await webhook('ra', '/ra', { rate_limit_per_second: 4 });
  await capture('ra', [1]);
  // Once the 429 is handled (its log line written after the function's hold is set).
  await eventually(async () => (await api('GET', `${fns()}${id}/logs/`, t.personalKey)).body.results.some((l: any) => /status code 429/.test(l.message)));
  await capture('ra', [2, 3]);
  await eventually(async () => new Set(sink.answered.map((r) => r.json().n)).size === 3, 15_000);
  const first = sink.requests[0];
  assert.is(first.json().n, 1);
  // Nothing reached the endpoint within the 2 s it asked for.
  for (const r of sink.requests.slice(1)) assert.ok(r.at - first.at >= 1900, `${r.json().n} came ${r.at - first.at} ms after the 429`);
  await eventually(async () => (await totals(id)).succeeded === 3);
  assert.is((await totals(id)).failed ?? 0, 0);
});

s('503 with Retry-After as an HTTP date is waited for too', async () => {
  let refusedAt = 0;
  sink.respond = (req, res) => {
    if (refusedAt === 0) {
      refusedAt = Date.now();
      res.statusCode = 503;
      res.setHeader('Retry-After', new Date(Date.now() + 4000).toUTCString());
      return res.end('maintenance');
    }
    ok(req, res);
  };
  await webhook('dated', '/dated');
  await capture('dated', [1]);
  await eventually(async () => sink.answered.length === 1, 15_000);
  // The date has whole seconds: at least 3 s of the 4 remain once it is read (PostHog's backoff alone is at most 2 s).
  assert.ok(sink.answered[0].at - refusedAt >= 2500, `retried after ${sink.answered[0].at - refusedAt} ms`);
});

s('a rate limit paces the function\'s fetches', async () => {
  const id = await webhook('paced', '/paced', { rate_limit_per_second: 10 });
  await capture('paced', Array.from({ length: 30 }, (_, i) => i + 1));
  await eventually(async () => sink.answered.length === 30, 15_000);
  const at = sink.requests.map((r) => r.at);
  // A burst of 10, then 10 a second: 30 take at least 2 s.
  assert.ok(Math.max(...at) - Math.min(...at) >= 1800, `30 requests in ${Math.max(...at) - Math.min(...at)} ms`);
  // Metrics are written a moment after the answers.
  await eventually(async () => (await totals(id)).succeeded === 30);
  assert.is((await totals(id)).failed ?? 0, 0);
});

s('deliveries failing after their retries are kept, listed and sent again from the API and the CLI', async () => {
  let healthy = false;
  sink.respond = (req, res) => {
    if (!healthy && req.json().n % 2 === 0) {
      res.statusCode = 500;
      return res.end('down');
    }
    ok(req, res);
  };
  const id = await webhook('kept', '/kept');
  await capture('kept', [1, 2, 3, 4, 5]);
  await eventually(async () => { const x = await totals(id); return x.succeeded === 3 && x.failed === 2; }, 20_000);
  const listed = await api('GET', `${fns()}${id}/failed_deliveries/`, t.personalKey);
  assert.is(listed.status, 200);
  assert.is(listed.body.count, 2);
  const rows = listed.body.results as any[];
  assert.equal(rows.map((r) => JSON.parse(r.request.body).n).sort(), [2, 4]);
  for (const r of rows) {
    assert.is(r.status, 500);
    assert.is(r.attempts, 3);
    assert.is(r.request.method, 'POST');
    assert.is(r.request.url, `${sink.url}/kept`);
    assert.is(r.resent, 0);
  }
  // Still failing: kept, with the attempt counted.
  const again = await api('POST', `${fns()}${id}/failed_deliveries/resend/`, t.personalKey, { ids: [rows[0].id] });
  assert.is(again.status, 200);
  assert.equal(again.body.results.map((r: any) => [r.delivered, r.status]), [[false, 500]]);
  assert.is(again.body.remaining, 2);
  const after = (await api('GET', `${fns()}${id}/failed_deliveries/`, t.personalKey)).body.results as any[];
  assert.is(after.find((r) => r.id === rows[0].id).resent, 1);

  healthy = true;
  const before = sink.answered.length;
  // The CLI lists them and sends one again; the API the rest.
  const listedCli = await cliRun(t.dataDir, 'destinations', 'failed', '--function', id, '--json');
  assert.is(listedCli.code, 0, listedCli.stderr);
  assert.equal(JSON.parse(listedCli.stdout).map((r: any) => r.id).sort(), rows.map((r) => r.id).sort());
  const cli = await cliRunWith({ HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1' }, t.dataDir, 'destinations', 'resend', '--function', id, '--id', rows[1].id, '--json');
  assert.is(cli.code, 0, cli.stderr);
  assert.equal(JSON.parse(cli.stdout).results.map((r: any) => [r.id, r.delivered]), [[rows[1].id, true]]);
  const rest = await api('POST', `${fns()}${id}/failed_deliveries/resend/`, t.personalKey, {});
  assert.equal(rest.body.results.map((r: any) => [r.id, r.delivered, r.status]), [[rows[0].id, true, 200]]);
  assert.is(rest.body.remaining, 0);
  assert.equal(sink.answered.slice(before).map((r) => r.json().n).sort(), rows.map((r) => JSON.parse(r.request.body).n).sort());
  assert.is((await api('GET', `${fns()}${id}/failed_deliveries/`, t.personalKey)).body.count, 0);
});

s.run();
