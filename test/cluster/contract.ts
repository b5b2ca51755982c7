// The cluster handle's contract (src/cluster/): both implementations pass this one suite,
// the embedded twin (one process: "the other node" is the same one) and NATS (two handles on
// one real nats-server stand for two nodes). Leases (acquire, renew, release, lapse, one
// holder), held keys, node announcements, query statuses, the KV and object-store handles,
// and the asset table as made. Timings are scaled down: a lease lives 1.5 s.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allAssets, isRefused, type Asset, type Cluster, type ClusterTimings, type KvEntry } from '../../src/cluster/index.js';
import { announceNode, listNodes } from '../../src/ops/announce.js';
import { openStatuses } from '../../src/insights/api/kv-statuses.js';
import { eventually } from '../helpers/wait.js';

export const TIMINGS: Partial<ClusterTimings> = {
  claimTtlMs: 1500, exportClaimTtlMs: 1500, nodeTtlMs: 1500, statusHeartbeatMs: 300, statusLostAfterMs: 1500,
};

export interface ClusterImplementation {
  name: string;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  // A node of one cluster with TIMINGS; `other` a second node of the same cluster (embedded:
  // the same handle, as there is one node).
  nodes(): Promise<{ one: Cluster; other: Cluster }>;
  // Whether `asset` is there as the table says, with `replicas` replicas: what is present
  // and, where the implementation has one, its TTL.
  inspect(cluster: Cluster, asset: Asset): Promise<{ present: boolean; ttlMs?: number; replicas?: number }>;
  // The assets the implementation keeps (embedded: the KV buckets and the object stores kept in memory).
  keeps(asset: Asset): boolean;
  replicas: number;
  close(): Promise<void>;
}

const TTL = 1500;
// Time passing is what the lease tests are about: a TTL going by.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = new TextEncoder();
const fromText = new TextDecoder();
let keys = 0;
const key = () => `contract-${process.pid}-${++keys}`;

