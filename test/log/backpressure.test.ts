// Backpressure a user can see (issue 26): a consumer that falls behind shows in its lag
// metrics, by name and in events, without taking capture or readiness down with it; a
// backlog waits in the log, handed to a consumer in batches no larger than it declares,
// in a thread whose heap is bounded as it declares.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, get } from 'node:http';
import { registered } from '../../src/log/consumers/index.js';
import { startTestServer, tempDir, postJson, request, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { boundedBatches, heldBatch } from '../fixtures/log-consumers.js';

const s = suite('backpressure');
let dir: string;
s.before.each(() => { dir = tempDir('hedgerow-backpressure-'); });
s.after.each(() => rmSync(dir, { recursive: true, force: true }));

const linesOf = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const metric = async (t: TestServer, series: string) => {
  const m = new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec((await request(`${t.url}/metrics`)).body as string);
  return m ? Number(m[1]) : null;
};
const capture = async (t: TestServer, n: number) => {
  // One request each, one after another: a log record each.
  for (let i = 0; i < n; i++) {
    assert.is((await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'e', distinct_id: 'd', uuid: randomUUID() })).status, 200);
  }
};

s('a consumer that stops applying shows its lag in events while capture and readiness stay up; released, it catches up', async () => {
  const t = await startTestServer({ dataDir: dir, consumers: EVENTS_ONLY, moreConsumers: [registered(heldBatch, { dir })] });
  try {
    await capture(t, 1);
    await eventually(async () => existsSync(join(dir, 'applying')));
    await capture(t, 5);
    // The held consumer has applied nothing: every event is its lag; the event store has them all.
    await eventually(async () => (await metric(t, 'hedgerow_consumer_lag_events{consumer="held_batch"}')) === 6);
    await eventually(async () => (await metric(t, 'hedgerow_consumer_lag_events{consumer="event_store"}')) === 0);
    assert.is((await request(`${t.url}/_readiness`)).status, 200);
    await capture(t, 1);
    writeFileSync(join(dir, 'release'), '');
    await eventually(async () => (await metric(t, 'hedgerow_consumer_lag_events{consumer="held_batch"}')) === 0);
    assert.is(linesOf(join(dir, 'applied')).length, 7);
  } finally {
    await t.close();
  }
});

// One GET over the agent's one kept-alive connection: it outlives the listening socket,
// which a stopping node closes first, as a balancer's open connection would.
const readinessOver = (agent: Agent, url: string) => new Promise<{ status: number; body: { checks?: Record<string, boolean>; reasons?: Record<string, string> } }>((resolve, reject) => {
  get(`${url}/_readiness`, { agent }, (res) => {
    let text = '';
    res.on('data', (d: Buffer) => { text += d.toString(); });
    res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
  }).on('error', reject);
});

s('a stopping node answers 503 "stopping" on its open connections while a consumer finishes its batch; the batch is applied whole', async () => {
  const t = await startTestServer({ dataDir: dir, consumers: EVENTS_ONLY, moreConsumers: [registered(heldBatch, { dir })] });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let closing: Promise<void> | null = null;
  try {
    await capture(t, 2);
    await eventually(async () => existsSync(join(dir, 'applying')));
    assert.is((await readinessOver(agent, t.url)).status, 200);
    closing = t.server.close();
    const stopping = await readinessOver(agent, t.url);
    assert.is(stopping.status, 503);
    assert.equal(stopping.body.checks, { stopping: false });
    assert.is(stopping.body.reasons?.stopping, 'the node is stopping');
    writeFileSync(join(dir, 'release'), '');
    await closing;
    // The batch it held when the stop came was applied, not cut short.
    assert.ok(linesOf(join(dir, 'applied')).length >= 1);
  } finally {
    agent.destroy();
    writeFileSync(join(dir, 'release'), '');
    await (closing ?? t.server.close());
  }
});

s('a backlog is handed to a consumer in batches of at most the bytes it declares, in a thread with the heap bound it declares', async () => {
  const file = join(dir, 'batches');
  // The log fills before the consumer exists: a backlog of 6 records.
  let t = await startTestServer({ dataDir: dir, consumers: EVENTS_ONLY });
  try {
    await capture(t, 6);
  } finally {
    await t.close();
  }
  t = await startTestServer({ dataDir: dir, consumers: EVENTS_ONLY, moreConsumers: [registered(boundedBatches, { file, heapMb: 64 })] });
  try {
    await eventually(async () => linesOf(file).reduce((n, l) => n + Number(l.split(' ')[1]), 0) === 6);
    const batches = linesOf(file).map((l) => l.split(' ').map(Number));
    // One byte a batch: the reader never hands more than the one record it must.
    assert.equal(batches.map(([records]) => records), [1, 1, 1, 1, 1, 1]);
    // The thread's heap limit (old generation and young) follows the declared bound, far
    // below V8's default on this machine.
    for (const [, , limitMb] of batches) assert.ok(limitMb >= 64 && limitMb <= 64 + 64, `heap limit ${limitMb} MB`);
  } finally {
    await t.close();
  }
});

s.run();
