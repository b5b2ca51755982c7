// Log records the server cannot decode, as an operator meets them: the server sets them
// aside and serves the events behind them, the metrics count them, and
// `hedgerow dead-letters` hands back their bytes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { encodeFrames } from '../../src/log/record.js';
import { eventsFrame } from '../../src/capture/frames.js';
import { startTestServer, tempDir, request, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { apiClient } from '../helpers/api.js';
import { eventMaker } from '../helpers/person-events.js';
import { cliRun } from '../helpers/cli-server.js';

const s = suite('dead letters');
let dataDir: string;
let t: TestServer;

const cli = (...args: string[]) => cliRun(dataDir, ...args);

s.before(() => { dataDir = tempDir('hedgerow-dead-letters-'); });
s.after(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

s('damaged log records are set aside, the events behind them are served, and the CLI returns their bytes', async () => {
  const ev = eventMaker(1, Date.now());
  const good = ev('$pageview', 'nora', { $set: { plan: 'pro' } });
  const whole = encodeFrames([eventsFrame([ev('$pageview', 'olga')])]);
  const unknownFormat = Buffer.from([0xfe, 1, 2, 3, 4]);
  const cutShort = whole.subarray(0, whole.length - 10);
  const store = openStore(dataDir, tables);
  await store.logRoot.transaction(() => {
    store.log.put(1, unknownFormat);
    store.log.put(2, cutShort);
    store.log.put(3, encodeFrames([eventsFrame([good])]));
  });
  await store.close();

  t = await startTestServer({ dataDir, consumers: EVENTS_ONLY });
  assert.is(t.projectId, 1);
  const api = apiClient(t);
  const stored = await eventually(async () => (await api('GET', `/api/environments/1/events/${good.uuid}`, t.personalKey)).body?.uuid);
  assert.is(stored, good.uuid);
  const nora = (await api('GET', '/api/environments/1/persons/?distinct_id=nora', t.personalKey)).body.results[0];
  assert.is(nora.properties.plan, 'pro');
  const metrics = (await request(`${t.url}/metrics`)).body as string;
  assert.match(metrics, /^hedgerow_log_dead_letters 2$/m);

  const listed = await cli('dead-letters', '--json');
  assert.is(listed.code, 0, listed.stderr);
  const letters = listed.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(letters.map((l) => [l.log, l.seq, l.bytes]), [['lmdb', 1, 5], ['lmdb', 2, cutShort.length]]);
  assert.equal(Buffer.from(letters[0].record, 'base64'), unknownFormat);
  assert.equal(Buffer.from(letters[1].record, 'base64'), Buffer.from(cutShort));
  assert.is(letters[0].error, 'log record: unknown format 254');
  assert.match(letters[1].error, /runs past the end of the record/);
  const text = await cli('dead-letters');
  assert.match(text.stdout, /^lmdb #1, set aside .*: log record: unknown format 254 \(5 bytes\)$/m);
});

s.run();
