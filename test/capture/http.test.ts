import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { startTestServer, postJson, request, bearer, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { rawExchange } from '../helpers/raw-http.js';

const s = suite('capture over HTTP');
let t: TestServer;
s.before(async () => { t = await startTestServer({ consumers: EVENTS_ONLY }); });
s.after(async () => { await t.close(); });

let counter = 0;
const uid = () => `http-${process.pid}-${++counter}`;

async function readEvents(query: string) {
  const r = await request(`${t.url}/api/environments/${t.projectId}/events/?${query}`, { headers: bearer(t.personalKey) });
  assert.is(r.status, 200);
  return r.body.results as Array<{ event: string; distinct_id: string; uuid: string; properties: Record<string, unknown>; timestamp: string }>;
}

const stored = (distinctId: string, n = 1) =>
  eventually(async () => { const rows = await readEvents(`distinct_id=${distinctId}`); return rows.length >= n ? rows : null; });

s('POST /i/v0/e/ with one event answers {"status": 1} and the event is stored', async () => {
  const d = uid();
  const r = await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'signed up', distinct_id: d, properties: { plan: 'pro' } });
  assert.is(r.status, 200);
  assert.equal(r.body, { status: 1 });
  const [ev] = await stored(d);
  assert.is(ev.event, 'signed up');
  assert.is(ev.properties.plan, 'pro');
  assert.is(ev.properties.$ip, '127.0.0.1');
});

s('every SDK alias path works with and without a trailing slash', async () => {
  const d = uid();
  const paths = ['/i/v0/e', '/e', '/e/', '/capture', '/capture/', '/track/', '/engage/', '/batch', '/batch/'];
  for (const p of paths) {
    const r = await postJson(`${t.url}${p}`, { api_key: t.projectKey, batch: [{ event: `via ${p}`, distinct_id: d }] });
    assert.is(r.status, 200, p);
  }
  const rows = await stored(d, paths.length);
  assert.is(rows.length, paths.length);
});

s('GET with ?data= base64 is captured', async () => {
  const d = uid();
  const data = Buffer.from(JSON.stringify({ token: t.projectKey, event: 'from get', distinct_id: d })).toString('base64');
  const r = await request(`${t.url}/e/?data=${encodeURIComponent(data)}`);
  assert.is(r.status, 200);
  await stored(d);
});

s('gzip (magic bytes, text/plain), gzip-js hint, Content-Encoding gzip, lz64 and form base64 are all accepted', async () => {
  const d = uid();
  const body = (name: string) => JSON.stringify({ api_key: t.projectKey, batch: [{ event: name, distinct_id: d }] });
  const sends = [
    fetch(`${t.url}/batch/`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: gzipSync(body('gzip-magic')) }),
    fetch(`${t.url}/e/?compression=gzip-js`, { method: 'POST', body: gzipSync(body('gzip-js')) }),
    fetch(`${t.url}/batch/`, { method: 'POST', headers: { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' }, body: gzipSync(body('content-encoding')) }),
    fetch(`${t.url}/e/?compression=lz64`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ data: LZString.compressToBase64(body('lz64')) }).toString() }),
    fetch(`${t.url}/e/?compression=base64`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `data=${encodeURIComponent(Buffer.from(body('form-base64')).toString('base64'))}` }),
  ];
  for (const res of await Promise.all(sends)) assert.is(res.status, 200);
  const names = (await stored(d, 5)).map((e) => e.event).sort();
  assert.equal(names, ['content-encoding', 'form-base64', 'gzip-js', 'gzip-magic', 'lz64']);
});

s('?beacon=1 answers 204 with no body', async () => {
  const res = await fetch(`${t.url}/e/?beacon=1`, { method: 'POST', body: JSON.stringify({ api_key: t.projectKey, event: 'b', distinct_id: uid() }) });
  assert.is(res.status, 204);
  assert.is(await res.text(), '');
});

s('events with no name or distinct_id are dropped with 200, the rest of the batch ingested, drops counted', async () => {
  const d = uid();
  const r = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [
    { event: 'kept', distinct_id: d }, { distinct_id: d }, { event: 'no id' }, { event: 'empty id', distinct_id: '' },
  ] });
  assert.is(r.status, 200);
  const rows = await stored(d);
  assert.equal(rows.map((e) => e.event), ['kept']);
  const metrics = await (await fetch(`${t.url}/metrics`)).text();
  assert.match(metrics, /hedgerow_events_dropped_total\{reason="missing_event_name"\} [1-9]/);
  assert.match(metrics, /hedgerow_events_dropped_total\{reason="missing_distinct_id"\} [2-9]/);
});

