// Hostile input through the real server: capture accepts it or refuses it with a 4xx,
// the consumer neither stops on it nor on the events behind it, and nobody else pays.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { ChildProcess } from 'node:child_process';
import LZString from 'lz-string';
import { request, eventually, tempDir } from '../helpers/server.js';
import { cliInit, cliServe, cliStop, type CliKeys } from '../helpers/cli-server.js';
import { watchServer } from '../helpers/server-watch.js';
import { emptyObjects, lz64Bomb } from '../helpers/hostile-bodies.js';
import { xorshift } from '../helpers/xorshift.js';

// Hostile requests in a crowd: bombs, huge and odd bodies, seeded random bodies, sent
// while well-formed clients capture and ask for flags (issue 13, items 4 and 7). The
// server runs as its own process (the real CLI), so a blocked event loop shows in the
// answer times of /_liveness probes and its memory in /proc. The deep and long-id events
// come first, on the same server (their own distinct ids; one server start, not two).
const crowd = suite('hostile input end to end and beside well-formed clients');
let dataDir: string;
let keys: CliKeys;
let served: { child: ChildProcess; url: string; warnings(): string[] };
const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  request(`${served.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
const manage = (method: string, path: string, body?: unknown) => request(`${served.url}/api/environments/${keys.project_id}${path}`, {
  method, headers: { Authorization: `Bearer ${keys.personal_api_key}`, 'Content-Type': 'application/json' },
  body: body === undefined ? undefined : JSON.stringify(body),
});

crowd.before(async () => {
  dataDir = tempDir('hedgerow-hostile-');
  keys = cliInit(dataDir);
  served = await cliServe(dataDir);
  // Ready (its consumer threads running): their start would otherwise be blamed on the
  // first hostile request. (A GeoIP database, which loads after listening and takes the
  // main thread for a second or two, the test profile does not load.)
  await eventually(async () => (await request(`${served.url}/_readiness`)).status === 200, 30_000);
  const flag = await request(`${served.url}/api/projects/@current/feature_flags/`, {
    method: 'POST', headers: { Authorization: `Bearer ${keys.personal_api_key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ key: 'crowd-flag', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } }),
  });
  assert.is(flag.status, 201);
});
crowd.after(async () => {
  await cliStop(served.child, 'SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

crowd('events nested 5,000 levels deep and 3,000-character merge ids are accepted; the events after them are processed', async () => {
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  const body = `{"api_key":"${keys.project_api_key}","batch":[`
    + `{"event":"deep","distinct_id":"dana","uuid":"0190a0e4-1c4e-7b1a-9e5b-00000000d001","properties":{"deep":${deep}}},`
    + `{"event":"$identify","distinct_id":"erin","properties":{"$anon_distinct_id":"${'a'.repeat(3000)}"}},`
    + `{"event":"after","distinct_id":"finn","properties":{"$set":{"plan":"pro"}}}]}`;
  const r = await post('/batch/', body);
  assert.is(r.status, 200);

  const finn = await eventually(async () => (await manage('GET', '/persons/?distinct_id=finn')).body.results[0]);
  assert.is(finn.properties.plan, 'pro');
  const erin = (await manage('GET', '/persons/?distinct_id=erin')).body.results[0];
  assert.equal(erin.distinct_ids, ['erin', 'a'.repeat(200)]);
  const warnings = (await manage('GET', '/ingestion_warnings/')).body.results;
  const failed = warnings.find((w: { type: string }) => w.type === 'event_processing_failed');
  assert.is(failed.count, 1);
  assert.is(failed.warnings[0].details.eventUuid, '0190a0e4-1c4e-7b1a-9e5b-00000000d001');
  assert.is(failed.warnings[0].details.outcome, 'stored_with_deep_values_cut');
  // Stored whole, 5,000 levels would fail every read of the event in the main thread.
  assert.is((await manage('GET', '/events/0190a0e4-1c4e-7b1a-9e5b-00000000d001')).status, 200);
  assert.is((await manage('GET', '/events/')).status, 200);
});

// Well-formed clients, each round: a plain single event, a plain batch, a gzipped batch,
// an lz64 event and a /decide; every fifth round a gzipped batch of 300 events that
// inflates past 64 KiB (the capture worker's path). Every acknowledged uuid is kept, the
// large batches' by distinct id; any answer but 200 is kept too, to be reported.
function bystanders(random: () => number) {
  const acked: string[] = [];
  const ackedLarge = new Map<string, string[]>();
  const unexpected: string[] = [];
  let running = true;
  let n = 0;
  const uuid = () => `0190a0e4-1c4e-7b1a-9e5b-${(++n).toString(16).padStart(12, '0')}`;
  const event = (name: string) => ({ event: name, distinct_id: `bystander-${Math.floor(random() * 20)}`, uuid: uuid(), properties: { $lib: 'crowd', n } });
  async function send(path: string, body: string | Buffer, uuids: string[], headers: Record<string, string> = {}) {
    const r = await post(path, body, headers).catch((e: Error) => ({ status: 0, body: e.message }));
    if (r.status === 200) acked.push(...uuids);
    else unexpected.push(`${path} ${r.status} ${JSON.stringify(r.body)}`);
  }
  let rounds = 0;
  async function largeBatch() {
    const id = `large-${rounds}`;
    const batch = Array.from({ length: 300 }, () => ({ ...event('large gzip batch'), distinct_id: id, properties: { $current_url: `https://example.com/${'p'.repeat(200)}` } }));
    const r = await post('/batch/', gzipSync(JSON.stringify({ api_key: keys.project_api_key, batch })), { 'Content-Encoding': 'gzip' })
      .catch((e: Error) => ({ status: 0, body: e.message }));
    if (r.status === 200) ackedLarge.set(id, batch.map((e) => e.uuid));
    else unexpected.push(`large /batch/ ${r.status} ${JSON.stringify(r.body)}`);
  }
  async function round() {
    if (rounds++ % 5 === 0) await largeBatch();
    const single = event('single');
    const plain = [event('plain batch'), event('plain batch')];
    const gzipped = [event('gzip batch'), event('gzip batch'), event('gzip batch')];
    const lz = event('lz64');
    const decide = post('/decide/?v=3', JSON.stringify({ token: keys.project_api_key, distinct_id: `bystander-${n}` }))
      .catch((e: Error) => ({ status: 0, body: e.message }));
    await Promise.all([
      send('/i/v0/e/', JSON.stringify({ api_key: keys.project_api_key, ...single }), [single.uuid]),
      send('/batch/', JSON.stringify({ api_key: keys.project_api_key, batch: plain }), plain.map((e) => e.uuid)),
      send('/batch/', gzipSync(JSON.stringify({ api_key: keys.project_api_key, batch: gzipped })), gzipped.map((e) => e.uuid),
        { 'Content-Encoding': 'gzip' }),
      send('/i/v0/e/?compression=lz64', LZString.compressToBase64(JSON.stringify({ api_key: keys.project_api_key, ...lz })), [lz.uuid],
        { 'Content-Type': 'text/plain' }),
      decide.then((r) => { if (r.status !== 200) unexpected.push(`/decide ${r.status} ${JSON.stringify(r.body)}`); }),
    ]);
  }
  const loop = (async () => {
    while (running) {
      await round();
      // The clients' pace between rounds, not a wait for anything.
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    acked, ackedLarge, unexpected,
    async stop() { running = false; await loop; },
  };
}


// Seeded random bodies: bytes, JSON with bytes flipped, cut JSON, odd shapes and hints.
function randomBodies(random: () => number, token: string, count: number): { path: string; body: Buffer; headers: Record<string, string> }[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const paths = ['/i/v0/e/', '/batch/', '/e/', '/capture/', '/batch/?compression=lz64', '/i/v0/e/?compression=gzip-js', '/batch/?compression=base64'];
  const encodings = [{}, { 'Content-Encoding': 'gzip' }, { 'Content-Type': 'text/plain' }, { 'Content-Type': 'application/x-www-form-urlencoded' }];
  const value = (depth: number): unknown => {
    const r = random();
    if (depth > 6 || r < 0.3) return pick([0, -1, 1e308, 'x', '', null, true, '\u0000\ud800', 99999999999999999999]);
    if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [pick(['event', 'distinct_id', 'properties', 'uuid', 'timestamp', '$set', 'batch', 'x']), value(depth + 1)]));
  };
  const out = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 4;
    let body: Buffer;
    if (kind === 0) body = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 2000) }, () => Math.floor(random() * 256)));
    else {
      const doc = { api_key: token, batch: Array.from({ length: 1 + Math.floor(random() * 5) }, () => value(0)) };
      body = Buffer.from(JSON.stringify(doc));
      if (kind === 2) for (let k = 0; k < 3; k++) body[Math.floor(random() * body.length)] = Math.floor(random() * 256);
      if (kind === 3) body = body.subarray(0, Math.floor(random() * body.length));
    }
    if (random() < 0.3) body = gzipSync(body);
    out.push({ path: pick(paths), body, headers: pick(encodings) as Record<string, string> });
  }
  return out;
}

