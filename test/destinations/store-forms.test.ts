// The destinations store's compact records (docs/decisions/0062): the queue counted per log
// position instead of an index entry per invocation, and the done marks' time index one
// record per transaction instead of one per mark; and a store written in the old forms
// (its records written here by hand, as the previous version wrote them) read by this code.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database } from 'lmdb';
import { openDestinationsStore, type DestinationsStore, type QueuedInvocation } from '../../src/destinations/runtime/env.js';
import {
  addPending, DONE_RETENTION_MS, dequeueAll, enqueue, handoverPosition, invocationKey, known, markDone, pendingFloor, pruneDone,
  queuedInvocations, recordDone, takeOver, type InvocationKey,
} from '../../src/destinations/runtime/queue.js';
import { upgradeOldForms } from '../../src/destinations/runtime/old-forms.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('destinations store forms');
let dir: string;
let ds: DestinationsStore;
s.before.each(() => { dir = tempDir('hedgerow-store-forms-'); ds = openDestinationsStore(dir); });
s.after.each(async () => { await ds.close(); rmSync(dir, { recursive: true, force: true }); });

function invocation(fn: string, eventUuid: string, after: number | undefined): QueuedInvocation {
  return {
    functionId: fn, projectId: 1, eventUuid, mappingIndex: -1, instanceId: '', globals: {}, state: null, response: null,
    pendingFetch: null, dueAt: 0, queuedAt: 0, failed: false, ...(after === undefined ? {} : { after }),
  };
}
const entry = (inv: QueuedInvocation) => ({ key: invocationKey(inv), inv });
const counts = () => [...ds.pendingCounts.getRange()].map(({ key, value }) => [key, value]);

// The previous version's records, written with lmdb directly into the store's file (the store closed meanwhile).
type Key = [string, string, number];
interface OldForm {
  queue: Database<QueuedInvocation, Key>;
  pendingByAfter: Database<null, [number, ...Key]>;
  done: Database<{ at: number; outcome: string }, Key>;
  doneByTime: Database<null, [number, ...Key]>;
}
async function writeOldForm(write: (db: OldForm) => void): Promise<void> {
  await ds.close();
  const root = open({ path: join(dir, 'destinations.lmdb'), maxDbs: 16 });
  const dbs: OldForm = {
    queue: root.openDB({ name: 'queue', ...({ useRecords: false } as object) }),
    pendingByAfter: root.openDB({ name: 'pending_by_after' }),
    done: root.openDB({ name: 'done' }),
    doneByTime: root.openDB({ name: 'done_by_time' }),
  };
  await root.transaction(() => write(dbs));
  await root.close();
  ds = openDestinationsStore(dir);
  // As the node and its consumer both do when they start, in either order.
  await Promise.all([upgradeOldForms(ds), upgradeOldForms(ds)]);
}

s('a chunk\'s invocations are one count at their position; the floor moves once the last of a position leaves', async () => {
  const first = [0, 1, 2].map((n) => invocation('fn', `e${n}`, 40));
  const second = [3, 4].map((n) => invocation('fn', `e${n}`, 90));
  await ds.root.transaction(() => {
    for (const inv of first) enqueue(ds, invocationKey(inv), inv);
    addPending(ds, 40, first.length);
  });
  await ds.root.transaction(() => {
    for (const inv of second) enqueue(ds, invocationKey(inv), inv);
    addPending(ds, 90, second.length);
  });
  assert.equal(counts(), [[40, 3], [90, 2]]);
  assert.is(pendingFloor(ds), 40);
  // Two of the first and one of the second leave together; then the first's last.
  await ds.root.transaction(() => dequeueAll(ds, [entry(first[0]), entry(second[0]), entry(first[1])]));
  assert.equal(counts(), [[40, 1], [90, 1]]);
  assert.is(handoverPosition(ds, 120), 40);
  await ds.root.transaction(() => markDone(ds, invocationKey(first[2]), first[2], 'succeeded', 1));
  assert.equal(counts(), [[90, 1]]);
  assert.is(handoverPosition(ds, 120), 90);
  await ds.root.transaction(() => dequeueAll(ds, [entry(second[1])]));
  assert.equal(counts(), []);
  assert.is(pendingFloor(ds), null);
});

s('an invocation no longer queued is not counted out again', async () => {
  const a = invocation('fn', 'e1', 40);
  const b = invocation('fn', 'e2', 40);
  await ds.root.transaction(() => {
    enqueue(ds, invocationKey(a), a);
    enqueue(ds, invocationKey(b), b);
    addPending(ds, 40, 2);
  });
  await ds.root.transaction(() => dequeueAll(ds, [entry(a)]));
  // Dropped twice (in one transaction and in another): b still holds the floor.
  await ds.root.transaction(() => dequeueAll(ds, [entry(a), entry(a)]));
  assert.equal(counts(), [[40, 1]]);
  assert.is(pendingFloor(ds), 40);
});

