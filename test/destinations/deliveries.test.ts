// The deliveries loop's bounds (issue 16, item 3): a slow endpoint holds up only its own
// function. Its invocations in flight are capped, so are those it holds in memory (the rest
// wait in the store's queue and are read back as it catches up), and the queue as a whole
// keeps taking the other functions' invocations, which are delivered meanwhile. Run here
// with small bounds, a fetch that holds one function's requests, and the Hog program run in
// this thread; end to end over HTTP in pipeline.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { compileProgram, initHog } from '../../src/hog/index.js';
import { openDestinationsStore, type DestinationsStore, type QueuedInvocation } from '../../src/destinations/runtime/env.js';
import { createDeliveries, type Deliveries } from '../../src/destinations/runtime/deliveries.js';
import type { FunctionCache } from '../../src/destinations/runtime/function-cache.js';
import { runInvocationSlice } from '../../src/destinations/runtime/run-slice.js';
import { invocationKey, queuedInvocations, type InvocationKey } from '../../src/destinations/runtime/queue.js';
import { WATCHER_DEFAULTS } from '../../src/destinations/runtime/watcher.js';
import type { HogExecTasks } from '../../src/destinations/tasks.js';
import type { StoredHogFunction } from '../../src/destinations/types.js';
import type { TaskRunner } from '../../src/pools/index.js';
import type { FetchOutcome, FetchRequest } from '../../src/destinations/fetch/http-fetch.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('destinations: one slow endpoint holds up only its own function');
let dir: string;
let ds: DestinationsStore;
let bytecode: unknown[];

s.before(async () => {
  await initHog();
  const program = compileProgram("let res := fetch(inputs.url, {'method': 'POST'})\nif (res.status >= 300) { throw Error('failed') }", { functions: ['fetch'] });
  if (!program.ok) throw new Error(program.error.message);
  bytecode = program.bytecode;
});
s.before.each(() => {
  dir = tempDir('hedgerow-deliveries-');
  ds = openDestinationsStore(dir);
});
s.after.each(async () => {
  await ds.close();
  rmSync(dir, { recursive: true, force: true });
});

const fn = (id: string) => ({
  id, project_id: 1, enabled: true, deleted: false, bytecode, secret_inputs: {}, watcher_epoch: 0,
} as unknown as StoredHogFunction);
const functions: FunctionCache = { active: () => [], find: (_p, id) => fn(id), transforms: () => false };
const pool: TaskRunner<HogExecTasks> = {
  run: async (kind, input) => {
    if (kind !== 'continue') throw new Error(`unexpected task ${kind}`);
    return runInvocationSlice(input as Parameters<typeof runInvocationSlice>[0]) as never;
  },
};

function invocation(functionId: string, n: number): QueuedInvocation {
  const uuid = `0193a7a0-0000-7000-8000-${String(n).padStart(12, '0')}`;
  return {
    functionId, projectId: 1, eventUuid: uuid, mappingIndex: -1, instanceId: `i-${functionId}-${n}`,
    globals: { event: { uuid }, inputs: { url: `http://${functionId}.test/${n}` } },
    state: null, response: null, pendingFetch: null, dueAt: 0, queuedAt: 0, failed: false,
  };
}

// What the consumer does with a batch: the invocations into the store's queue in one
// transaction, then handed to the deliveries.
async function queue(d: Deliveries, invs: QueuedInvocation[]): Promise<void> {
  const keys: InvocationKey[] = invs.map((inv) => invocationKey(inv));
  await ds.root.transaction(() => { invs.forEach((inv, i) => ds.queue.put(keys[i], inv)); });
  invs.forEach((inv, i) => d.add(keys[i], inv));
}

// A poll's pause (the deliveries run on timers and promises of their own).
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await settle(5);
  }
}

