// The capture worker's work (src/capture/decode-request.ts) as a function, and through a
// real pool (workers/capture.ts): bodies move to the worker and the text comes back
// moved, not copied.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { decodeRequest } from '../../src/capture/decode-request.js';
import { createWorkerPool } from '../../src/pools/index.js';
import { transferDecodeTask } from '../../src/capture/routes.js';
import { formatUuid } from '../../src/capture/uuid.js';
import type { CaptureTasks, CaptureWorkerData, DecodeTask, RefusedRequest } from '../../src/capture/tasks.js';
import { emptyObjects, lz64Bomb } from '../helpers/hostile-bodies.js';

const limits: CaptureWorkerData = { maxDecompressedBytes: 1 << 20, maxJsonNodes: 100_000 };
const task = (body: Buffer | string, rawQuery = '', contentEncoding?: string): DecodeTask =>
  ({ body: Buffer.from(body), rawQuery, contentType: 'application/json', contentEncoding, inflated: false, expectedBytes: Buffer.byteLength(body) });
const batch = JSON.stringify({ api_key: 'phc_x', batch: [
  { event: 'a', distinct_id: 'd' }, { distinct_id: 'no name' }, { event: 'b', distinct_id: 'd', uuid: '0190a0e4-1c4e-7b1a-9e5b-000000000001' },
  { event: 'c', distinct_id: 'd' },
] });

const s = suite('capture worker decoding');

s('a gzipped batch: its text, the scan, dropped indices and the uuids of events without one, drawn at the given clock', () => {
  const out = decodeRequest(task(gzipSync(batch), '', 'gzip'), limits, 1_790_000_000_000);
  if (!('scanned' in out)) return assert.unreachable(JSON.stringify(out));
  const r = out.scanned;
  assert.is(Buffer.from(r.text).toString(), batch);
  assert.is(r.token, 'phc_x');
  assert.equal([...r.droppedAt!], [1]);
  assert.equal(r.dropped, { missing_event_name: 1 });
  assert.is(r.kept, 3);
  assert.is(r.missingUuids, 2);
  assert.is(r.uuids!.length, 32);
  assert.ok(formatUuid(r.uuids!, 0).startsWith('01a0c450-6c00-7'), formatUuid(r.uuids!, 0));
  assert.is(r.nowMs, 1_790_000_000_000);
});

s('lz64 and the `_` query parameter', () => {
  const out = decodeRequest(task(LZString.compressToBase64(batch), 'compression=lz64&_=1700000000000'), limits, Date.now());
  if (!('scanned' in out)) return assert.unreachable(JSON.stringify(out));
  assert.is(out.scanned.sentAtMs, 1_700_000_000_000);
  assert.is(out.scanned.kept, 3);
});

s('refusals come back as data with PostHog\'s body: bombs and too many objects 413, bad JSON 400, a personal key 401', () => {
  const refused = (t: DecodeTask): RefusedRequest => {
    const out = decodeRequest(t, limits, Date.now());
    if ('refused' in out) return out.refused;
    throw new Error('expected a refusal');
  };
  assert.equal(refused(task(lz64Bomb(2_000), 'compression=lz64')).status, 413);
  assert.equal(refused(task(gzipSync(Buffer.alloc(2 << 20, 32)), '', 'gzip')).status, 413);
  const many = refused(task(emptyObjects(400_000)));
  assert.equal({ ...many, detail: '' }, { status: 413, type: 'invalid_request', code: 'payload_too_large', detail: '', attr: null });
  assert.match(many.detail, /more than 100000 JSON objects and arrays/);
  assert.is(refused(task('{"event": ')).status, 400);
  assert.is(refused(task('{"api_key":"phx_1","event":"e","distinct_id":"d"}')).status, 401);
});

s('an unstorable key is reported for the route to refuse in its turn', () => {
  const out = decodeRequest(task(gzipSync('{"api_key":"phc_x","event":"e","distinct_id":"d","properties":{"toJSON":1}}'), '', 'gzip'), limits, Date.now());
  if (!('scanned' in out)) return assert.unreachable(JSON.stringify(out));
  assert.equal(out.scanned.unstorable, { key: 'toJSON', event: 0 });
});

s('through the pool, a large body is moved to the worker and its text moved back', async () => {
  const pool = createWorkerPool<CaptureTasks, CaptureWorkerData>({
    worker: new URL('../../workers/capture.js', import.meta.url), threads: 1, workerData: limits, transfer: transferDecodeTask,
  });
  try {
    const text = JSON.stringify({ api_key: 'phc_x', batch: Array.from({ length: 2000 }, (_, i) => ({ event: 'e', distinct_id: `d${i}` })) });
    const body = Buffer.allocUnsafe(text.length);
    body.write(text);
    const out = await pool.run('decode', task(body));
    // The Buffer copy made by task() was the one moved: its memory now belongs to the worker.
    if (!('scanned' in out)) return assert.unreachable(JSON.stringify(out));
    assert.is(Buffer.from(out.scanned.text).toString(), text);
    assert.is(out.scanned.text.byteLength, out.scanned.text.buffer.byteLength);
    assert.is(out.scanned.kept, 2000);
    const moved = task(body);
    const pending = pool.run('decode', moved);
    await new Promise((r) => setImmediate(r));
    assert.is(moved.body.byteLength, 0, 'the body is detached once sent');
    assert.ok('scanned' in (await pending));
  } finally {
    await pool.close();
  }
});

s.run();
