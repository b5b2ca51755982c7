import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { decodePayload } from '../../src/capture/decode.js';
import { ApiError } from '../../src/errors.js';
import { lz64Bomb } from '../helpers/hostile-bodies.js';

const doc = { api_key: 'phc_x', event: 'e', distinct_id: 'd' };
const text = JSON.stringify(doc);
const decode = (body: Buffer | string, opts: { query?: string; contentType?: string; contentEncoding?: string; max?: number } = {}) =>
  decodePayload({ body: Buffer.isBuffer(body) ? body : Buffer.from(body), query: new URLSearchParams(opts.query ?? ''),
    contentType: opts.contentType, contentEncoding: opts.contentEncoding, maxDecompressedBytes: opts.max ?? 1 << 20 });

async function rejects(p: Promise<unknown>, status: number) {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, 'ApiError expected');
    assert.is((e as ApiError).status, status);
    return;
  }
  assert.unreachable('expected a rejection');
}

const s = suite('capture decoding');

s('plain JSON', async () => { assert.equal(await decode(text), doc); });
s('gzip by magic bytes whatever the hint (posthog-js sends text/plain)', async () => {
  assert.equal(await decode(gzipSync(text), { contentType: 'text/plain' }), doc);
});
s('gzip by ?compression=gzip-js and by Content-Encoding', async () => {
  assert.equal(await decode(gzipSync(text), { query: 'compression=gzip-js' }), doc);
  assert.equal(await decode(gzipSync(text), { contentEncoding: 'gzip' }), doc);
});
s('lz64 by hint', async () => {
  assert.equal(await decode(LZString.compressToBase64(text), { query: 'compression=lz64' }), doc);
});
s('plain base64 body, and base64 with a hint', async () => {
  const b64 = Buffer.from(text).toString('base64');
  assert.equal(await decode(b64), doc);
  assert.equal(await decode(b64, { query: 'compression=base64' }), doc);
});
s('form-encoded data= with base64, spaces standing for +', async () => {
  const b64 = Buffer.from(JSON.stringify({ ...doc, properties: { s: '>>>???' } })).toString('base64');
  assert.ok(b64.includes('+') || b64.includes('/'));
  const form = `data=${b64.replace(/\+/g, ' ')}&compression=base64`;
  assert.equal(await decode(form, { contentType: 'application/x-www-form-urlencoded' }), { ...doc, properties: { s: '>>>???' } });
});
s('form-encoded lz64 with the compression field', async () => {
  const form = new URLSearchParams({ data: LZString.compressToBase64(text), compression: 'lz64' }).toString();
  assert.equal(await decode(form, { contentType: 'application/x-www-form-urlencoded' }), doc);
});
s('the data query parameter wins over the body', async () => {
  assert.equal(await decode('', { query: `data=${encodeURIComponent(Buffer.from(text).toString('base64'))}` }), doc);
});
s('undecodable input is a 400', async () => {
  await rejects(decode('{not json'), 400);
  await rejects(decode(Buffer.from([0x1f, 0x8b, 1, 2, 3])), 400);
  await rejects(decode('@@@', { query: 'compression=lz64' }), 400);
  await rejects(decode(''), 400);
});
s('a gzip bomb over the decompressed cap is a 413', async () => {
  await rejects(decode(gzipSync(Buffer.alloc(5 << 20, 32)), { max: 1 << 20 }), 413);
});
s('an lz64 bomb over the decompressed cap is a 413, stopped at the cap (lz-string would build all 450 M characters)', async () => {
  await rejects(decode(lz64Bomb(30_000), { query: 'compression=lz64', max: 1 << 20 }), 413);
});

s.run();
