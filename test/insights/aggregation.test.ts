// The aggregation worker in the server: it follows the event store through the log, merges
// reach it (two persons merged by $identify count once), it resumes after a restart without
// loading anything twice, and a data dir whose log was pruned before insights existed is
// filled from the event store.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { MODULES } from '../../src/main.js';
import { startServer } from '../../src/node/serve.js';
import { registered } from '../../src/log/consumers/index.js';
import { eventStoreConsumer } from '../../src/events/store-consumer.js';
import { createLogger } from '../../src/logger.js';
import { bootstrap } from '../../src/access/index.js';
import { apiClient } from '../helpers/api.js';
import { discard, eventually, postJson, startTestServer, tempDir, testConfig, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const s = suite('insights: aggregation worker');
let dir: string;
const dirs: string[] = [];
s.before.each(() => { dir = tempDir('hedgerow-insights-'); dirs.push(dir); });
// The resume test's restarted server goes on to serve the merge test, in a project of its
// own (its counts are per project): one server start less.
let resumed: TestServer | undefined;
s.after(async () => {
  await resumed?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const today = (hour: number) => {
  const d = new Date();
  d.setUTCHours(hour, 0, 0, 0);
  return d.toISOString();
};
const pageview = (distinct_id: string, timestamp = today(0)) => ({ uuid: randomUUID(), event: '$pageview', distinct_id, timestamp, properties: {} });

async function capture(t: { url: string; projectKey: string }, batch: unknown[]): Promise<void> {
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
}

async function today$(t: TestServer, math = 'total'): Promise<number> {
  const r = await apiClient(t)('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, {
    query: { kind: 'TrendsQuery', series: [{ event: '$pageview', math }], dateRange: { date_from: 'dStart' } }, refresh: 'force_blocking',
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.results[0].data[0];
}

s('after a restart the worker resumes where it stood: nothing loaded twice', async () => {
  let t = await startTestServer({ dataDir: dir, consumers: NO_DESTINATIONS });
  await capture(t, Array.from({ length: 5 }, (_, i) => pageview(`u${i}`)));
  await t.applied();
  assert.is(await today$(t), 5);
  await t.close();
  t = await startTestServer({ dataDir: dir, consumers: NO_DESTINATIONS });
  // Closed by the suite's `after`, once the merge test has used it too.
  resumed = t;
  assert.is(await today$(t), 5);
  await capture(t, [pageview('u9'), pageview('u9')]);
  await t.applied();
  assert.is(await today$(t), 7);
  // Redelivered events (the same uuids again) are not counted again.
  const again = pageview('u10');
  await capture(t, [again, again]);
  await t.applied();
  assert.is(await today$(t), 8);
  await capture(t, [again]);
  await capture(t, [pageview('u11')]);
  await t.applied();
  assert.is(await today$(t), 9);
});

s('persons merged by $identify count once, once the merge reaches the worker', async () => {
  assert.ok(resumed, 'the resume test left its server running');
  const created = await apiClient(resumed)('POST', '/api/projects/', resumed.personalKey, { name: 'merges' });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const t: TestServer = { ...resumed, projectId: created.body.id, projectKey: created.body.api_token };
  await capture(t, [pageview('anon-9'), pageview('user-9')]);
  await t.applied();
  assert.is(await today$(t, 'dau'), 2);
  await capture(t, [{ uuid: randomUUID(), event: '$identify', distinct_id: 'user-9', timestamp: today(0), properties: { $anon_distinct_id: 'anon-9' } }]);
  await t.applied();
  assert.is(await today$(t, 'dau'), 1);
  assert.is(await today$(t), 2);
});

s('a data dir whose log was pruned before insights existed is filled from the event store', async () => {
  // A first run without the aggregation worker, pruning the log every 20 ms.
  const config = testConfig(dir, [], { HEDGEROW_LOG_PRUNE_INTERVAL_MS: '20' });
  const old = await startServer(config, MODULES, {
    log: createLogger('silent'), out: discard(), consumers: [registered(eventStoreConsumer, { cachedPersons: 1000, preStore: null })],
  });
  const boot = await bootstrap(old.tenancy);
  const first = { url: `http://127.0.0.1:${old.port}`, projectKey: boot.project.api_token };
  await capture(first, Array.from({ length: 6 }, (_, i) => pageview(`old${i}`)));
  await eventually(async () => [...old.store.log.getKeys()].length === 1 && old.store.eventRows.getCount() === 6, 10_000);
  await old.close();

  const t = await startTestServer({ dataDir: dir, consumers: NO_DESTINATIONS });
  try {
    await capture(t, [pageview('new')]);
    await t.applied();
    assert.is(await today$(t), 7);
    assert.is(await today$(t, 'dau'), 7);
  } finally {
    await t.close();
  }
});

s.run();