const MB = 1024 * 1024;
const tooLarge = { type: 'invalid_request', code: 'payload_too_large' };

crowd('bombs, huge bodies and seeded random ones: refused or stored, while /_liveness keeps answering, memory stays under 1 GB, and every acknowledged event of the crowd is stored', async () => {
  const random = xorshift(13_4_7);
  const token = keys.project_api_key;
  // Built before the clock starts: the test process's own work must not look like the server's.
  const lz64Bombs = [lz64Bomb(30_000), lz64Bomb(31_000)];
  const gzipOfMillions = gzipSync(emptyObjects(16 * MB), { level: 9 });
  const gzipAtTheCap = gzipSync(emptyObjects(70 * MB), { level: 9 });
  const rawBatch = emptyObjects(20 * MB - 1);
  const wideEvent = { api_key: token, event: 'wide', distinct_id: 'wide', uuid: '0190a0e4-1c4e-7b1a-9e5b-f000000000f1',
    properties: Object.fromEntries(Array.from({ length: 65_536 }, (_, i) => [`k${i}`, i])) };
  const farFuture = { api_key: token, event: 'far sent_at', distinct_id: 'future', uuid: '0190a0e4-1c4e-7b1a-9e5b-f000000000f2' };
  const fuzz = randomBodies(random, token, 80);
  assert.ok(gzipOfMillions.length < 20_000, `gzip of 16 MB of {} is ${gzipOfMillions.length} bytes`);

  // What was being sent when, to name the request a slow probe met.
  const phases: [number, string][] = [];
  const phase = (name: string) => phases.push([Date.now(), name]);
  const during = (at: number) => phases.filter(([t]) => t <= at).pop()?.[1] ?? 'bystanders alone';
  const watch = watchServer(served.url, served.child.pid!);
  const crowdOfClients = bystanders(random);
  // The well-formed clients are at work before the first hostile request.
  await eventually(async () => crowdOfClients.acked.length > 0, 30_000);

  phase('two lz64 bombs');
  const refusals = await Promise.all([
    post('/batch/?compression=lz64', lz64Bombs[0], { 'Content-Type': 'text/plain' }),
    post('/i/v0/e/?compression=lz64', lz64Bombs[1], { 'Content-Type': 'text/plain' }),
  ]);
  phase('gzip of 16 MB of {}');
  refusals.push(await post('/batch/', gzipOfMillions, { 'Content-Encoding': 'gzip' }));
  phase('gzip past the cap');
  refusals.push(await post('/batch/', gzipAtTheCap, { 'Content-Encoding': 'gzip' }));
  phase('20 MB of {}');
  refusals.push(await post('/batch/', rawBatch));
  for (const r of refusals) {
    assert.is(r.status, 413, JSON.stringify(r.body));
    assert.equal({ type: r.body.type, code: r.body.code }, tooLarge);
  }

  phase('65,536 keys, far sent_at, toJSON, __proto__');
  const wide = await post('/i/v0/e/', JSON.stringify(wideEvent));
  assert.is(wide.status, 200);
  const future = await post('/i/v0/e/?_=99999999999999999999', JSON.stringify(farFuture));
  assert.is(future.status, 200);
  for (const key of ['toJSON', '__proto__']) {
    const r = await post('/i/v0/e/', `{"api_key":"${token}","event":"e","distinct_id":"d","properties":{"a":{"${key}":1}}}`);
    assert.is(r.status, 400);
    assert.is(r.body.code, 'invalid_payload');
  }

  phase('seeded random bodies');
  const statuses = new Map<number, number>();
  for (const f of fuzz) {
    const r = await post(f.path, f.body, f.headers);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    assert.ok(r.status < 500, `${f.path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  }

  phase('bystanders alone');
  // They go on being answered after the hostile requests.
  const ackedBefore = crowdOfClients.acked.length;
  await eventually(async () => crowdOfClients.acked.length > ackedBefore, 30_000);
  await crowdOfClients.stop();
  const seen = await watch.stop();
  assert.equal(crowdOfClients.unexpected, []);
  assert.ok(crowdOfClients.acked.length >= 20, `only ${crowdOfClients.acked.length} bystander events`);
  assert.ok(seen.probes >= 20 && seen.failedProbes === 0, JSON.stringify(seen));
  // How slow the slowest probe may be is measured by bench/hostile.js (bench/RESULTS.md),
  // not asserted on a machine shared with other tests: it is printed below.
  assert.ok(seen.peakRssBytes < 1024 * MB, `peak RSS ${(seen.peakRssBytes / MB).toFixed(0)} MB`);
  console.log(`    hostile crowd: ${crowdOfClients.acked.length} bystander events and ${crowdOfClients.ackedLarge.size} batches of 300, ${seen.probes} probes, slowest ${seen.slowestProbeMs.toFixed(0)} ms (${during(seen.slowestAt)}), RSS ${(seen.startRssBytes / MB).toFixed(0)} MB at the start, peak ${(seen.peakRssBytes / MB).toFixed(0)} MB, fuzz statuses ${JSON.stringify([...statuses])}`);

  const expected = [...crowdOfClients.acked, wideEvent.uuid, farFuture.uuid];
  for (let i = 0; i < expected.length; i += 20) {
    await Promise.all(expected.slice(i, i + 20).map((id) =>
      storedOrExplained(id)));
  }
  assert.ok(crowdOfClients.ackedLarge.size >= 2, `only ${crowdOfClients.ackedLarge.size} large batches`);
  for (const [id, uuids] of crowdOfClients.ackedLarge) {
    const listed = await eventually(async () => {
      const r = await manage('GET', `/events/?distinct_id=${id}&limit=1000`);
      return r.status === 200 && r.body.results.length >= uuids.length ? r.body.results as { uuid: string }[] : null;
    }, 30_000);
    assert.equal(listed.map((e) => e.uuid).sort(), [...uuids].sort());
  }
  const metrics = (await request(`${served.url}/metrics`)).body as string;
  assert.match(metrics, /^hedgerow_log_dead_letters 0$/m);
});

// Waits for one acknowledged event to be readable; if it never is, the failure says what
// the server last answered (or the request's own error), its consumers' lag and its
// warnings, rather than only that the event is missing.
async function storedOrExplained(id: string): Promise<void> {
  let last = 'no answer';
  try {
    await eventually(async () => {
      const r = await manage('GET', `/events/${id}/`);
      last = `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
      return r.status === 200;
    }, 30_000);
  } catch (e) {
    const err = e as Error & { cause?: Error };
    const metrics = await request(`${served.url}/metrics`).then((r) => String(r.body), (m: Error) => m.message);
    const lag = metrics.split('\n').filter((l) => /^hedgerow_(consumer_lag|log_dead_letters|log_backlog)/.test(l));
    assert.unreachable(`event ${id} not stored: last answer ${last}; ${err.message}${err.cause ? ` (${err.cause.message})` : ''}\n`
      + `${lag.join('\n')}\n${served.warnings().join('\n')}`);
  }
}

crowd.run();