s('undecodable body, invalid JSON and no events are 400 with PostHog error bodies', async () => {
  for (const body of ['{"api_key": "x", "event":', '', 'AAAA%%%']) {
    const r = await request(`${t.url}/i/v0/e/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    assert.is(r.status, 400, body);
    assert.is(r.body.type, 'validation_error');
    assert.ok(typeof r.body.detail === 'string' && 'attr' in r.body && typeof r.body.code === 'string');
  }
  const empty = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [] });
  assert.is(empty.status, 400);
});

s('missing, unknown or personal keys are 401', async () => {
  const missing = await postJson(`${t.url}/i/v0/e/`, { event: 'x', distinct_id: 'd' });
  assert.is(missing.status, 401);
  assert.is(missing.body.type, 'authentication_error');
  assert.is((await postJson(`${t.url}/i/v0/e/`, { api_key: 'phc_nope', event: 'x', distinct_id: 'd' })).status, 401);
  assert.is((await postJson(`${t.url}/i/v0/e/`, { api_key: t.personalKey, event: 'x', distinct_id: 'd' })).status, 401);
});

s('a /batch/ body of 20 MB or more is 413 before the body is read', async () => {
  const port = Number(new URL(t.url).port);
  const r = await rawExchange(port, `POST /batch/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n`);
  assert.is(r.status, 413);
  assert.match(r.text, /"type":"invalid_request"/);
});

s('a single-event body over 2 MB is 413, also when streamed chunked', async () => {
  const big = await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'x', distinct_id: 'd', properties: { blob: 'x'.repeat(2 * 1024 * 1024 + 10) } });
  assert.is(big.status, 413);
  const port = Number(new URL(t.url).port);
  const chunk = 'a'.repeat(64 * 1024);
  const r = await rawExchange(port, 'POST /e/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n', (write) => {
    for (let i = 0; i < 40; i++) write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    write('0\r\n\r\n'); // a refused chunked body is answered at its end (test/http/refused-body.test.ts)
  });
  assert.is(r.status, 413);
});

s('a gzip bomb is 413', async () => {
  const bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20));
  const res = await fetch(`${t.url}/batch/`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: bomb });
  assert.is(res.status, 413);
});

s('OPTIONS answers CORS preflight; responses echo the Origin with credentials', async () => {
  const pre = await fetch(`${t.url}/e/`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Headers': 'content-type' } });
  assert.is(pre.status, 200);
  assert.is(pre.headers.get('access-control-allow-origin'), 'https://app.example');
  assert.is(pre.headers.get('access-control-allow-credentials'), 'true');
  assert.is(pre.headers.get('access-control-allow-headers'), 'content-type');
  const r = await fetch(`${t.url}/e/`, { method: 'POST', headers: { Origin: 'https://app.example' }, body: JSON.stringify({ api_key: t.projectKey, event: 'c', distinct_id: uid() }) });
  assert.is(r.headers.get('access-control-allow-origin'), 'https://app.example');
});

s('historical_migration batches are accepted and sent_at corrects the client clock', async () => {
  const d = uid();
  const sentAt = new Date(Date.now() + 3600_000);
  const ts = new Date(sentAt.getTime() - 60_000);
  const sending = Date.now();
  const r = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, historical_migration: true, sent_at: sentAt.toISOString(),
    batch: [{ event: 'old', distinct_id: d, timestamp: ts.toISOString() }] });
  const answered = Date.now();
  assert.is(r.status, 200);
  const [ev] = await stored(d);
  const skewFixed = Date.parse(ev.timestamp);
  // A minute before the server received it: the client's clock an hour ahead is corrected.
  assert.ok(skewFixed >= sending - 60_000 && skewFixed <= answered - 60_000, `timestamp ${ev.timestamp} was not corrected`);
});

s('unknown paths are 404 and wrong methods 405, in PostHog error shape', async () => {
  const r = await request(`${t.url}/nope/`);
  assert.is(r.status, 404);
  assert.equal(r.body, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
  const m = await request(`${t.url}/i/v0/e/`, { method: 'DELETE' });
  assert.is(m.status, 405);
});

s('liveness, readiness and metrics answer', async () => {
  assert.is((await request(`${t.url}/_liveness`)).status, 200);
  await eventually(async () => (await request(`${t.url}/_readiness`)).status === 200);
  const metrics = await (await fetch(`${t.url}/metrics`)).text();
  assert.match(metrics, /hedgerow_http_requests_total\{route="\/i\/v0\/e",method="POST",status="200"\}/);
  assert.match(metrics, /hedgerow_capture_ack_seconds_bucket/);
  assert.not.match(metrics, new RegExp(t.projectKey));
  // Once the consumer has applied what this suite captured, no log record is behind.
  await eventually(async () => /^hedgerow_log_backlog_records 0$/m.test(await (await fetch(`${t.url}/metrics`)).text()));
});

s.run();
