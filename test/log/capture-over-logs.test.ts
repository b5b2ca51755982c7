// Capture → log → event store → events API, over each event log: the same cases
// with the embedded LMDB log and with NATS_URL pointing at a real nats-server.
// Plus what only the NATS path has: its server going away under capture.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, postJson, request, bearer, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { natsServerForSuite, type NatsServer } from '../helpers/nats.js';
import { durableCaptureCases } from '../capture/durable-cases.js';

const lmdb = suite('capture is durable and readable: LMDB log');
let overLmdb: TestServer;
lmdb.before(async () => { overLmdb = await startTestServer({ consumers: EVENTS_ONLY }); });
lmdb.after(async () => { await overLmdb.close(); });
durableCaptureCases(lmdb, () => overLmdb);
lmdb.run();

const nats = suite('capture is durable and readable: NATS log');
const natsForSuite = natsServerForSuite();
let natsServer: NatsServer;
let overNats: TestServer | null = null;
// uvu reports nothing when a `before` hook throws: keep the reason, fail each test with it.
let setupFailure: unknown = null;
nats.before(async () => {
  try {
    await natsForSuite.start();
    natsServer = natsForSuite.server();
    overNats = await startTestServer({ env: { NATS_URL: natsServer.url }, consumers: EVENTS_ONLY });
  } catch (err) {
    setupFailure = err;
  }
});
nats.before.each(() => { if (setupFailure) throw setupFailure; });
nats.after(async () => {
  await overNats?.close();
  await natsForSuite.close();
});
durableCaptureCases(nats, () => overNats!);

nats('with the NATS server down capture answers 503 service_unavailable promptly; once it is back, 200 and readable', async () => {
  const t = overNats!;
  let uuid = '';
  const send = () => postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'outage', distinct_id: 'outage', uuid: (uuid = randomUUID()) });
  await natsServer.stop();
  // How promptly is measured by bench/latencies.js (capture-down), not asserted here.
  const r = await eventually(async () => { const res = await send(); return res.status === 503 ? res : null; });
  assert.equal(r.body, { type: 'server_error', code: 'service_unavailable', detail: r.body.detail, attr: null });
  await natsServer.restart();
  await eventually(async () => (await send()).status === 200, 10_000);
  // The consumer worker's reader came back too.
  await eventually(async () => (await request(`${t.url}/api/environments/${t.projectId}/events/${uuid}/`,
    { headers: bearer(t.personalKey) })).status === 200, 10_000);
});

nats.run();