export function runClusterContract(impl: ClusterImplementation): void {
  const s = suite(`cluster handle contract: ${impl.name}`);
  if (impl.setup) s.before(impl.setup);
  s.after.each(() => impl.close());
  if (impl.teardown) s.after(impl.teardown);

  s('a lease is held by one node at a time, renewed past its TTL, free at once when released', async () => {
    const { one, other } = await impl.nodes();
    const [a, b] = [await one.leases('claims'), await other.leases('claims')];
    assert.is(a.ttlMs, TTL);
    const k = key();
    const lease = await a.acquire(k);
    assert.ok(lease);
    assert.is(await b.acquire(k), null);
    assert.is(await a.acquire(k), null, 'not twice by one holder');
    assert.is(a.holding(k), lease);
    await sleep(TTL * 2);
    assert.ok(lease.held(), 'renewed');
    assert.is(await b.acquire(k), null, 'still held past its TTL');
    await lease.release();
    assert.not.ok(lease.held());
    const next = await b.acquire(k);
    assert.ok(next, 'free at once after the release');
    await next.release();
    const raced = key();
    const both = await Promise.all([a.acquire(raced), b.acquire(raced)]);
    assert.is(both.filter((l) => l !== null).length, 1, 'asked at once: one gets it');
  });

  s('a holder that stops renewing loses its lease at the TTL: told so, and another takes it', async () => {
    const { one, other } = await impl.nodes();
    const [a, b] = [await one.leases('claims'), await other.leases('claims')];
    const k = key();
    const lost: string[] = [];
    const lease = await a.acquire(k, { lost: (err) => lost.push(err.message) });
    assert.ok(lease);
    // The holder's process stands still (a long pause): no renewal. Atomics.wait blocks this
    // thread as a busy loop would (no timer or socket is served meanwhile) without spending a
    // core for the whole pause.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, TTL * 2.5);
    await eventually(async () => lost.length === 1 && (await b.acquire(k)) !== null, 20_000);
    assert.not.ok(lease.held());
    await lease.release(); // Nothing to give up: the new holder keeps it.
    assert.ok(b.holding(k)?.held());
    await b.holding(k)!.release();
  });

  s('a held key is renewed with its value and read live; abandoned, it lapses; another writer\'s write ends it', async () => {
    const { one, other } = await impl.nodes();
    const [a, b] = [await one.leases('queryStatuses', { ttlMs: TTL, renewMs: TTL / 5 }), await other.kv('queryStatuses')];
    const k = key();
    let n = 0;
    const lost: string[] = [];
    const lease = await a.hold(k, { value: () => text.encode(String(++n)), lost: (err) => lost.push(err.message) });
    await sleep(TTL * 1.5);
    const seen = await b.get(k);
    assert.ok(seen && a.live(seen));
    assert.ok(Number(fromText.decode(seen.value)) > 1, 'rewritten at each renewal');
    // Another writer writes the key against the revision it read: the holder's next renewal is
    // refused. (A renewal landing between its read and its write refuses the writer instead:
    // it reads again, as a writer would.)
    await eventually(async () => b.update(k, text.encode('cancelled'), (await b.get(k))!.revision).then(() => true, () => false), 10_000);
    await eventually(async () => lost.length === 1, 10_000);
    assert.not.ok(lease.held());
    assert.is(fromText.decode((await b.get(k))!.value), 'cancelled');
    // Abandoned, a held key is left as it was and reads as lapsed once the TTL has passed.
    const k2 = key();
    const left = await a.hold(k2, {});
    left.abandon();
    await sleep(TTL + 200);
    const stale = await b.get(k2);
    assert.ok(stale && !a.live(stale));
  });

  s('node announcements: each process listed with what it says of itself, rewritten while it lives, gone once closed', async () => {
    const { one, other } = await impl.nodes();
    const name = key();
    let ready = false;
    const announced = await announceNode(one, {
      name, role: 'serve', listen: '127.0.0.1:1',
      state: () => ({ consumers: [{ name: 'event_store', position: 3 }], control: null, ready, claims: ['destinations'] }),
    });
    const mine = async () => (await listNodes(other)).find((n) => n.name === name);
    const first = await mine();
    assert.ok(first);
    assert.equal([first.role, first.pid, first.listen, first.ready, first.claims, first.consumers[0].position], ['serve', process.pid, '127.0.0.1:1', false, ['destinations'], 3]);
    ready = true;
    await eventually(async () => (await mine())?.ready === true, 10_000);
    await announced.close();
    assert.is(await mine(), undefined);
  });

  s('query statuses: running on one node read on the other, lost once the runner stops renewing', async () => {
    const { one, other } = await impl.nodes();
    const [runner, reader] = [await openStatuses(one), one === other ? null : await openStatuses(other)];
    const peer = reader ?? runner;
    try {
      const id = key();
      await runner.start(1, id, null, Date.now());
      await sleep(TTL * 1.5);
      assert.equal([(await peer.get(1, id, Date.now()))?.complete], [false], 'renewed: still running');
      // What a runner that died leaves: its status, no longer renewed.
      await runner.close();
      const lost = await eventually(async () => { const st = await peer.get(1, id, Date.now()); return st?.complete ? st : null; }, 20_000);
      assert.equal([lost.error, lost.error_message], [true, 'Query calculation lost: the node running it stopped (no heartbeat)']);
    } finally {
      await runner.close();
      await reader?.close();
    }
  });

  s('a KV handle: revisions, refused creates and updates, deletes naming a revision, keys, watches', async () => {
    const { one, other } = await impl.nodes();
    const [a, b] = [await one.kv('claimPositions'), await other.kv('claimPositions')];
    const k = key();
    const r1 = await a.create(k, text.encode('1'));
    const refusedCreate = await b.create(k, text.encode('x')).then(() => null, (e: unknown) => e);
    assert.ok(isRefused(refusedCreate), 'create refused while the key exists');
    const refusedUpdate = await b.update(k, text.encode('x'), r1 + 100).then(() => null, (e: unknown) => e);
    assert.ok(isRefused(refusedUpdate), 'update refused unless it names the revision held');
    const r2 = await b.update(k, text.encode('2'), r1);
    assert.ok(r2 > r1);
    const got = (await a.get(k))!;
    assert.equal([got.key, fromText.decode(got.value), got.revision, got.operation], [k, '2', r2, 'PUT']);
    assert.ok(Math.abs(got.created.getTime() - Date.now()) < 5000);
    const listed: string[] = [];
    for await (const x of await a.keys()) listed.push(x);
    assert.ok(listed.includes(k));
    const watch = await a.watch({ updatesOnly: true });
    const seen: KvEntry[] = [];
    const watching = (async () => { for await (const e of watch) { if (e.key === k) seen.push(e); if (seen.length === 2) break; } })();
    const r3 = await b.put(k, text.encode('3'));
    const refusedDelete = await b.delete(k, { previousSeq: r2 }).then(() => null, (e: unknown) => e);
    assert.ok(isRefused(refusedDelete), 'delete refused naming an old revision');
    await b.delete(k, { previousSeq: r3 });
    await watching;
    watch.stop();
    assert.equal(seen.map((e) => [e.revision === r3, e.operation]), [[true, 'PUT'], [false, 'DEL']]);
    assert.is((await a.get(k))?.operation ?? 'DEL', 'DEL');
    assert.ok(await a.create(k, text.encode('again')), 'created again once deleted');
  });

  s('an object store handle: put, read, listed, deleted', async () => {
    const { one, other } = await impl.nodes();
    const [a, b] = [await one.objects('queryResults'), await other.objects('queryResults')];
    assert.ok(a && b);
    const name = key();
    const bytes = text.encode('x'.repeat(300_000));
    const put = await a.putBlob({ name }, bytes);
    assert.is(put.size, bytes.length);
    assert.equal(await b.getBlob(name), bytes);
    assert.equal([(await b.info(name))?.size, (await b.list()).some((o) => o.name === name && !o.deleted)], [bytes.length, true]);
    await b.delete(name);
    assert.is(await a.getBlob(name), null);
  });

  s('every asset of the table is made as the table says, with the replicas asked for', async () => {
    const { one } = await impl.nodes();
    for (const asset of allAssets(one.assets)) {
      const seen = await impl.inspect(one, asset);
      assert.is(seen.present, impl.keeps(asset), `${asset.kind} ${asset.name}`);
      if (!seen.present) continue;
      if (seen.ttlMs !== undefined && asset.kind !== 'stream') assert.is(seen.ttlMs, asset.ttlMs, `${asset.name}'s TTL`);
      if (seen.replicas !== undefined) assert.is(seen.replicas, impl.replicas, `${asset.name}'s replicas`);
    }
    assert.is(one.assets.kv.claims.ttlMs, TTL, 'the claims TTL is the timings\'');
  });

  s.run();
}
