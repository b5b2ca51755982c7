import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import LZString from 'lz-string';
import { decompressLz64 } from '../../src/capture/lz64.js';
import { ApiError } from '../../src/errors.js';
import { xorshift } from '../helpers/xorshift.js';
import { lz64Bomb, lz64BombSize } from '../helpers/hostile-bodies.js';

const s = suite('lz64 decompression');

function status(run: () => unknown): number {
  try {
    run();
  } catch (e) {
    assert.ok(e instanceof ApiError, 'ApiError expected');
    return (e as ApiError).status;
  }
  return 200;
}

// Seeded text over an alphabet: small ones repeat (long dictionary entries), wide ones
// bring 16-bit literals and surrogate pairs.
function randomText(random: () => number, length: number, alphabet: string[]): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

s('gives back what lz-string compressToBase64 wrote, for seeded random texts', () => {
  const random = xorshift(1309);
  const alphabets = [['a', 'b'], [...'{}[]":,abcdef0123456789'], ['é', '€', '😀', 'x', '"', '\u0000'], Array.from({ length: 300 }, (_, i) => String.fromCharCode(0x4e00 + i))];
  for (let i = 0; i < 200; i++) {
    const text = randomText(random, 1 + Math.floor(random() * 3000), alphabets[i % alphabets.length]);
    assert.is(decompressLz64(LZString.compressToBase64(text), 1 << 24).toString('utf8'), text);
  }
});

s('gives back JSON as posthog-js sends it, and takes base64 as a form or the URL mangles it', () => {
  const body = JSON.stringify({ api_key: 'phc_x', batch: Array.from({ length: 50 }, (_, i) => ({ event: '$pageview', distinct_id: `u${i}`, properties: { $current_url: `https://example.com/${i}` } })) });
  const b64 = LZString.compressToBase64(body);
  assert.is(decompressLz64(b64, 1 << 20).toString('utf8'), body);
  // Characters outside the alphabet read as zero bits, as in lz-string.
  assert.is(decompressLz64(b64.replace(/=+$/, ''), 1 << 20).toString('utf8'), body);
});

s('agrees with lz-string on a bomb below the cap', () => {
  const bomb = lz64Bomb(500);
  const expected = LZString.decompressFromBase64(bomb);
  assert.is(expected.length, lz64BombSize(500));
  assert.is(decompressLz64(bomb, 1 << 20).toString('utf8'), expected);
});

s('stops at the cap: a 70 KB bomb of about 450 million characters is a 413 within the cap\'s memory', () => {
  const bomb = lz64Bomb(30_000);
  assert.ok(bomb.length < 75_000);
  const before = process.memoryUsage().rss;
  assert.is(status(() => decompressLz64(bomb, 4 << 20)), 413);
  // The output buffer of 4 Mi units is 8 MB; lz-string would have built hundreds of MB.
  assert.ok(process.memoryUsage().rss - before < 100 * 1024 * 1024);
});

s('the cap counts UTF-8 bytes of the result', () => {
  const text = '€'.repeat(1000); // 3,000 bytes in UTF-8
  const b64 = LZString.compressToBase64(text);
  assert.is(decompressLz64(b64, 3000).toString('utf8'), text);
  assert.is(status(() => decompressLz64(b64, 2999)), 413);
});

s('lone surrogates come out as U+FFFD, as Buffer.from(string) writes them', () => {
  const text = 'a\ud800b\udc00c';
  assert.equal(decompressLz64(LZString.compressToBase64(text), 100), Buffer.from(text, 'utf8'));
});

s('what lz-string would not decompress to text is a 400', () => {
  for (const bad of ['', '@@@', 'A', 'gA', '////']) {
    const ours = status(() => decompressLz64(bad, 1 << 20));
    const theirs = LZString.decompressFromBase64(bad);
    assert.ok(!theirs, `lz-string decompresses ${JSON.stringify(bad)} to ${JSON.stringify(theirs)}`);
    assert.is(ours, 400, bad);
  }
});

s.run();
