// Hostile /decide and /flags requests cost only themselves (issue 13, item 3): objects
// nested deeper than the flag worker can be handed, or holding more values than a
// request may carry, are answered 400 at the edge, and the valid requests sent beside
// them, batched into the same worker tasks, are all answered 200.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, request, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { createFlag, evaluate } from './serving.js';
import { MAX_REQUEST_LEVELS, MAX_REQUEST_VALUES } from '../../src/flags/request.js';

const s = suite('hostile /decide and /flags requests');
let t: TestServer;

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  await createFlag(t, { key: 'everyone', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
});
s.after(async () => { await t?.close(); });

// JSON text of {"a":{"a":…1…}} with `levels` objects, written as text: the client's own
// JSON.stringify would overflow its stack on the deepest ones.
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"a":1}${'}'.repeat(levels - 1)}`;

function post(path: string, text: string) {
  return request(`${t.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
}

const deepBodies = (levels: number): Record<string, string> => ({
  person_properties: `{"api_key":"${t.projectKey}","distinct_id":"h","person_properties":${nested(levels)}}`,
  groups: `{"api_key":"${t.projectKey}","distinct_id":"h","groups":${nested(levels)}}`,
  group_properties: `{"api_key":"${t.projectKey}","distinct_id":"h","groups":{"company":"acme"},"group_properties":{"company":${nested(levels)}}}`,
});

const tooDeep = (attr: string) => ({
  type: 'validation_error', code: 'invalid_input', attr,
  detail: `Objects nested more than ${MAX_REQUEST_LEVELS} levels deep are not accepted.`,
});

// lz-string takes ~14 s of CPU to compress 8 MB, so the lz64 bomb is kept compressed: the
// same 8 MB request (with a placeholder key: the size is refused before the body is read).
const LZ64_BOMB = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/lz64-bomb.txt'), 'utf8').trim();

const PATHS = ['/decide/', '/decide/?v=2', '/decide/?v=3', '/decide/?v=4', '/flags/', '/flags/?v=2', '/flags/?v=2&config=true'];

s('every valid request sent beside hostile deep ones is answered 200; each hostile one 400, on every endpoint', async () => {
  for (const path of PATHS) {
    const hostile = Object.entries(deepBodies(5_000));
    const valid = Array.from({ length: 50 }, (_, i) => evaluate(t, path, { distinct_id: `user-${i}`, person_properties: { plan: 'pro', n: i } }));
    // Interleaved, so hostile requests share event-loop turns (and worker batches) with valid ones.
    const bad = hostile.map(([, text]) => post(path, text));
    const [answers, refusals] = await Promise.all([Promise.all(valid), Promise.all(bad)]);
    assert.equal(answers.map((r) => r.status), answers.map(() => 200), path);
    for (let i = 0; i < refusals.length; i++) {
      assert.is(refusals[i].status, 400, `${path} ${hostile[i][0]}`);
      assert.equal(refusals[i].body, tooDeep(hostile[i][0]), `${path} ${hostile[i][0]}`);
    }
  }
});

s(`objects up to ${MAX_REQUEST_LEVELS} levels are evaluated; one level more is refused`, async () => {
  for (const [attr, text] of Object.entries(deepBodies(MAX_REQUEST_LEVELS))) {
    const r = await post('/flags/?v=2', text);
    assert.is(r.status, 200, attr);
    assert.is(r.body.flags.everyone.enabled, true, attr);
  }
  for (const [attr, text] of Object.entries(deepBodies(MAX_REQUEST_LEVELS + 1))) {
    const r = await post('/flags/?v=2', text);
    assert.is(r.status, 400, attr);
    assert.equal(r.body, tooDeep(attr));
  }
});

s(`a request whose objects hold more than ${MAX_REQUEST_VALUES.toLocaleString('en')} values is refused`, async () => {
  const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, i]));
  const fits = await evaluate(t, '/flags/?v=2', { distinct_id: 'w', person_properties: wide(MAX_REQUEST_VALUES) });
  assert.is(fits.status, 200);
  // Counted over the three objects together: groups and group_properties take their share.
  const over = await evaluate(t, '/flags/?v=2', {
    distinct_id: 'w', groups: { company: 'acme' }, person_properties: wide(MAX_REQUEST_VALUES - 1), group_properties: { company: { size: 1 } },
  });
  assert.is(over.status, 400);
  assert.equal(over.body, {
    type: 'validation_error', code: 'invalid_input', attr: 'group_properties',
    detail: `A request may carry at most ${MAX_REQUEST_VALUES.toLocaleString('en')} values in groups, person_properties and group_properties.`,
  });
});

s('the server still answers afterwards', async () => {
  const r = await evaluate(t, '/flags/?v=2', { distinct_id: 'after' });
  assert.is(r.status, 200);
  assert.is(r.body.flags.everyone.enabled, true);
});

s('a compressed body that inflates past the /decide body limit is refused with 413, quickly, and /decide answers on', async () => {
  // 8 MB of `{}` inside a valid request: well past the 2 MB limit once inflated.
  const text = `{"api_key":"${t.projectKey}","distinct_id":"h","person_properties":{"a":[${'{},'.repeat(2_700_000)}{}]}}`;
  const bombs: { path: string; headers: Record<string, string>; body: Buffer | string }[] = [
    { path: '/flags/?v=2', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body: gzipSync(text) },
    { path: '/decide/?v=3&compression=lz64', headers: { 'Content-Type': 'text/plain' }, body: LZ64_BOMB },
  ];
  // The fixture is what it claims to be: past the limit once inflated.
  assert.ok(LZString.decompressFromBase64(LZ64_BOMB).length > 8_000_000);
  // How quickly is measured by bench/latencies.js (decide-bombs), not asserted here.
  for (const bomb of bombs) {
    const r = await request(`${t.url}${bomb.path}`, { method: 'POST', headers: bomb.headers, body: bomb.body });
    assert.is(r.status, 413, bomb.path);
    assert.is(r.body.type, 'invalid_request', bomb.path);
  }
  const after = await evaluate(t, '/decide/?v=3', { distinct_id: 'after' });
  assert.is(after.status, 200);
  assert.is(after.body.featureFlags.everyone, true);
});

s.run();
