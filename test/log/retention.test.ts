// Retention of the embedded log: records every consumer has applied are dropped,
// the newest always stays so the sequence survives a restart.
import { captureCodec } from '../../src/capture/frames.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { createLmdbLog, createLmdbLogReader } from '../../src/log/lmdb-log.js';
import { pruneAppliedRecords, PRUNER } from '../../src/log/retention.js';
import { tempDir, startTestServer, postJson, request, bearer, eventually, EVENTS_ONLY } from '../helpers/server.js';
import { logEvent } from '../helpers/log-events.js';
import { readEvents, uuidsOf } from '../helpers/log-reading.js';

const s = suite('embedded log retention');
let dataDir: string;
let store: Store;
s.before.each(() => { dataDir = tempDir('hedgerow-retention-'); store = openStore(dataDir, tables); });
s.after.each(async () => { await store.close(); rmSync(dataDir, { recursive: true, force: true }); });

const keys = () => [...store.log.getKeys()] as number[];

async function appendRecords(n: number): Promise<void> {
  const log = createLmdbLog(store, captureCodec);
  for (let i = 0; i < n; i++) await log.append([logEvent()]);
  await log.close();
}

s('nothing is pruned while some consumer has applied nothing', async () => {
  await appendRecords(3);
  assert.is(await pruneAppliedRecords(store), 0);
  assert.equal(keys(), [1, 2, 3]);
});

s('records every consumer has applied are dropped; the slowest consumer holds back the rest', async () => {
  await appendRecords(5);
  await store.positions.put('fast', 4);
  await store.positions.put('slow', 2);
  assert.is(await pruneAppliedRecords(store), 2);
  assert.equal(keys(), [3, 4, 5]);
  assert.is(store.positions.get(PRUNER), 2);
});

s('the newest record stays when everything is applied, so a restarted log continues its sequence', async () => {
  await appendRecords(5);
  await store.positions.put('only', 5);
  await pruneAppliedRecords(store);
  assert.equal(keys(), [5]);
  const log = createLmdbLog(store, captureCodec);
  const next = logEvent();
  await log.append([next]);
  await log.close();
  assert.is(log.lastSeq(), 6);
  const reader = createLmdbLogReader(store, captureCodec);
  assert.equal(uuidsOf(await readEvents(reader, 5, 1)), [next.uuid]);
  await reader.close();
});

s('a large backlog is pruned in several bounded transactions', async () => {
  await appendRecords(10);
  await store.positions.put('only', 10);
  assert.is(await pruneAppliedRecords(store, 3), 9);
  assert.equal(keys(), [10]);
});

s.run();

const wired = suite('embedded log retention in the server');

wired('the server prunes what the event store applied, and captures on after a restart', async () => {
  const dir = tempDir('hedgerow-retention-server-');
  const env = { HEDGEROW_LOG_PRUNE_INTERVAL_MS: '20' };
  // The event store alone: retention waiting for several consumers is log/consumers-server's.
  const consumers = EVENTS_ONLY;
  const capture = async (t: Awaited<ReturnType<typeof startTestServer>>, uuid: string) =>
    assert.is((await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'kept', distinct_id: 'retention', uuid })).status, 200);
  const readable = (t: Awaited<ReturnType<typeof startTestServer>>, uuid: string) => eventually(async () =>
    (await request(`${t.url}/api/environments/${t.projectId}/events/${uuid}/`, { headers: bearer(t.personalKey) })).status === 200);
  try {
    const first = await startTestServer({ dataDir: dir, env, consumers });
    const uuids = Array.from({ length: 5 }, () => randomUUID());
    for (const u of uuids) await capture(first, u);
    for (const u of uuids) await readable(first, u);
    await eventually(async () => [...first.server.store.log.getKeys()].length === 1);
    await first.close();
    const second = await startTestServer({ dataDir: dir, env, consumers });
    const later = randomUUID();
    await capture(second, later);
    await readable(second, later);
    await second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

wired.run();
