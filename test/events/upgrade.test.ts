// A data directory from before the one-write event layout (docs/decisions/0012): the
// server moves its events at start-up and serves them like any other.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { open } from 'lmdb';
import { join } from 'node:path';
import { mkdirSync, rmSync } from 'node:fs';
import { startTestServer, tempDir, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { apiClient } from '../helpers/api.js';

const s = suite('upgrading a data directory');
let dataDir: string;
let t: TestServer;
s.before(() => { dataDir = tempDir('hedgerow-upgrade-'); });
s.after(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const UUID = '0190a0e4-1c4e-7b1a-9e5b-0000000ab001';
const TS = Date.parse('2026-01-10T12:00:00.000Z');

s('events stored in the old layout are listed and found by uuid after the first start', async () => {
  mkdirSync(dataDir, { recursive: true });
  const old = open({ path: join(dataDir, 'hedgerow.lmdb'), maxDbs: 32 });
  const events = old.openDB({ name: 'events' });
  const uuids = old.openDB({ name: 'event_uuids' });
  await old.transaction(() => {
    events.put([1, TS, UUID], {
      uuid: UUID, event: 'signed up', distinct_id: 'ada', properties: { plan: 'pro' },
      timestamp: new Date(TS).toISOString(), person_id: null, elements_chain: '',
    });
    uuids.put([1, UUID], TS);
  });
  await old.close();

  t = await startTestServer({ dataDir, consumers: EVENTS_ONLY });
  const api = apiClient(t);
  const one = await api('GET', `/api/environments/1/events/${UUID}`, t.personalKey);
  assert.is(one.status, 200);
  assert.equal([one.body.event, one.body.distinct_id, one.body.properties], ['signed up', 'ada', { plan: 'pro' }]);
  const list = await api('GET', '/api/environments/1/events/', t.personalKey);
  assert.equal(list.body.results.map((e: { id: string }) => e.id), [UUID]);
});

s.run();
