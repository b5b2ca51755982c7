// The deliveries' outcome transactions (src/destinations/runtime/outcome-commits.ts): what a
// turn gathers is one transaction; what comes while it commits waits for the next; each
// entry's next step is taken after the commit, in order; a transaction the store refuses is
// tried again with what came since.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openDestinationsStore, type DestinationsStore, type QueuedInvocation } from '../../src/destinations/runtime/env.js';
import { createOutcomeCommits, type OutcomeCommits } from '../../src/destinations/runtime/outcome-commits.js';
import type { Finished } from '../../src/destinations/runtime/outcomes.js';
import { addPending, enqueue, invocationKey, known, queuedInvocations } from '../../src/destinations/runtime/queue.js';
import { createTelemetry } from '../../src/destinations/runtime/telemetry.js';
import { WATCHER_DEFAULTS } from '../../src/destinations/runtime/watcher.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('destinations outcome commits');
let dir: string;
let ds: DestinationsStore;
s.before.each(() => { dir = tempDir('hedgerow-outcome-commits-'); ds = openDestinationsStore(dir); });
s.after.each(async () => { await ds.close(); rmSync(dir, { recursive: true, force: true }); });

async function queued(n: number): Promise<Finished[]> {
  const all: Finished[] = [];
  await ds.root.transaction(() => {
    for (let i = 0; i < n; i++) {
      const inv: QueuedInvocation = {
        functionId: 'fn', projectId: 1, eventUuid: `e${i}`, mappingIndex: -1, instanceId: `i${i}`, globals: {}, state: null, response: null,
        pendingFetch: null, dueAt: 0, queuedAt: 0, failed: false, after: 10,
      };
      enqueue(ds, invocationKey(inv), inv);
      all.push({ key: invocationKey(inv), inv, unsuccessful: false, cost: 0, epoch: 0 });
    }
    addPending(ds, 10, n);
  });
  return all;
}

// Commits over `store`, recording each entry's step and what the store saw at that moment.
function commitsOver(store: DestinationsStore, errors: unknown[] = []) {
  const steps: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const commits: OutcomeCommits<Finished> = createOutcomeCommits<Finished>({
    ds: store, telemetry: createTelemetry(Date.now), watcher: WATCHER_DEFAULTS, now: Date.now, timers,
    onError: (err) => errors.push(err),
    committed: (f) => steps.push(`${f.inv.eventUuid} done:${known(ds, f.key) && !ds.queue.doesExist(f.key)}`),
  });
  const finish = (f: Finished) => {
    commits.pending().finished.push(f);
    commits.after(f);
  };
  return { commits, steps, finish, timers };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

s('a turn\'s outcomes are one transaction, each entry\'s step taken after its commit, in order', async () => {
  const [a, b, c] = await queued(3);
  const { commits, steps, finish } = commitsOver(ds);
  finish(b);
  finish(a);
  finish(c);
  assert.equal(steps, []);
  await settle();
  assert.equal(steps, ['e1 done:true', 'e0 done:true', 'e2 done:true']);
  // One transaction: one time-index record for the three done marks.
  assert.is(ds.doneByTime.getCount(), 1);
  assert.is([...queuedInvocations(ds)].length, 0);
  assert.is(ds.pendingCounts.getCount(), 0);
  await commits.close();
});

s('what comes while a transaction commits waits for the next one', async () => {
  const [a, b] = await queued(2);
  const { commits, steps, finish } = commitsOver(ds);
  finish(a);
  const first = commits.flush();
  finish(b);
  await first;
  assert.equal(steps, ['e0 done:true']);
  await settle();
  assert.equal(steps, ['e0 done:true', 'e1 done:true']);
  assert.is(ds.doneByTime.getCount(), 2);
  await commits.close();
});

s('a transaction the store refuses is tried again with what came since', async () => {
  const [a, b] = await queued(2);
  let refuse = true;
  const refusing = {
    ...ds,
    root: { transaction: <T>(cb: () => T) => (refuse ? Promise.reject(new Error('MDB_MAP_FULL')) : ds.root.transaction(cb)) },
  } as unknown as DestinationsStore;
  const errors: unknown[] = [];
  const { commits, steps, finish, timers } = commitsOver(refusing, errors);
  finish(a);
  await settle();
  assert.is(errors.length, 1);
  assert.equal(steps, []);
  assert.is(timers.size, 1);
  refuse = false;
  finish(b);
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal(steps, ['e1 done:true', 'e0 done:true']);
  assert.is(timers.size, 0);
  await commits.close();
});

s('close writes what is left after the transaction under way', async () => {
  const [a, b] = await queued(2);
  const { commits, steps, finish } = commitsOver(ds);
  finish(a);
  void commits.flush();
  finish(b);
  await commits.close();
  assert.equal(steps, ['e0 done:true', 'e1 done:true']);
});

s.run();
