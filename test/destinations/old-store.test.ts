// A destinations store written by the previous version, started by this one (docs/decisions/
// 0062): the real `hedgerow serve` is SIGKILLed with invocations queued, its store is put
// back into the old form by hand (an index entry per queued invocation in
// `pending_by_after`, no position counts), and the server started again on it delivers
// every queued invocation exactly once and leaves neither form behind.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { open, type Database } from 'lmdb';
import type { QueuedInvocation } from '../../src/destinations/runtime/env.js';
import { bannerKeys, cliServe, cliStop } from '../helpers/cli-server.js';
import { postJson, request, bearer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';
import { ok, startSink, type Sink } from '../helpers/http-sink.js';
import { createHogFunction, orderWebhook } from '../helpers/hog-functions.js';

const s = suite('destinations: a store of the old form started');

type Key = [string, string, number];

// The destinations store's file, opened by hand while no server runs.
async function withStore<T>(dataDir: string, use: (dbs: {
  queue: Database<QueuedInvocation, Key>; pendingByAfter: Database<null, [number, ...Key]>; pendingCounts: Database<number, number>;
}) => T): Promise<T> {
  const root = open({ path: join(dataDir, 'destinations.lmdb'), maxDbs: 16 });
  try {
    const dbs = {
      queue: root.openDB<QueuedInvocation, Key>({ name: 'queue', ...({ useRecords: false } as object) }),
      pendingByAfter: root.openDB<null, [number, ...Key]>({ name: 'pending_by_after' }),
      pendingCounts: root.openDB<number, number>({ name: 'pending_counts' }),
    };
    return await root.transaction(() => use(dbs));
  } finally {
    await root.close();
  }
}

s('invocations queued in the old form are delivered once after the upgrade, and both forms are left empty', async () => {
  const dataDir = tempDir('hedgerow-old-store-');
  const sink: Sink = await startSink();
  const env = { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1' };
  const first = await cliServe(dataDir, env);
  let { child, url } = first;
  try {
    const keys = await bannerKeys(first);
    const created = await createHogFunction(url, keys, orderWebhook(sink.url));
    assert.is(created.status, 201);
    // Every request held open: the invocations stay queued.
    const held: ServerResponse[] = [];
    sink.respond = (_req, res) => { held.push(res); };
    const batch = Array.from({ length: 40 }, (_, i) => ({ event: 'order', distinct_id: `o${i % 5}`, properties: { n: i + 1 } }));
    assert.is((await postJson(`${url}/batch/`, { api_key: keys.project_api_key, batch })).status, 200);
    await eventually(async () => held.length >= 16, 15_000);
    await cliStop(child, 'SIGKILL');
    await eventually(async () => held.every((res) => res.closed));
    for (const res of held) res.end('{"late":true}');

    // The store as the previous version would have left it: an index entry per queued invocation, no counts.
    const queued = await withStore(dataDir, ({ queue, pendingByAfter, pendingCounts }) => {
      let n = 0;
      for (const { key, value } of queue.getRange()) {
        if (value.after === undefined) continue;
        pendingByAfter.put([value.after, ...key], null);
        n++;
      }
      const counted = [...pendingCounts.getRange()].reduce((sum, { value }) => sum + value, 0);
      for (const after of pendingCounts.getKeys()) pendingCounts.remove(after);
      return { n, counted };
    });
    // All 40 were queued (counted) at the kill.
    assert.is(queued.n, 40);
    assert.is(queued.counted, 40);

    sink.respond = ok;
    ({ child, url } = await cliServe(dataDir, env));
    const answered = () => sink.answered.map((r) => r.json().n as number);
    await eventually(async () => new Set(answered()).size === 40, 30_000);
    const totals = async () => (await request(`${url}/api/environments/${keys.project_id}/hog_functions/${created.body.id}/metrics/totals/?breakdown_by=name`,
      { headers: bearer(keys.personal_api_key) })).body.totals as Record<string, number>;
    await eventually(async () => { const { triggered = 0, succeeded = 0 } = await totals(); return triggered === 40 && succeeded === 40; }, 30_000);
    assert.is(answered().length, 40, 'each delivered once');
    await cliStop(child, 'SIGTERM');
    const left = await withStore(dataDir, ({ queue, pendingByAfter, pendingCounts }) => ({
      queue: queue.getCount(), index: pendingByAfter.getCount(), counts: pendingCounts.getCount(),
    }));
    assert.equal(left, { queue: 0, index: 0, counts: 0 });
  } finally {
    await cliStop(child, 'SIGKILL');
    await sink.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

s.run();