s('the slow function keeps at most its share in flight and in memory, the others are delivered meanwhile, and then it catches up exactly once', async () => {
  const calls = new Map<string, number>();
  const held: (() => void)[] = [];
  let slowInFlight = 0;
  let slowInFlightMax = 0;
  const fetch = (request: FetchRequest): Promise<FetchOutcome> => {
    calls.set(request.url, (calls.get(request.url) ?? 0) + 1);
    if (!request.url.startsWith('http://slow.test/')) return Promise.resolve({ ok: true, status: 200, body: {} });
    slowInFlight++;
    slowInFlightMax = Math.max(slowInFlightMax, slowInFlight);
    return new Promise((resolve) => held.push(() => {
      slowInFlight--;
      resolve({ ok: true, status: 200, body: {} });
    }));
  };
  let inMemoryMax = 0;
  const d = createDeliveries({
    ds, functions, pool, fetch, now: Date.now, random: () => 0, onError: (err) => { throw err; },
    settings: { perFunction: 2, degradedPerFunction: 1, heldPerFunction: 6, maxInMemory: 100, watcher: WATCHER_DEFAULTS },
  });
  const probe = setInterval(() => { inMemoryMax = Math.max(inMemoryMax, d.inMemory()); }, 1);
  try {
    // Batches as the consumer records them: each event matches both functions.
    for (let b = 0; b < 5; b++) {
      const batch: QueuedInvocation[] = [];
      for (let n = b * 8; n < (b + 1) * 8; n++) batch.push(invocation('slow', n), invocation('fast', n));
      await queue(d, batch);
      await d.whenBelow(1000);
    }
    // Every fast delivery made while the slow endpoint answers nothing.
    await until(() => [...calls.keys()].filter((u) => u.startsWith('http://fast.test/')).length === 40);
    await until(() => d.held() === 40);
    assert.is(ds.done.getCount(), 40);
    assert.is(slowInFlight, 2);
    assert.is(held.length, 2);
    // The slow function's share in memory; the rest waits in the store.
    assert.is(d.inMemory(), 6);
    assert.is([...queuedInvocations(ds)].length, 40);

    // The endpoint answers: the slow function's queue is read back and delivered, each once.
    while (ds.done.getCount() < 80) {
      if (held.length > 0) held.shift()!();
      await settle(1);
    }
    await d.idle();
    assert.is(d.held(), 0);
    assert.is(d.inMemory(), 0);
    assert.is([...queuedInvocations(ds)].length, 0);
    assert.is(calls.size, 80);
    assert.equal([...calls.values()].filter((c) => c !== 1), []);
    assert.is(slowInFlightMax, 2);
    assert.ok(inMemoryMax <= 6 + 8, `at most the slow share and one batch of the other in memory (${inMemoryMax})`);
  } finally {
    clearInterval(probe);
    await d.close();
  }
});

s('an invocation read back from the store before the consumer hands it over runs once', async () => {
  const calls: string[] = [];
  const gate: (() => void)[] = [];
  const fetch = (request: FetchRequest): Promise<FetchOutcome> => {
    calls.push(request.url);
    return new Promise((resolve) => gate.push(() => resolve({ ok: true, status: 200, body: {} })));
  };
  const d = createDeliveries({
    ds, functions, pool, fetch, now: Date.now, random: () => 0, onError: (err) => { throw err; },
    settings: { perFunction: 1, degradedPerFunction: 1, heldPerFunction: 2, maxInMemory: 100, watcher: WATCHER_DEFAULTS },
  });
  try {
    await queue(d, [0, 1, 2, 3].map((n) => invocation('a', n)));
    await until(() => gate.length === 1);
    assert.is(d.held(), 4);
    assert.is(d.inMemory(), 2);
    // Committed to the store, not yet handed over (the consumer awaits its commit in between).
    const late = [4, 5].map((n) => invocation('a', n));
    await ds.root.transaction(() => { for (const inv of late) ds.queue.put(invocationKey(inv), inv); });
    // Reading back finds them too: all six are delivered.
    const end = Date.now() + 5000;
    while (ds.done.getCount() < 6 && Date.now() < end) {
      if (gate.length > 0) gate.shift()!();
      await settle(2);
    }
    assert.is(ds.done.getCount(), 6);
    // The late hand-over of invocations already delivered (or held) does nothing.
    for (const inv of late) d.add(invocationKey(inv), inv);
    // Idle: nothing is held, so nothing more can be fetched.
    await d.idle();
    assert.is(calls.length, 6);
    assert.is(new Set(calls).size, 6);
    assert.is(d.held(), 0);
  } finally {
    await d.close();
  }
});

s('under churn (three functions, answers in random order, small bounds, the consumer held back by the queue) each invocation runs once', async () => {
  const calls = new Map<string, number>();
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const fetch = (request: FetchRequest): Promise<FetchOutcome> => {
    calls.set(request.url, (calls.get(request.url) ?? 0) + 1);
    return new Promise((resolve) => setTimeout(() => resolve({ ok: true, status: 200, body: {} }), Math.floor(random() * 4)));
  };
  const d = createDeliveries({
    ds, functions, pool, fetch, now: Date.now, random: () => 0, onError: (err) => { throw err; },
    settings: { perFunction: 3, degradedPerFunction: 1, heldPerFunction: 5, maxInMemory: 12, watcher: WATCHER_DEFAULTS },
  });
  try {
    let n = 0;
    for (let b = 0; b < 30; b++) {
      const batch: QueuedInvocation[] = [];
      for (let i = 0; i < 10; i++, n++) for (const id of ['a', 'b', 'c']) batch.push(invocation(id, n));
      await queue(d, batch);
      assert.ok(d.inMemory() <= 12, `in memory: ${d.inMemory()}`);
      await d.whenBelow(60);
    }
    await d.idle();
    assert.is(ds.done.getCount(), 900);
    assert.is(calls.size, 900);
    assert.equal([...calls.entries()].filter(([, c]) => c !== 1), []);
    assert.is([...queuedInvocations(ds)].length, 0);
  } finally {
    await d.close();
  }
});

s.run();
