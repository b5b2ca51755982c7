// Leases (src/cluster/leases.ts) against a real nats-server: two holders are two cluster
// handles, as two nodes would be. One holder at a time, renewal past the TTL, expiry of a holder gone
// silent, release (also with a renewal in flight), close, and a paused holder losing its
// lease to another.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type NatsConnection } from 'nats';
import type { Leases } from '../../src/cluster/index.js';
import { clusterHandles } from '../helpers/cluster-handle.js';
import { natsServerForSuite } from '../helpers/nats.js';

const s = suite('leases');
const nats = natsServerForSuite();
const TTL = 1500;
const handles = clusterHandles();
const connections: NatsConnection[] = [];
let one: Leases;
let two: Leases;
let keys = 0;
const key = () => `work-${++keys}`;

// A node's leases over `bucket`, which it creates with `ttlMs` when missing.
async function node(name: string, bucket = 'TEST_LEASES', ttlMs = TTL): Promise<Leases> {
  const cluster = await handles.open(nats.server().url, { node: name, role: 'command' });
  return cluster.leases({ kind: 'kv', name: bucket, ttlMs, description: 'test leases' });
}

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

// Time passing is what these tests are about: a TTL (or a renewal's due time) going by.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

s.before(async () => {
  await nats.start();
  one = await node('one');
  two = await node('two');
});
s.after(async () => {
  for (const nc of connections) await nc.close();
  await handles.closeAll();
  await nats.close();
});

s('one holder at a time, renewed past its TTL; released, the other takes it at once', async () => {
  const k = key();
  const lease = await one.acquire(k);
  assert.ok(lease);
  assert.is(await two.acquire(k), null);
  assert.is(await one.acquire(k), null, 'not twice on one node either');
  assert.is(one.holding(k), lease);
  await sleep(TTL * 2);
  assert.ok(lease.held(), 'renewed');
  assert.is(await two.acquire(k), null, 'still held past its TTL');
  assert.ok(await two.acquire(key()), 'another key is free');
  await lease.release();
  assert.not.ok(lease.held());
  assert.is(one.holding(k), undefined);
  assert.ok(await two.acquire(k), 'free at once after the release');
  const raced = key();
  const both = await Promise.all([one.acquire(raced), two.acquire(raced)]);
  assert.is(both.filter((l) => l !== null).length, 1, 'asked at once: one gets it');
});

s('each renewal runs the holder\'s hook; a hook that throws loses the lease', async () => {
  let renewals = 0;
  const lostWith: string[] = [];
  const lease = await one.acquire(key(), {
    async renewed() { if (++renewals === 2) throw new Error('could not record'); },
    lost: (err) => lostWith.push(err.message),
  });
  assert.ok(lease);
  await until(() => lostWith.length === 1, 20_000);
  assert.is(renewals, 2);
  assert.equal(lostWith, ['could not record']);
  assert.not.ok(lease.held());
  await sleep(TTL);
  assert.is(renewals, 2, 'no renewal after the loss');
});

s('a lease its holder stopped renewing lapses at the TTL, not before', async () => {
  const k = key();
  // What a holder that died leaves: its key, nobody renewing (its bucket, its TTL).
  const nc = await connect({ servers: nats.server().url });
  connections.push(nc);
  const kv = await nc.jetstream().views.kv('TEST_LEASES');
  await kv.create(k, new TextEncoder().encode('{"node":"dead"}'));
  const started = Date.now();
  assert.is(await one.acquire(k), null);
  await until(async () => (await one.acquire(k)) !== null, 20_000);
  const took = Date.now() - started;
  assert.ok(took >= TTL - 200, `taken after ${took} ms, before the TTL`);
  await one.holding(k)!.release();
});

s('a release waits for the renewal in flight, so its delete names the current revision', async () => {
  const k = key();
  const lease = await one.acquire(k);
  assert.ok(lease);
  // Frozen server: the renewal due within TTL/3 is sent and waits for its answer.
  await nats.server().pause();
  await sleep(TTL / 3 + 200);
  const released = lease.release();
  nats.server().resume();
  await released;
  // Had the delete named the revision before that renewal, it would have been refused and
  // the key would hold until its TTL.
  assert.ok(await two.acquire(k), 'free at once after the release');
  await two.holding(k)!.release();
});

s('close gives up every lease held', async () => {
  const three = await node('three');
  const [a, b] = [key(), key()];
  assert.ok(await three.acquire(a));
  assert.ok(await three.acquire(b));
  await three.close();
  assert.ok(await two.acquire(a));
  assert.ok(await two.acquire(b));
  await two.close();
  two = await node('two');
});

s('a holder paused past the TTL finds its lease taken, is told, and does not take it back', async () => {
  const k = key();
  const lostWith: string[] = [];
  const lease = await one.acquire(k, { lost: (err) => lostWith.push(err.message) });
  assert.ok(lease);
  // The whole process stands still (as a long GC pause or a stopped VM would): no renewal.
  // Atomics.wait blocks the thread as a busy loop would, without spending a core on it.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, TTL * 2.5);
  // The key lapsed meanwhile: another node takes it, and the holder's overdue renewal
  // (naming its old revision) is refused.
  await until(async () => lostWith.length === 1 && (await two.acquire(k)) !== null, 20_000);
  assert.not.ok(lease.held());
  assert.is(one.holding(k), undefined);
  await lease.release(); // Nothing to give up: the other node's lease stays.
  await sleep(TTL);
  assert.ok(two.holding(k)?.held(), 'the new holder keeps it');
  assert.is(await one.acquire(k), null);
  await two.holding(k)!.release();
});

s('renewals follow the TTL of the bucket as it exists, not the one asked for', async () => {
  // A bucket created with a 1.5 s TTL, opened by a node configured for 60 s: renewing every
  // 20 s would let the lease lapse; every 0.5 s keeps it.
  const first = await node('first', 'TEST_LEASES_SHORT', TTL);
  const later = await node('later', 'TEST_LEASES_SHORT', 60_000);
  assert.is(later.ttlMs, TTL);
  const k = key();
  const lease = await later.acquire(k);
  assert.ok(lease);
  await sleep(TTL * 2);
  assert.is(await first.acquire(k), null, 'still held');
  await later.close();
  await first.close();
});

s.run();
