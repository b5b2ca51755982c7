// The destinations' handover point (src/destinations/runtime/queue.ts): with NATS one node
// runs the destinations consumer for the cluster, and the position it records for a
// successor must reach back to the oldest invocation it still has queued, so losing the
// node loses no delivery; a node taking over forgets what it had queued itself, since its
// predecessor replayed those events.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openDestinationsStore, type DestinationsStore, type QueuedInvocation } from '../../src/destinations/runtime/env.js';
import {
  addPending, appliedKey, dequeue, enqueue, handoverPosition, invocationKey, markDone, pendingFloor, queuedInvocations, readProgress, takeOver, writeProgress,
} from '../../src/destinations/runtime/queue.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('destinations handover');
let dir: string;
let ds: DestinationsStore;
s.before.each(() => { dir = tempDir('hedgerow-handover-'); ds = openDestinationsStore(dir); });
s.after.each(async () => { await ds.close(); rmSync(dir, { recursive: true, force: true }); });

function invocation(eventUuid: string, after: number | undefined): QueuedInvocation {
  return {
    functionId: 'fn', projectId: 1, eventUuid, mappingIndex: 0, instanceId: '', globals: {}, state: null, response: null,
    pendingFetch: null, dueAt: 0, queuedAt: 0, failed: false, ...(after === undefined ? {} : { after }),
  };
}

s('with nothing queued a successor starts at the consumer position', () => {
  assert.is(pendingFloor(ds), null);
  assert.is(handoverPosition(ds, 120), 120);
});

s('the oldest queued invocation holds the handover point back until it is done', async () => {
  const early = invocation('e1', 40);
  const late = invocation('e2', 90);
  await ds.root.transaction(() => {
    enqueue(ds, invocationKey(late), late);
    addPending(ds, 90, 1);
    enqueue(ds, invocationKey(early), early);
    addPending(ds, 40, 1);
  });
  assert.is(pendingFloor(ds), 40);
  assert.is(handoverPosition(ds, 120), 40);
  // Never past the consumer's own position.
  assert.is(handoverPosition(ds, 30), 30);
  await ds.root.transaction(() => markDone(ds, invocationKey(early), early, 'succeeded', 1));
  assert.is(handoverPosition(ds, 120), 90);
  await ds.root.transaction(() => dequeue(ds, invocationKey(late), late));
  assert.is(handoverPosition(ds, 120), 120);
});

s('an invocation queued before the index existed (no `after`) does not hold it back, and leaves cleanly', async () => {
  const old = invocation('e0', undefined);
  await ds.root.transaction(() => enqueue(ds, invocationKey(old), old));
  assert.is(pendingFloor(ds), null);
  await ds.root.transaction(() => markDone(ds, invocationKey(old), old, 'failed', 1));
  assert.is([...queuedInvocations(ds)].length, 0);
});

s('taking over forgets the local queue and rewinds the consumer\'s own record to the recorded position', async () => {
  const a = invocation('e1', 40);
  const b = invocation('e2', 50);
  await ds.root.transaction(() => {
    enqueue(ds, invocationKey(a), a);
    enqueue(ds, invocationKey(b), b);
    addPending(ds, 40, 1);
    addPending(ds, 50, 1);
    ds.meta.put(appliedKey('nats:x'), 300);
    writeProgress(ds, 'nats:x', { seq: 310, index: 4 });
  });
  assert.is(await takeOver(ds, 'nats:x', 75), 2);
  assert.is([...queuedInvocations(ds)].length, 0);
  assert.is(pendingFloor(ds), null);
  // Batches after 75 are applied again, not skipped as already applied, nor in part.
  assert.is(ds.meta.get(appliedKey('nats:x')), 75);
  assert.is(readProgress(ds, 'nats:x'), null);
});

s.run();
