// A hog function's fetch: which addresses it may reach (public only unless the operator
// allows more, judged after DNS and on the connected socket), what it does with
// redirects, slow and large responses, and PostHog's request, retry and backoff rules.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAddressPolicy, PUBLIC_ONLY, refusal } from '../../src/net/address-policy.js';
import { httpFetch, type FetchSettings } from '../../src/destinations/fetch/http-fetch.js';
import { backoffMs, failureLog, fetchRequest, programResponse, retried } from '../../src/destinations/fetch/fetch-rules.js';

const policy = suite('destinations fetch: address policy');

policy('refuses every special-purpose range and allows public addresses', () => {
  for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255', '192.0.2.1', '198.18.0.1', '203.0.113.9',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1', '::ffff:127.0.0.1', '::ffff:7f00:1',
    '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:c0a8:101::1']) {
    assert.ok(refusal(a, PUBLIC_ONLY) !== null, `${a} must be refused`);
  }
  for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:808:808::1']) {
    assert.is(refusal(a, PUBLIC_ONLY), null, `${a} must be allowed`);
  }
});

policy('the operator allows CIDRs, addresses and host names', () => {
  const p = parseAddressPolicy('127.0.0.1, 10.0.0.0/8 fd00::/8,sink.internal');
  assert.is(refusal('127.0.0.1', p), null);
  assert.ok(refusal('127.0.0.2', p) !== null);
  assert.is(refusal('10.200.1.1', p), null);
  assert.is(refusal('::ffff:10.0.0.5', p), null);
  assert.is(refusal('fd00::5', p), null);
  assert.ok(refusal('192.168.0.1', p) !== null);
  assert.is(refusal('192.168.0.1', p, 'SINK.internal'), null);
});

policy('a malformed allowance is refused at start-up', () => {
  assert.throws(() => parseAddressPolicy('10.0.0.0/33'), /HEDGEROW_HOG_FETCH_ALLOW/);
  assert.throws(() => parseAddressPolicy('10.0.0.0/8/1'), /HEDGEROW_HOG_FETCH_ALLOW/);
  assert.throws(() => parseAddressPolicy('http://x'), /HEDGEROW_HOG_FETCH_ALLOW/);
});

const http = suite('destinations fetch: requests');
let server: Server;
let port = 0;
let seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
let respond: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('{"ok":true}');

