// Snapshots against a real nats-server (src/snapshots/): a copy of a data dir's main
// environment put in JetStream with the positions it holds, restored into an empty data
// dir with the node-local records reset, refused once the streams no longer hold what
// follows it; the control stream compacted behind the kept snapshots, unless it was made
// with deny_purge; a data dir left behind a compaction refused with a clear message; a
// join that cannot catch up after its restore tried three times, then the data dir emptied.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect, DiscardPolicy, RetentionPolicy, StorageType, type NatsConnection } from 'nats';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { CONTROL_STREAM, controlPositionKey, controlStreamId, controlSubject } from '../../src/state/control-stream.js';
import { natsLogId, STREAM, SUBJECT } from '../../src/log/nats-stream.js';
import { ControlBehindError } from '../../src/state/index.js';
import { overNats, type StreamKey } from '../../src/cluster/index.js';
import { restoreSnapshot, snapshotsClient, type SnapshotsClient } from '../../src/snapshots/index.js';
import { clusterHandles, natsWrites } from '../helpers/cluster-handle.js';
import { takeSnapshot } from '../../src/snapshots/take.js';
import { compact } from '../../src/snapshots/compact.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { tempDir } from '../helpers/temp-dir.js';
import { cliRunWith } from '../helpers/cli-server.js';

const s = suite('snapshots: take, restore, compact');
const nats = natsServerForSuite();
const handles = clusterHandles();
let nc: NatsConnection;
let client: SnapshotsClient;
let dirs: string[] = [];
const EVENT_STORE = 'event_store';

s.before(async () => {
  await nats.start();
  nc = await connect({ servers: nats.server().url });
  // A command's handle: it makes the assets it uses, not all of them at once (a test makes
  // the control stream its own way first).
  client = await snapshotsClient(await handles.open(nats.server().url, { role: 'command' }));
});
s.after(async () => {
  await handles.closeAll();
  await nc?.close();
  await nats.close();
});

