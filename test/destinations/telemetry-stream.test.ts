// Hog function telemetry shared across a NATS cluster (docs/decisions/0034), against a real
// nats-server: what the delivering node's transactions wrote (logs, metric increments,
// watcher records) is published, and a follower on another store applies it, so both
// stores hold the same; a store's own messages are not applied twice, nor are messages
// applied again after a restart; a log line applied twice is one line.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openDestinationsStore, type DestinationsStore, type WatcherRecord } from '../../src/destinations/runtime/env.js';
import { applyTelemetry, createTelemetry, type TelemetryBatch } from '../../src/destinations/runtime/telemetry.js';
import { decodeTelemetry, encodeTelemetry, telemetryOrigin } from '../../src/destinations/runtime/telemetry-stream.js';
import { openTelemetryPublisher, type TelemetryPublisher } from '../../src/destinations/runtime/telemetry-publisher.js';
import { followTelemetry, type TelemetryFollower } from '../../src/destinations/runtime/telemetry-follower.js';
import { overNats, type NatsCluster } from '../../src/cluster/index.js';
import { clusterHandles } from '../helpers/cluster-handle.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('destinations: telemetry shared over NATS');
const nats = natsServerForSuite();
const handles = clusterHandles();
// Each publisher and follower is a node's (a cluster handle of its own).
async function node(): Promise<NatsCluster> {
  const cluster = await handles.open(nats.server().url, { role: 'command' });
  if (!overNats(cluster)) throw new Error('not over NATS');
  return cluster;
}
const opened: { dir: string; ds: DestinationsStore }[] = [];
const running: { close(): Promise<void> }[] = [];
s.before(() => nats.start());
s.after.each(async () => {
  for (const r of running.splice(0)) await r.close();
  for (const { dir, ds } of opened.splice(0)) {
    await ds.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
s.after(async () => {
  await handles.closeAll();
  await nats.close();
});

let fnIds = 0;
const T0 = Date.UTC(2026, 10, 27, 9, 30);

function store(): DestinationsStore {
  const dir = tempDir('hedgerow-telemetry-');
  const ds = openDestinationsStore(dir);
  opened.push({ dir, ds });
  return ds;
}

async function publisher(ds: DestinationsStore): Promise<TelemetryPublisher> {
  const p = await openTelemetryPublisher(await node(), { origin: await telemetryOrigin(ds), onError: (err) => { throw err; } });
  running.push(p);
  return p;
}

async function follower(ds: DestinationsStore): Promise<TelemetryFollower> {
  const f = await followTelemetry(await node(), { ds, onError: () => undefined });
  running.push(f);
  return f;
}

const logsOf = (ds: DestinationsStore, id: string) => [...ds.logs.getRange({ start: [id], end: [id, Infinity] })].map(({ key, value }) => ({ key, value }));
const metricsOf = (ds: DestinationsStore, id: string) => [...ds.metrics.getRange({ start: [id], end: [id, Infinity] })].map(({ key, value }) => ({ key, value }));

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// What a delivering node does: gather, write in a transaction, hand the batch over after the commit.
async function deliver(ds: DestinationsStore, out: TelemetryPublisher | null, id: string, at: number): Promise<TelemetryBatch> {
  const telemetry = createTelemetry(() => at);
  telemetry.count(id, 'triggered');
  telemetry.count(id, 'succeeded');
  telemetry.log(id, 'instance-1', 'INFO', `delivered at ${at}`);
  telemetry.log(id, 'instance-1', 'DEBUG', 'same millisecond, its own key');
  const batch = await ds.root.transaction(() => telemetry.write(ds));
  out?.telemetry(batch);
  return batch;
}

s('a batch survives its encoding; applied twice, its log lines are the same lines', async () => {
  const ds = store();
  const id = `fn-${++fnIds}`;
  const batch = await deliver(ds, null, id, T0);
  const message = { origin: 7, ...batch };
  assert.equal(decodeTelemetry(encodeTelemetry(message)), message);
  const other = store();
  await other.root.transaction(() => { applyTelemetry(other, batch); applyTelemetry(other, batch); });
  assert.equal(logsOf(other, id), logsOf(ds, id));
  assert.is(logsOf(other, id).length, 2);
});

s('another store applies what the delivering one published, its own follower skips it, and a restarted follower applies nothing twice', async () => {
  const a = store();
  const b = store();
  const id = `fn-${++fnIds}`;
  const out = await publisher(a);
  const followA = await follower(a);
  let followB = await follower(b);
  await deliver(a, out, id, T0);
  await deliver(a, out, id, T0 + 3_600_000);
  await out.flush();
  await until(() => logsOf(b, id).length === 4 && metricsOf(b, id).length === 4);
  assert.equal(logsOf(b, id), logsOf(a, id));
  assert.equal(metricsOf(b, id), metricsOf(a, id));
  // A's follower has read past its own messages without applying them: nothing doubled.
  await until(() => followA.applied() >= followB.applied());
  assert.equal(metricsOf(a, id).map((m) => m.value), [1, 1, 1, 1]);
  // B restarted reads on from where its store stands.
  await followB.close();
  running.splice(running.indexOf(followB), 1);
  await deliver(a, out, id, T0);
  await out.flush();
  followB = await follower(b);
  await until(() => logsOf(b, id).length === 6);
  assert.equal(metricsOf(b, id), metricsOf(a, id));
  assert.equal(metricsOf(b, id).map((m) => m.value), [2, 2, 1, 1]);
  assert.equal(logsOf(b, id), logsOf(a, id));
});

s('watcher records: the latest reaches the other store; syncWatcher puts the bucket\'s over a stale copy', async () => {
  const a = store();
  const b = store();
  const id = `fn-${++fnIds}`;
  const out = await publisher(a);
  const followB = await follower(b);
  const disabled: WatcherRecord = { tokens: -40, at: T0 / 1000, state: 3, lockedUntil: T0 + 60_000, epoch: 0 };
  out.watcher(id, { ...disabled, state: 2, tokens: 500 });
  out.watcher(id, disabled);
  await out.flush();
  await until(() => b.watcher.get(id)?.state === 3);
  assert.equal(b.watcher.get(id), disabled);
  // A's own follower does not put its own records back over what its deliveries wrote since.
  const newer = { ...disabled, tokens: -30 };
  await a.root.transaction(() => a.watcher.put(id, newer));
  const followA = await follower(a);
  await followA.syncWatcher();
  assert.equal(a.watcher.get(id), newer);
  // A node taking the deliveries over reads the bucket as it stands, over its stale copy.
  await followB.close();
  running.splice(running.indexOf(followB), 1);
  await b.root.transaction(() => b.watcher.put(id, { ...disabled, state: 1, tokens: 10_000 }));
  const again = await followTelemetry(await node(), { ds: b, onError: () => undefined });
  running.push(again);
  await again.syncWatcher();
  assert.equal(b.watcher.get(id), disabled);
});

s.run();