http.before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => { body += d.toString(); });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      respond(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
http.after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
http.before.each(() => {
  seen = [];
  respond = (_req, res) => res.end('{"ok":true}');
});

const allowLocal: FetchSettings = { policy: parseAddressPolicy('127.0.0.1'), timeoutMs: 10_000, maxResponseBytes: 1024 };

http('127.0.0.1 is refused without the allowance and nothing is sent', async () => {
  const out = await httpFetch(fetchRequest(`http://127.0.0.1:${port}/x`, {}), { ...allowLocal, policy: PUBLIC_ONLY });
  assert.equal(out.ok, false);
  assert.match(!out.ok ? out.message : '', /^SecureRequestError: Refused to connect to 127\.0\.0\.1/);
  assert.is(!out.ok && out.retryable, false);
  assert.is(seen.length, 0);
});

http('a name that resolves to loopback is refused after resolution; allowed by name it goes through', async () => {
  const refused = await httpFetch(fetchRequest(`http://localhost:${port}/x`, {}), { ...allowLocal, policy: PUBLIC_ONLY });
  assert.match(!refused.ok ? refused.message : '', /SecureRequestError: Refused to connect to localhost/);
  assert.is(seen.length, 0);
  const allowed = await httpFetch(fetchRequest(`http://localhost:${port}/x`, {}), { ...allowLocal, policy: parseAddressPolicy('localhost') });
  assert.equal(allowed, { ok: true, status: 200, body: { ok: true } });
});

http('IPv6 loopback and non-http schemes are refused', async () => {
  const v6 = await httpFetch(fetchRequest(`http://[::1]:${port}/`, {}), { ...allowLocal, policy: PUBLIC_ONLY });
  assert.match(!v6.ok ? v6.message : '', /Refused to connect to ::1/);
  const file = await httpFetch(fetchRequest('file:///etc/passwd', {}), allowLocal);
  assert.equal(file, { ok: false, retryable: false, message: 'Invalid URL: only http and https can be fetched, not file:' });
  const bad = await httpFetch(fetchRequest('not a url', {}), allowLocal);
  assert.equal(bad, { ok: false, retryable: false, message: 'Invalid URL: not a url' });
});

http('the request is PostHog\'s: POST with a JSON body and content type by default', async () => {
  const out = await httpFetch(fetchRequest(`http://127.0.0.1:${port}/hook?a=1`, { body: { event: 'e', n: 1 } }), allowLocal);
  assert.equal(out, { ok: true, status: 200, body: { ok: true } });
  assert.is(seen[0].method, 'POST');
  assert.is(seen[0].url, '/hook?a=1');
  assert.is(seen[0].headers['content-type'], 'application/json');
  assert.is(seen[0].body, '{"event":"e","n":1}');
});

http('given headers replace the default; non-string values are dropped; GET sends no body', async () => {
  await httpFetch(fetchRequest(`http://127.0.0.1:${port}/`, { method: 'get', headers: { 'X-A': 'b', 'X-N': 5 }, body: 'ignored' }), allowLocal);
  assert.is(seen[0].method, 'GET');
  assert.is(seen[0].headers['x-a'], 'b');
  assert.is(seen[0].headers['x-n'], undefined);
  assert.is(seen[0].headers['content-type'], undefined);
  assert.is(seen[0].body, '');
});

http('redirects are not followed; a text body stays text', async () => {
  respond = (_req, res) => { res.writeHead(302, { Location: 'http://127.0.0.1:1/' }); res.end('moved'); };
  const out = await httpFetch(fetchRequest(`http://127.0.0.1:${port}/`, {}), allowLocal);
  assert.equal(out, { ok: true, status: 302, body: 'moved' });
  assert.is(seen.length, 1);
});

http('a response over the cap and a response over the time limit fail', async () => {
  respond = (_req, res) => res.end('x'.repeat(5000));
  const big = await httpFetch(fetchRequest(`http://127.0.0.1:${port}/`, {}), allowLocal);
  assert.equal(big, { ok: false, retryable: false, message: 'ResponseTooLarge: the response is larger than 1024 bytes' });
  // The late answer's timer goes with the request (aborted at 200 ms): left pending, it kept
  // the test's process from being used for the next file.
  respond = (_req, res) => { const late = setTimeout(() => res.end('late'), 1500); res.once('close', () => clearTimeout(late)); };
  const slow = await httpFetch(fetchRequest(`http://127.0.0.1:${port}/`, {}), { ...allowLocal, timeoutMs: 200 });
  assert.equal(slow, { ok: false, retryable: true, message: 'TimeoutError: the request took longer than 0.2s' });
});

http('an answer that came while the thread was busy past the time limit is taken, not retried as a timeout', async () => {
  // The endpoint answers at once, then this thread is busy for longer than the limit (as a
  // large batch's transaction can keep the consumer's thread): the answer waits in the
  // socket when the timer comes due. Treating it as a timeout would send the request again.
  respond = (_req, res) => {
    res.end('{"ok":true}');
    const until = performance.now() + 400;
    while (performance.now() < until) { /* busy */ }
  };
  const out = await httpFetch(fetchRequest(`http://127.0.0.1:${port}/`, {}), { ...allowLocal, timeoutMs: 200 });
  assert.equal(out, { ok: true, status: 200, body: { ok: true } });
  assert.is(seen.length, 1);
});

http('a refused connection is a retryable failure', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const out = await httpFetch(fetchRequest(`http://127.0.0.1:${deadPort}/`, {}), allowLocal);
  assert.is(out.ok, false);
  assert.is(!out.ok && out.retryable, true);
  assert.match(!out.ok ? out.message : '', /ECONNREFUSED/);
});

const rules = suite('destinations fetch: retry rules');

rules('408, 429 and 500/502/503/504 and connection failures are retried up to the third attempt', () => {
  for (const status of [408, 429, 500, 502, 503, 504]) assert.ok(retried({ ok: true, status, body: null }, 1));
  for (const status of [400, 401, 404, 501]) assert.not.ok(retried({ ok: true, status, body: null }, 1));
  assert.ok(retried({ ok: false, retryable: true, message: 'x' }, 2));
  assert.not.ok(retried({ ok: false, retryable: true, message: 'x' }, 3));
  assert.not.ok(retried({ ok: false, retryable: false, message: 'refused' }, 1));
});

rules('backoff is a second per attempt plus up to a second of jitter, at most 30 s', () => {
  assert.is(backoffMs(1, 0), 1000);
  assert.is(backoffMs(2, 0.5), 2500);
  assert.is(backoffMs(40, 0.99), 30_000);
});

rules('failure lines and the response the program sees', () => {
  assert.is(failureLog({ ok: true, status: 503, body: '' }, 1, true), 'HTTP fetch failed on attempt 1 with status code 503. Retrying.');
  assert.is(failureLog({ ok: false, retryable: true, message: 'Error: connect ECONNREFUSED' }, 3, false),
    'HTTP fetch failed on attempt 3 with status code (none). Error: Error: connect ECONNREFUSED.');
  assert.equal(programResponse({ ok: false, retryable: true, message: 'TimeoutError: t' }), { status: 500, body: 'TimeoutError: t' });
});

policy.run();
http.run();
rules.run();