// Makes a stream of the asset table as a node would when it is missing (a handle of its own:
// a handle made once is not made again, and these tests delete streams).
async function ensure(stream: StreamKey): Promise<void> {
  const cluster = await handles.open(nats.server().url, { role: 'command' });
  if (overNats(cluster)) await cluster.jetstream.stream(stream);
  await handles.close(cluster);
}
s.after.each(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

const dir = () => { const d = tempDir('hedgerow-snap-'); dirs.push(d); return d; };
const publish = async (subject: string, n: number) => { for (let i = 0; i < n; i++) await nc.jetstream().publish(subject, new Uint8Array([i])); };
const ids = async () => {
  const jsm = await nc.jetstreamManager();
  return { control: controlStreamId(await jsm.streams.info(CONTROL_STREAM)), events: natsLogId(await jsm.streams.info(STREAM)) };
};
const removeAll = async () => { for (const m of await client.list()) await client.remove(m.name); };

// A node's data dir that has applied `control` commands and `events` event records, with
// records of every kind the restore keeps or resets.
async function nodeStore(control: number, events: number): Promise<Store> {
  const { control: controlId, events: eventsId } = await ids();
  const store = openStore(dir(), tables);
  await store.root.transaction(() => {
    store.positions.put(controlPositionKey(controlId), control);
    store.positions.put(`${EVENT_STORE}@${eventsId}`, events);
    store.positions.put(`destinations@${eventsId}`, events - 1);
    store.positions.put('insights', 7);
    store.tenancy.put(['project', 1], { name: 'kept' });
    store.ingestionWarnings.put([1, 1, 'u', 0], { type: 'kept' } as never);
    store.deadLetters.put([eventsId, 1], { error: 'x', quarantined_at: '2026-11-27T00:00:00Z', record: null });
    store.insightCache.put('q', { result: 1 });
  });
  return store;
}

s('a stream made with deny_purge (an older cluster) is never compacted, and the compaction says so', async () => {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({
    name: CONTROL_STREAM, subjects: [controlSubject(CONTROL_STREAM)], storage: StorageType.File, retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.New, deny_delete: true, deny_purge: true,
  });
  await ensure('events');
  await publish(controlSubject(CONTROL_STREAM), 5);
  const store = await nodeStore(3, 0);
  try {
    const meta = await takeSnapshot({ store, client, eventStore: EVENT_STORE, node: 'test' });
    assert.is(meta.control.seq, 3);
    const done = await compact(client, 1);
    assert.is(done.purge, 'denied by the stream (deny_purge)');
    assert.is((await jsm.streams.info(CONTROL_STREAM)).state.first_seq, 1);
  } finally {
    await store.close();
    await jsm.streams.delete(CONTROL_STREAM);
    await removeAll();
  }
});

s('a snapshot carries the state and both positions; restored into an empty data dir with node-local records reset', async () => {
  await ensure('control');
  await publish(controlSubject(CONTROL_STREAM), 4);
  await publish(SUBJECT, 3);
  const { control, events } = await ids();
  const source = await nodeStore(4, 3);
  try {
    const meta = await takeSnapshot({ store: source, client, eventStore: EVENT_STORE, node: 'test' });
    assert.equal([meta.control, meta.events], [{ stream: control, seq: 4 }, { log: events, position: 3 }]);
    assert.ok(meta.size > 0);
    assert.equal((await client.list()).map((m) => m.name), [meta.name]);
    // The copy is made under the data dir and removed after.
    assert.equal(readdirSync(join(source.path, '..')).filter((f) => f.startsWith('snapshot-')), []);
  } finally {
    await source.close();
  }
  const target = dir();
  const restored = await restoreSnapshot({ dataDir: target, client, eventStore: EVENT_STORE });
  assert.ok(restored);
  assert.ok(existsSync(join(target, 'hedgerow.lmdb')));
  assert.not.ok(existsSync(join(target, 'restoring')));
  const store = openStore(target, tables);
  try {
    assert.equal([...store.positions.getRange()].map(({ key, value }) => [key, value]).sort(),
      [[`${EVENT_STORE}@${events}`, 3], [controlPositionKey(control), 4]].sort());
    assert.equal(store.tenancy.get(['project', 1]), { name: 'kept' });
    assert.equal(store.ingestionWarnings.get([1, 1, 'u', 0]), { type: 'kept' });
    assert.is(store.deadLetters.getCount(), 0);
    assert.is(store.insightCache.getCount(), 0);
  } finally {
    await store.close();
  }
  // A data dir that holds a node's state is never overwritten.
  assert.is(await restoreSnapshot({ dataDir: target, client, eventStore: EVENT_STORE }), null);
});

s('compaction purges the control stream through the oldest kept snapshot; a data dir behind it is told to rejoin', async () => {
  const jsm = await nc.jetstreamManager();
  const behind = await nodeStore(2, 3);
  const source = await nodeStore(6, 3);
  await publish(controlSubject(CONTROL_STREAM), 2);
  try {
    await takeSnapshot({ store: source, client, eventStore: EVENT_STORE, node: 'test' });
    const done = await compact(client, 1);
    assert.equal([done.purge, done.controlFirst, done.kept.length, done.removed.length], ['purged', 7, 1, 1]);
    assert.is((await jsm.streams.info(CONTROL_STREAM)).state.first_seq, 7);
    let refused: unknown = null;
    await natsWrites(nats.server().url, { store: behind, specs: [] }).then((w) => w.close(), (err) => { refused = err; });
    assert.instance(refused, ControlBehindError);
    assert.match((refused as Error).message, /starts at 7 .*applied only through 2.*Rejoin from a snapshot.*empty its data dir/);
    // A data dir at the snapshot's sequence follows on.
    const w = await natsWrites(nats.server().url, { store: source, specs: [] });
    await w.caughtUp();
    assert.is(w.applied(), 6);
    await w.close();
  } finally {
    await behind.close();
    await source.close();
  }
  // Still restorable; no longer once the event stream lost a record after its position.
  assert.ok(await restoreSnapshot({ dataDir: dir(), client, eventStore: EVENT_STORE }));
  await jsm.streams.purge(STREAM);
  assert.ok(await restoreSnapshot({ dataDir: dir(), client, eventStore: EVENT_STORE }), 'events held through its position: none lost');
  await publish(SUBJECT, 1);
  await jsm.streams.purge(STREAM);
  const empty = dir();
  assert.is(await restoreSnapshot({ dataDir: empty, client, eventStore: EVENT_STORE }), null);
  assert.not.ok(existsSync(join(empty, 'hedgerow.lmdb')));
});

s('a node joining an empty data dir that cannot catch up after the restore tries again, then stops and leaves the data dir empty', async () => {
  // A snapshot whose metadata claims a sequence its copy has not applied: usable by the
  // streams' positions, behind the compaction once restored (what a join overtaken by
  // compactions at every attempt meets).
  const { control, events } = await ids();
  const stale = await nodeStore(2, 0);
  const copyDir = dir();
  await stale.root.backup(join(copyDir, 'hedgerow.lmdb'), true);
  await stale.close();
  const first = (await (await nc.jetstreamManager()).streams.info(CONTROL_STREAM)).state.first_seq;
  const eventsFirst = (await (await nc.jetstreamManager()).streams.info(STREAM)).state.first_seq;
  await client.put(join(copyDir, 'hedgerow.lmdb'), {
    name: 'stale', format: 1, created: new Date(Date.now() + 60_000).toISOString(), control: { stream: control, seq: first - 1 },
    events: { log: events, position: eventsFirst - 1 }, node: 'test', took_ms: 0,
  });
  const target = dir();
  try {
    const r = await cliRunWith({ NATS_URL: nats.server().url }, target, 'serve', '--port', '0', '--host', '127.0.0.1');
    assert.is(r.code, 1);
    assert.match(r.stderr, /applied only through 2: it cannot catch up by replay\. Rejoin from a snapshot/);
    // Three attempts, each restoring anew.
    const said = (msg: string) => r.stdout.split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).length;
    assert.equal([said('restored snapshot'), said('the control stream was compacted while this node joined: restoring again')], [3, 2], r.stdout);
    assert.not.ok(existsSync(join(target, 'hedgerow.lmdb')), 'the data dir is left as it was found');
  } finally {
    await client.remove('stale');
  }
});

s.run();
