// Log consumers as the server runs them, each in a worker thread of its own: a consumer
// added to a data dir with history, and one added after retention pruned that history.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { registered } from '../../src/log/consumers/index.js';
import { startTestServer, tempDir, postJson, request, bearer, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { backfilledUuidFile, uuidFile } from '../fixtures/log-consumers.js';

const s = suite('log consumers in the server');
let dir: string;
s.before.each(() => { dir = tempDir('hedgerow-consumers-server-'); });
s.after.each(() => rmSync(dir, { recursive: true, force: true }));

const linesOf = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const metrics = async (t: TestServer) => (await request(`${t.url}/metrics`)).body as string;

// Every run here has the event store's consumer only (EVENTS_ONLY; no insights or hog
// function threads): what is tested is the consumer added beside it, and retention, which
// waits for every consumer the server runs.
// A first run of the service with its own consumers only: `n` events captured and stored.
async function history(n: number, pruneMs: string): Promise<string[]> {
  const t = await startTestServer({ dataDir: dir, consumers: EVENTS_ONLY, env: { HEDGEROW_LOG_PRUNE_INTERVAL_MS: pruneMs } });
  const uuids = Array.from({ length: n }, () => randomUUID());
  for (const uuid of uuids) {
    assert.is((await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'before', distinct_id: 'h', uuid })).status, 200);
  }
  const last = uuids[n - 1];
  await eventually(async () => (await request(`${t.url}/api/environments/${t.projectId}/events/${last}/`, { headers: bearer(t.personalKey) })).status === 200);
  if (pruneMs !== '3600000') await eventually(async () => [...t.server.store.log.getKeys()].length === 1);
  await t.close();
  return uuids;
}

s('a consumer added to a data dir with history starts from the beginning, sees every event, and holds retention until it has', async () => {
  const before = await history(8, '3600000');
  const file = join(dir, 'uuids');
  // Retention runs every 20 ms here: without waiting for the new consumer, it would prune
  // what the event store applied before the new consumer's thread read it.
  const t = await startTestServer({ dataDir: dir, consumers: EVENTS_ONLY, env: { HEDGEROW_LOG_PRUNE_INTERVAL_MS: '20' }, moreConsumers: [registered(uuidFile, { file })] });
  try {
    const after = randomUUID();
    assert.is((await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'after', distinct_id: 'h', uuid: after })).status, 200);
    await eventually(async () => linesOf(file).length === 9);
    assert.equal(linesOf(file), [...before, after]);
    await eventually(async () => [...t.server.store.log.getKeys()].length === 1);
    assert.match(await metrics(t), /^hedgerow_consumer_lag_records\{consumer="uuid_file"\} 0$/m);
    assert.match(await metrics(t), /^hedgerow_consumer_lag_events\{consumer="uuid_file"\} 0$/m);
  } finally {
    await t.close();
  }
});

s('a consumer added after retention pruned the history is stopped loudly without a backfill, and filled by one that has', async () => {
  const before = await history(6, '20');
  const bare = join(dir, 'bare');
  const filled = join(dir, 'filled');
  const t = await startTestServer({
    dataDir: dir, consumers: EVENTS_ONLY, moreConsumers: [registered(uuidFile, { file: bare }), registered(backfilledUuidFile, { file: filled })],
  });
  try {
    const after = randomUUID();
    assert.is((await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'after', distinct_id: 'h', uuid: after })).status, 200);
    await eventually(async () => linesOf(filled).length === 7);
    assert.equal(linesOf(filled).sort(), [...before, after].sort());
    // It fails at every start: a crash loop, which readiness reports whether or not its thread
    // happens to be up at the moment of asking.
    await eventually(async () => /^hedgerow_consumer_failures_total\{consumer="uuid_file",kind="restart"\} ([2-9]|\d\d)/m.test(await metrics(t)));
    assert.equal(linesOf(bare), []);
    assert.is((await request(`${t.url}/_readiness`)).status, 503);
  } finally {
    await t.close();
  }
});

s.run();