s('outcomes written in two parts of one transaction (dropped, then finished) each count theirs out', async () => {
  const invs = [0, 1, 2].map((n) => invocation('fn', `e${n}`, 40));
  await ds.root.transaction(() => {
    for (const inv of invs) enqueue(ds, invocationKey(inv), inv);
    addPending(ds, 40, invs.length);
  });
  await ds.root.transaction(() => {
    dequeueAll(ds, [entry(invs[0])]);
    dequeueAll(ds, [entry(invs[1])]);
  });
  assert.equal(counts(), [[40, 1]]);
});

s('the done marks of one transaction are one time-index record, pruned together after the retention', async () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  const old = now - DONE_RETENTION_MS - 1000;
  const keys: InvocationKey[] = [['a', 'e1', -1], ['b', 'e1', -1], ['a', 'e2', 0]];
  await ds.root.transaction(() => recordDone(ds, keys.map((key, i) => ({ key, unsuccessful: i === 1 })), old));
  const recent: InvocationKey = ['a', 'e3', -1];
  await ds.root.transaction(() => recordDone(ds, [{ key: recent, unsuccessful: false }], now));
  assert.is(ds.doneByTime.getCount(), 2);
  assert.equal(ds.done.get(['b', 'e1', -1]), { at: old, outcome: 'failed' });
  assert.equal(ds.done.get(['a', 'e2', 0]), { at: old, outcome: 'succeeded' });
  for (const key of [...keys, recent]) assert.ok(known(ds, key));
  assert.is(await pruneDone(ds, now), 3);
  for (const key of keys) assert.not.ok(known(ds, key), `${key.join(' ')} pruned`);
  assert.ok(known(ds, recent));
  assert.is(ds.doneByTime.getCount(), 1);
});

s('a store of the old form: its index entries become counts at open, and its queue drains and hands over as before', async () => {
  const invs = [invocation('fn', 'e1', 40), invocation('fn', 'e2', 40), invocation('other', 'e1', 70), invocation('fn', 'e0', undefined)];
  await writeOldForm(({ queue, pendingByAfter }) => {
    for (const inv of invs) {
      const key = invocationKey(inv);
      queue.put(key, inv);
      if (inv.after !== undefined) pendingByAfter.put([inv.after, ...key], null);
    }
  });
  assert.equal(counts(), [[40, 2], [70, 1]]);
  assert.is(handoverPosition(ds, 120), 40);
  // The old index is gone: a second start (or the other thread's) counts nothing twice.
  await ds.close();
  ds = openDestinationsStore(dir);
  await upgradeOldForms(ds);
  assert.equal(counts(), [[40, 2], [70, 1]]);
  assert.is([...queuedInvocations(ds)].length, 4);
  // New invocations queue beside them, at a position of their own and at one of theirs.
  const later = invocation('fn', 'e9', 70);
  await ds.root.transaction(() => {
    enqueue(ds, invocationKey(later), later);
    addPending(ds, 70, 1);
  });
  await ds.root.transaction(() => dequeueAll(ds, [entry(invs[0]), entry(invs[1]), entry(invs[3])]));
  assert.equal(counts(), [[70, 2]]);
  assert.is(handoverPosition(ds, 120), 70);
  assert.is(await takeOver(ds, 'lmdb', 10), 2);
  assert.equal(counts(), []);
  assert.is(handoverPosition(ds, 120), 120);
});

s('a store of the old form: its done marks, one time-index record each, still dedup and are pruned with the new ones', async () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  const old = now - DONE_RETENTION_MS - 1000;
  const oldKeys: InvocationKey[] = [['a', 'e1', -1], ['b', 'e1', -1], ['a', 'e2', -1]];
  await writeOldForm(({ done, doneByTime }) => {
    for (const [i, key] of oldKeys.entries()) {
      const at = i === 2 ? now : old;
      done.put(key, { at, outcome: 'succeeded' });
      doneByTime.put([at, ...key], null);
    }
  });
  for (const key of oldKeys) assert.ok(known(ds, key));
  const newKeys: InvocationKey[] = [['a', 'e3', -1], ['b', 'e3', -1]];
  await ds.root.transaction(() => recordDone(ds, newKeys.map((key) => ({ key, unsuccessful: false })), old + 1));
  assert.is(await pruneDone(ds, now), 4);
  assert.equal([...ds.done.getKeys()], [['a', 'e2', -1]]);
  assert.is(ds.doneByTime.getCount(), 1);
});

s.run();
