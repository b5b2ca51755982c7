// A hog function's fetch on the wire (src/destinations/fetch/http1.ts): against a server
// that answers raw bytes, the answers node:http read are read the same way (by length,
// chunked, until the socket closes, after an interim 100), sockets are kept alive and
// reused one request at a time, a socket the server closed is not used again, and a
// request node:http would have refused (a header with a line break) is refused before a
// byte is sent; framing headers are the client's own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { parseAddressPolicy } from '../../src/net/address-policy.js';
import { httpFetch, type FetchSettings } from '../../src/destinations/fetch/http-fetch.js';
import { fetchRequest } from '../../src/destinations/fetch/fetch-rules.js';

const s = suite('destinations fetch: HTTP/1.1 on the wire');
let server: Server;
let port = 0;
// Each request as it came (head and body), with the number of the connection it came on.
let requests: { conn: number; head: string; body: string }[] = [];
let connections = 0;
let sockets: Socket[] = [];
// What the server writes back for a request: chunks written apart, and whether it closes after.
let answer: (head: string) => { chunks: string[]; close?: boolean } = () => ({ chunks: ['HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{"ok":true}'] });

s.before(async () => {
  server = createServer((socket) => {
    const conn = ++connections;
    sockets.push(socket);
    let buffered = '';
    socket.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        requests.push({ conn, head, body: buffered.slice(end + 4, end + 4 + length) });
        buffered = buffered.slice(end + 4 + length);
        const { chunks, close } = answer(head);
        chunks.forEach((c, i) => setTimeout(() => {
          socket.write(c);
          if (close && i === chunks.length - 1) socket.end();
        }, i * 5));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
s.after(() => new Promise<void>((r) => {
  for (const socket of sockets) socket.destroy();
  server.close(() => r());
}));
s.before.each(() => {
  requests = [];
});

const settings: FetchSettings = { policy: parseAddressPolicy('127.0.0.1'), timeoutMs: 10_000, maxResponseBytes: 1024 };
const get = (path: string, options: Record<string, unknown> = {}) => httpFetch(fetchRequest(`http://127.0.0.1:${port}${path}`, options), settings);

s('bodies by length, chunked (split anywhere, with extensions and trailers), and until the socket closes', async () => {
  answer = () => ({ chunks: ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7;x=1\r\n{"a":', '1}\r', '\n0\r\nX-T: 1\r\n\r\n'] });
  assert.equal(await get('/chunked'), { ok: true, status: 200, body: { a: 1 } });
  answer = () => ({ chunks: ['HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\n\r\nhello ', 'world'], close: true });
  assert.equal(await get('/close'), { ok: true, status: 201, body: 'hello world' });
  answer = () => ({ chunks: ['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\n{}'] });
  assert.equal(await get('/interim'), { ok: true, status: 202, body: {} });
  answer = () => ({ chunks: ['HTTP/1.1 204 No Content\r\n\r\n'] });
  assert.equal(await get('/empty'), { ok: true, status: 204, body: '' });
  // Over the cap whichever way it comes.
  answer = () => ({ chunks: ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', `800\r\n${'x'.repeat(2048)}\r\n0\r\n\r\n`] });
  assert.equal(await get('/big'), { ok: false, retryable: false, message: 'ResponseTooLarge: the response is larger than 1024 bytes' });
  answer = () => ({ chunks: ['HTTP/1.1 200 OK\r\n\r\n', 'y'.repeat(2048)], close: true });
  assert.equal(await get('/big'), { ok: false, retryable: false, message: 'ResponseTooLarge: the response is larger than 1024 bytes' });
  answer = () => ({ chunks: ['nonsense\r\n\r\n'] });
  const garbled = await get('/garbled');
  assert.equal(garbled.ok, false);
  assert.is(!garbled.ok && garbled.retryable, true);
});

s('one socket serves requests one after another; one the server closed is not used again', async () => {
  answer = () => ({ chunks: ['HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{"ok":true}'] });
  const before = connections;
  for (let i = 0; i < 5; i++) assert.equal(await get(`/seq/${i}`, { body: { i } }), { ok: true, status: 200, body: { ok: true } });
  assert.is(connections, before + 1);
  assert.equal(requests.map((r) => r.body), [0, 1, 2, 3, 4].map((i) => `{"i":${i}}`));
  // Requests at once take a socket each.
  await Promise.all([1, 2, 3].map((i) => get(`/together/${i}`)));
  assert.is(new Set(requests.slice(5).map((r) => r.conn)).size, 3);
  // The server closes the connections it holds: the next request opens one of its own.
  answer = () => ({ chunks: ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}'], close: true });
  await get('/closing');
  const opened = connections;
  answer = () => ({ chunks: ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'] });
  assert.equal(await get('/after'), { ok: true, status: 200, body: {} });
  assert.ok(requests.at(-1)!.conn !== requests.at(-2)!.conn, 'not the socket the server closed');
  assert.ok(connections <= opened + 1);
});

s('the head: Host, the given headers once, the client\'s own framing; a header node:http refuses is refused before anything is sent', async () => {
  answer = () => ({ chunks: ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'] });
  await get('/h?q=1', { headers: { 'X-A': 'b', 'Content-Length': '999', 'Transfer-Encoding': 'chunked', Connection: 'close' }, body: 'abc' });
  const lines = requests[0].head.split('\r\n');
  assert.is(lines[0], 'POST /h?q=1 HTTP/1.1');
  assert.equal(lines.slice(1).sort(), ['Connection: keep-alive', 'Content-Length: 3', `Host: 127.0.0.1:${port}`, 'X-A: b']);
  assert.is(requests[0].body, 'abc');
  await get('/g', { method: 'GET' });
  assert.ok(!/content-length/i.test(requests[1].head), 'a GET without a body says no length');
  const injected = await httpFetch(fetchRequest(`http://127.0.0.1:${port}/x`, { headers: { 'X-A': 'b\r\nX-Injected: 1' } }), settings).then(() => null, (err: Error & { code?: string }) => err.code);
  assert.is(injected, 'ERR_INVALID_CHAR');
  const method = await httpFetch(fetchRequest(`http://127.0.0.1:${port}/x`, { method: 'GET /evil HTTP/1.1\r\n' }), settings).then(() => null, (err: Error & { code?: string }) => err.code);
  assert.is(method, 'ERR_INVALID_HTTP_TOKEN');
  assert.is(requests.length, 2);
});

s.run();
