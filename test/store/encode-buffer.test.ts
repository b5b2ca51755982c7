// The value encoder's buffer after a large value (src/store/encode-buffer.ts): msgpackr
// keeps the buffer it grew for the largest value a thread encoded (six times a string's
// length); given back, the thread holds a small one again and values still round-trip.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { releaseEncodeBuffer, openStore } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('encode buffer');
const MB = 1024 * 1024;

// The bytes of the buffer the thread's encoder writes into now (an encoding without the
// reuse flag is a view of that buffer).
const encoderBytes = (root: object) => (root as { encoder: { encode(v: unknown): Uint8Array } }).encoder.encode(1).buffer.byteLength;

s('a store that wrote a value of 20 MiB holds a small encode buffer once it is given back, and writes and reads as before', async () => {
  const dir = tempDir('hedgerow-encode-buffer-');
  const store = openStore(join(dir, 'data'), tables);
  try {
    const large = { blob: 'x'.repeat(20 * MB) };
    await store.root.put('large', large);
    assert.ok(encoderBytes(store.root) >= 40 * MB, `the encoder grew for the large value (${encoderBytes(store.root)} bytes)`);
    releaseEncodeBuffer(store.root);
    assert.ok(encoderBytes(store.root) <= 64 * 1024, `given back (${encoderBytes(store.root)} bytes)`);
    const after = { text: 'y'.repeat(100_000), n: 7 };
    await store.root.put('after', after);
    await store.root.transaction(() => { store.root.put('in a transaction', { list: [1, 'two', null] }); });
    assert.equal(store.root.get('after'), after);
    assert.equal(store.root.get('in a transaction'), { list: [1, 'two', null] });
    assert.equal((store.root.get('large') as typeof large).blob.length, large.blob.length);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

s.run();
