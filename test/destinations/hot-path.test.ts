// The destinations' hot path (docs/decisions/0035), run in this thread: the consumer's
// pipeline over a batch of events, the Hog worker's steps (./steps.ts) served in place of a
// worker, a fetch that records. A backlog is prepared a chunk at a time while deliveries go
// on, never holding more than its bound in memory; a batch applied again after a failure
// half way skips what its committed chunks covered; a program its worker lost after the
// fetch answered is replayed, not fetched again; a function whose endpoint answers nothing
// does not keep the consumer from preparing more for the others.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { initHog } from '../../src/hog/index.js';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { openDestinationsStore, type DestinationsStore, type QueuedInvocation } from '../../src/destinations/runtime/env.js';
import type { CapturedEvent } from '../../src/log/types.js';
import type { TenancyStore } from '../../src/access/index.js';
import { validateHogFunction } from '../../src/destinations/api/validate.js';
import { createDeliveries, type Deliveries, type DeliverySettings } from '../../src/destinations/runtime/deliveries.js';
import { activeFunction, type ActiveFunction, type FunctionCache } from '../../src/destinations/runtime/function-cache.js';
import { applyBatch, type PipelineDeps } from '../../src/destinations/runtime/pipeline.js';
import { appliedKey, invocationKey, queuedInvocations, readProgress, takeOver } from '../../src/destinations/runtime/queue.js';
import { runnable } from '../../src/destinations/runtime/runnable.js';
import { createSteps, globalsOf, type ContinueTask, type StartTask } from '../../src/destinations/runtime/steps.js';
import { invocationGlobals, sourceOf } from '../../src/destinations/runtime/globals.js';
import { WATCHER_DEFAULTS } from '../../src/destinations/runtime/watcher.js';
import type { StoredHogFunction } from '../../src/destinations/types.js';
import type { FetchOutcome, FetchRequest } from '../../src/destinations/fetch/http-fetch.js';
import { pack } from '../../src/destinations/runtime/bytes.js';
import { PoolOverloadedError } from '../../src/pools/index.js';
import { ConsumerStopped } from '../../src/log/consumers/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('destinations hot path');
let dir: string;
let store: Store;
let ds: DestinationsStore;

s.before(() => initHog());
s.before.each(() => {
  dir = tempDir('hedgerow-hot-path-');
  store = openStore(dir, tables);
  ds = openDestinationsStore(dir);
});
s.after.each(async () => {
  await ds.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ctxOfValidation = { projectId: 1, timeZone: 'UTC', now: Date.parse('2026-11-27T10:00:00Z'), siteUrl: 'http://localhost:8000', actions: {}, testAccountFilters: [], cohorts: {} };
let made = 0;
function hogFunction(body: Record<string, unknown>): StoredHogFunction {
  const fields = validateHogFunction({ enabled: true, ...body }, null, ctxOfValidation);
  made++;
  return { ...fields, id: `fn-${made}`, project_id: 1, created_at: `2026-11-27T10:00:0${made}Z`, created_by: null, updated_at: '', watcher_epoch: 0 };
}
const webhook = (path: string, extra: Record<string, unknown> = {}) => hogFunction({
  template_id: 'template-webhook',
  inputs: { url: { value: `https://hooks.example.com/${path}` }, body: { value: { event: '{event}', n: '{event.properties.n}' } } }, ...extra,
});

function functionsOf(fns: StoredHogFunction[]): FunctionCache {
  const active: ActiveFunction[] = fns.map(activeFunction);
  return { active: () => active, find: (_p, id) => fns.find((f) => f.id === id), transforms: () => false };
}

function events(from: number, to: number, distinct = (n: number) => `d${n}`): CapturedEvent[] {
  const out: CapturedEvent[] = [];
  for (let n = from; n < to; n++) {
    out.push({
      uuid: `0193a7a0-0000-7000-8000-${String(n).padStart(12, '0')}`, event: 'order', distinct_id: distinct(n),
      properties: { n, $process_person_profile: false, $current_url: 'https://example.com/pricing' },
      timestamp: '2026-11-27T10:00:00.000Z', project_id: 1, ip: null, now: '2026-11-27T10:00:00.000Z', sent_at: null, historical: false,
    });
  }
  return out;
}

// Records of 50 events each, as the log hands them over.
const records = (evs: CapturedEvent[]) => Array.from({ length: Math.ceil(evs.length / 50) }, (_, i) => ({ seq: i + 1, events: evs.slice(i * 50, (i + 1) * 50) }));

interface Harness {
  deps: PipelineDeps;
  deliveries: Deliveries;
  prepares: number;
  // Steps sent to the pool (start and continue).
  poolSteps: number;
  // Each request with what the pipeline had prepared when it was made.
  requests: { url: string; n: number; preparedChunks: number }[];
  // The most invocations held in memory, at any request or prepare step, and at a prepare step.
  inMemoryMax: number;
  atPrepareMax: number;
  failPrepare: number | null;
  // The consumer is told to stop while this start step runs.
  stopAtPrepare: number | null;
  stop: AbortController;
}

// inThread: whether Hog steps that straight code answers run in the consumer's thread
// (src/destinations/runtime/in-thread.ts); the tests written before it pin the pool's path.
// A chunk is counted as prepared at its start step in the pool, or, in-thread, once the
// consumer has room for it.
function harness(fns: StoredHogFunction[], settings: Partial<DeliverySettings> = {}, respond?: (r: FetchRequest) => Promise<FetchOutcome>, inThread = false): Harness {
  // Programs get 10 s rather than 100 ms: this is about chunks and memory, and a loaded
  // machine once paused one program past 100 ms (999 deliveries of 1,000).
  const steps = createSteps(0, 10_000);
  const h = { prepares: 0, poolSteps: 0, requests: [], inMemoryMax: 0, atPrepareMax: 0, failPrepare: null, stopAtPrepare: null, stop: new AbortController() } as unknown as Harness;
  const pool = {
    async run(kind: string, input: unknown) {
      h.poolSteps++;
      // A worker answers in a later turn, as a pool does.
      await new Promise((r) => setImmediate(r));
      if (kind === 'start' && !inThread) {
        h.prepares++;
        // A full pool fails the batch (a worker's failure would only set its events apart).
        if (h.prepares === h.failPrepare) throw new PoolOverloadedError('worker pool queue is full');
        if (h.prepares === h.stopAtPrepare) h.stop.abort();
        h.inMemoryMax = Math.max(h.inMemoryMax, deliveries.inMemory());
        h.atPrepareMax = Math.max(h.atPrepareMax, deliveries.inMemory());
        return steps.start(input as StartTask);
      }
      return steps.continue(input as ContinueTask);
    },
    forget() {},
  } as unknown as PipelineDeps['pool'];
  const fetch = (r: FetchRequest): Promise<FetchOutcome> => {
    h.inMemoryMax = Math.max(h.inMemoryMax, deliveries.inMemory());
    h.requests.push({ url: r.url, n: JSON.parse(r.body!).n, preparedChunks: h.prepares });
    return respond ? respond(r) : new Promise((resolve) => setImmediate(() => resolve({ ok: true, status: 200, body: { ok: true } })));
  };
  const functions = functionsOf(fns);
  // A clock that stands still: no function counts as stalled however slow the machine.
  const deliveries = createDeliveries({
    ds, functions, pool, fetch, now: () => 1_000_000, random: () => 0, onError: (err) => { throw err; },
    settings: { perFunction: 4, degradedPerFunction: 1, heldPerFunction: 256, maxInMemory: 256, watcher: WATCHER_DEFAULTS, ...settings },
  });
  let position = 0;
  const ctx = {
    name: 'destinations', store, logId: 'lmdb', settings: undefined, now: Date.now,
    position: { key: 'destinations', read: () => position, write: (p: number) => { position = p; }, commit: async (p: number) => { position = p; } },
    rethrowUnlessWritable: async () => {},
    get stopping() { return h.stop.signal; },
  } as unknown as PipelineDeps['ctx'];
  const tenancy = { project: () => ({ name: 'Default' }) } as unknown as TenancyStore;
  h.deliveries = deliveries;
  const chunks: Deliveries = inThread ? {
    ...deliveries,
    whenRoom: () => deliveries.whenRoom().then(() => {
      h.prepares++;
      if (h.prepares === h.stopAtPrepare) h.stop.abort();
      h.inMemoryMax = Math.max(h.inMemoryMax, deliveries.inMemory());
      h.atPrepareMax = Math.max(h.atPrepareMax, deliveries.inMemory());
    }),
  } : deliveries;
  h.deps = { ctx, ds, functions, pool, deliveries: chunks, watcher: WATCHER_DEFAULTS, tenancy, siteUrl: 'http://localhost:8000', closing: () => false, inThread };
  return h;
}

s('a backlog is prepared a chunk at a time while its deliveries go on, and memory holds at most its bound', async () => {
  const h = harness([webhook('a')]);
  try {
    // 1,000 events: 8 chunks (7 of 128), 1,000 deliveries.
    await applyBatch(h.deps, records(events(0, 1000)), 20);
    await h.deliveries.idle();
    assert.is(h.requests.length, 1000);
    assert.is(new Set(h.requests.map((r) => r.n)).size, 1000);
    assert.is(h.prepares, 8);
    // The first delivery was made once the first chunk was prepared, and most of them
    // before the last chunk was: the consumer prepares a chunk only once at most half the
    // bound (128) is held, so of the 896 invocations of the first 7 chunks at least 768
    // were finished by then.
    assert.is(h.requests[0].preparedChunks, 1);
    assert.ok(h.requests.filter((r) => r.preparedChunks < 8).length >= 768, 'deliveries go on while the backlog is prepared');
    // Held in memory: at most half the bound when a chunk is prepared, so at most that and
    // one chunk's 128 invocations in all.
    assert.ok(h.atPrepareMax <= 128, `at most 128 held when a chunk is prepared (${h.atPrepareMax})`);
    assert.ok(h.inMemoryMax <= 256, `at most 256 held (${h.inMemoryMax})`);
    assert.ok(h.inMemoryMax > 128, 'the bound was reached');
    assert.is(ds.done.getCount(), 1000);
    assert.is([...queuedInvocations(ds)].length, 0);
    assert.is(readProgress(ds, 'lmdb'), null);
  } finally {
    await h.deliveries.close();
  }
});

s('a record whose projects have no function is passed over undecoded; a function enabled later runs on every record read after', async () => {
  const fn = webhook('later');
  const enabled = new Set<number>();
  const h = harness([fn]);
  const all = functionsOf([fn]);
  h.deps.functions = { active: (p) => (enabled.has(p) ? all.active(p) : []), find: all.find, transforms: all.transforms };
  let decoded = 0;
  // Records as the log hands them over: their projects read from the frame headers, their
  // events decoded on each read.
  const logged = (seq: number, evs: CapturedEvent[], projects: number[]) => ({
    seq, projects: () => projects, get events() { decoded++; return evs; },
  });
  const other = events(0, 50).map((e) => ({ ...e, project_id: 2 }));
  try {
    await applyBatch(h.deps, [logged(1, events(0, 50), [1]), logged(2, other, [2]), logged(3, events(50, 100), [1])], 3);
    assert.is(decoded, 0);
    assert.is(h.prepares, 0);
    assert.is(ds.meta.get(appliedKey('lmdb')), 3);
    assert.is(readProgress(ds, 'lmdb'), null);
    enabled.add(1);
    await applyBatch(h.deps, [logged(4, events(100, 150), [1]), logged(5, other, [2]), logged(6, events(150, 200), [1, 2])], 6);
    await h.deliveries.idle();
    // Project 2's record alone stayed undecoded.
    assert.is(decoded, 2);
    assert.equal(h.requests.map((r) => r.n).sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => 100 + i));
    assert.is(ds.meta.get(appliedKey('lmdb')), 6);
  } finally {
    await h.deliveries.close();
  }
});

s('a batch applied again after it failed half way skips what its committed chunks covered: masking counted once, each invocation queued once', async () => {
  // Masking by distinct id, 10 events per id: 1 in 10 passes.
  const fns = [webhook('masked', { masking: { ttl: 3600, threshold: null, hash: '{event.distinct_id}' } })];
  const evs = events(0, 600, (n) => `d${Math.floor(n / 10)}`);
  const h = harness(fns);
  h.failPrepare = 3;
  try {
    // The third chunk's start step fails: the first two chunks (256 events) stay recorded.
    await applyBatch(h.deps, records(evs), 12).then(() => assert.unreachable('the batch should fail'), (err: Error) => assert.instance(err, PoolOverloadedError));
    assert.equal(readProgress(ds, 'lmdb'), { seq: 6, index: 5 });
    // As the mechanism does: the same batch again.
    await applyBatch(h.deps, records(evs), 12);
    await h.deliveries.idle();
    assert.is(h.requests.length, 60);
    assert.is(new Set(h.requests.map((r) => r.n)).size, 60);
    const masked = [...ds.metrics.getRange()].filter(({ key }) => key[3] === 'masked').reduce((sum, { value }) => sum + value, 0);
    assert.is(masked, 540);
    assert.is(readProgress(ds, 'lmdb'), null);
  } finally {
    await h.deliveries.close();
  }
});

s('a consumer told to stop leaves its batch after the chunk it is on: that chunk and those before stay recorded, and the batch applied again delivers the rest, each event once', async () => {
  const h = harness([webhook('a')]);
  h.stopAtPrepare = 2;
  try {
    await applyBatch(h.deps, records(events(0, 1000)), 20).then(() => assert.unreachable('the batch should stop'), (err: Error) => assert.instance(err, ConsumerStopped));
    // Two chunks of 128 of the batch's eight were prepared and recorded, through the 256th event.
    assert.is(h.prepares, 2);
    assert.equal(readProgress(ds, 'lmdb'), { seq: 6, index: 5 });
    assert.is(ds.meta.get(appliedKey('lmdb')), undefined, 'the batch is not recorded as applied');
    // Started again, as the next start of the consumer does: the same batch from its position.
    h.stop = new AbortController();
    await applyBatch(h.deps, records(events(0, 1000)), 20);
    await h.deliveries.idle();
    assert.is(h.prepares, 2 + 6);
    assert.is(h.requests.length, 1000);
    assert.is(new Set(h.requests.map((r) => r.n)).size, 1000);
    assert.is(ds.meta.get(appliedKey('lmdb')), 20);
    assert.is(readProgress(ds, 'lmdb'), null);
  } finally {
    await h.deliveries.close();
  }
});

s('in the consumer\'s thread (a webhook whose steps straight code answers): a backlog is prepared a chunk at a time, memory holds at most its bound, and no step goes to the pool', async () => {
  const h = harness([webhook('a')], {}, undefined, true);
  try {
    await applyBatch(h.deps, records(events(0, 1000)), 20);
    await h.deliveries.idle();
    assert.is(h.poolSteps, 0);
    assert.is(h.requests.length, 1000);
    assert.is(new Set(h.requests.map((r) => r.n)).size, 1000);
    assert.is(h.prepares, 8);
    assert.is(h.requests[0].preparedChunks, 1);
    assert.ok(h.requests.filter((r) => r.preparedChunks < 8).length >= 768, 'deliveries go on while the backlog is prepared');
    assert.ok(h.atPrepareMax <= 128, `at most 128 held when a chunk is prepared (${h.atPrepareMax})`);
    assert.ok(h.inMemoryMax <= 256, `at most 256 held (${h.inMemoryMax})`);
    assert.ok(h.inMemoryMax > 128, 'the bound was reached');
    assert.is(ds.done.getCount(), 1000);
    assert.is([...queuedInvocations(ds)].length, 0);
    assert.is(readProgress(ds, 'lmdb'), null);
  } finally {
    await h.deliveries.close();
  }
});

s('in the consumer\'s thread: a consumer told to stop leaves its batch after the chunk it is on, what it recorded is kept, and the batch applied again delivers the rest, each event once', async () => {
  const h = harness([webhook('a')], {}, undefined, true);
  h.stopAtPrepare = 2;
  try {
    await applyBatch(h.deps, records(events(0, 1000)), 20).then(() => assert.unreachable('the batch should stop'), (err: Error) => assert.instance(err, ConsumerStopped));
    assert.is(h.prepares, 2);
    assert.equal(readProgress(ds, 'lmdb'), { seq: 6, index: 5 });
    assert.is(ds.meta.get(appliedKey('lmdb')), undefined, 'the batch is not recorded as applied');
    // The stopped chunks' invocations are in the queue or done: none lost.
    await h.deliveries.idle();
    assert.is(ds.done.getCount(), 256);
    h.stop = new AbortController();
    await applyBatch(h.deps, records(events(0, 1000)), 20);
    await h.deliveries.idle();
    assert.is(h.prepares, 2 + 6);
    assert.is(h.poolSteps, 0);
    assert.is(h.requests.length, 1000);
    assert.is(new Set(h.requests.map((r) => r.n)).size, 1000);
    assert.is(ds.done.getCount(), 1000);
    assert.is(ds.meta.get(appliedKey('lmdb')), 20);
    assert.is(readProgress(ds, 'lmdb'), null);
  } finally {
    await h.deliveries.close();
  }
});

s('a stop with deliveries in flight in the consumer\'s thread loses none: their queue entries stay, and a new consumer reading them back delivers each, at least once', async () => {
  // The endpoint never answers the first consumer: every invocation stays in flight.
  const fn = webhook('a');
  const h = harness([fn], { perFunction: 128 }, () => new Promise(() => {}), true);
  await applyBatch(h.deps, records(events(0, 100)), 2);
  assert.is(h.requests.length, 100);
  assert.is(ds.done.getCount(), 0);
  assert.is([...queuedInvocations(ds)].length, 100);
  await h.deliveries.close();
  // The next consumer (as at a restart) reads the queue back and delivers through the pool's
  // path (the programs suspended in the first consumer's thread are gone with it).
  const again = harness([fn], {}, undefined, true);
  try {
    for (const { key, value } of ds.queue.getRange()) again.deliveries.add(key, value);
    await again.deliveries.idle();
    assert.equal(again.requests.map((r) => r.n).sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => i));
    assert.is(ds.done.getCount(), 100);
    assert.is([...queuedInvocations(ds)].length, 0);
  } finally {
    await again.deliveries.close();
  }
});

s('a program its worker no longer keeps is replayed to its fetch and resumed with the answer, not fetched again', async () => {
  const fn = runnable(hogFunction({ hog: "print('before'); let r := fetch(inputs.url, {'body': {'n': 1}}); print('status', r.status); return r.status", inputs_schema: [{ key: 'url', type: 'string' }], inputs: { url: { value: 'https://hooks.example.com/x' } } }));
  const event = { ...events(0, 1)[0], elements_chain: '' };
  const ctx = { project: { id: 1, name: 'Default', url: 'http://localhost:8000/project/1' }, event, person: null, groups: {} };
  const first = createSteps(0);
  const started = await first.start({ functions: [fn], events: [{ uuid: ctx.event.uuid, ctx, functions: [0] }], start: [true], forget: [] });
  const o = started.outcomes[0];
  assert.is(o.kind, 'invocation');
  if (o.kind !== 'invocation' || o.slice === null || o.slice.fetch === null) return assert.unreachable('a first slice at its fetch');
  assert.equal(o.slice.logs.map((l) => l.message), ['before']);
  assert.is(first.kept(), 1);
  const task: ContinueTask = {
    token: o.slice.fetch.token, bytecode: fn.bytecode, state: o.slice.fetch.state, response: { status: 201, body: {} }, globals: started.packs[0]!,
    functionId: fn.id, mappingIndex: -1, secretKeys: [], logsSoFar: 1,
  };
  // The worker that keeps it resumes it from the token alone (as the consumer sends it);
  // one that does not (restarted) asks for the whole step, and replays it from that.
  const lean: ContinueTask = { ...task, bytecode: null, state: null, globals: null };
  assert.is(createSteps(0).continue(lean), null);
  const kept = first.continue(lean);
  const replayed = createSteps(0).continue(task);
  for (const run of [kept, replayed]) {
    if (run === null) return assert.unreachable('a slice');
    assert.is(run.fetch, null);
    assert.is(run.error, null);
    assert.is(run.result, 201);
    assert.equal(run.logs.map((l) => l.message), ['status 201']);
  }
  assert.is(first.kept(), 0);
});

s('the event is packed once: the consumer\'s bytes of its context are inside the queue\'s pack, which reads as the globals the program ran on, and so does a pack of the earlier shape', async () => {
  const fn = runnable(hogFunction({ hog: "let r := fetch(inputs.url, {'body': {'e': event.event, 'p': person.properties}}); return r.status", inputs_schema: [{ key: 'url', type: 'string' }], inputs: { url: { value: 'https://hooks.example.com/{event.event}' } } }));
  const event = { ...events(0, 1)[0], elements_chain: '' };
  const ctx = {
    project: { id: 1, name: 'Default', url: 'http://localhost:8000/project/1' }, event, person: { id: 'p1', properties: { email: 'a@b.c', n: [1, { x: null }] } },
    groups: { company: { index: 0, key: 'acme', properties: { size: 3 } } },
  };
  const sent = pack(ctx);
  const steps = createSteps(0);
  const started = await steps.start({ functions: [fn], events: [{ uuid: event.uuid, ctx: sent, functions: [0] }], start: [true], forget: [] });
  const asObject = await createSteps(0).start({ functions: [fn], events: [{ uuid: event.uuid, ctx, functions: [0] }], start: [true], forget: [] });
  const bytes = started.packs[0]!;
  assert.equal(Buffer.from(bytes.subarray(5, 5 + sent.length)), Buffer.from(sent));
  assert.equal(Buffer.from(asObject.packs[0]!), Buffer.from(bytes));
  const o = started.outcomes[0];
  if (o.kind !== 'invocation' || o.slice?.fetch == null) return assert.unreachable('a first slice at its fetch');
  assert.is(o.slice.fetch.url, `https://hooks.example.com/${event.event}`);
  assert.equal(JSON.parse(o.slice.fetch.options.body!), { e: event.event, p: ctx.person.properties });
  const expected = { ...invocationGlobals(ctx), source: sourceOf(ctx.project.url, fn), inputs: { url: `https://hooks.example.com/${event.event}` } };
  assert.equal(globalsOf(bytes, fn.id, -1), expected);
  const before = pack({ base: invocationGlobals(ctx), own: { [`${fn.id} -1`]: { source: expected.source, inputs: expected.inputs } } });
  assert.equal(globalsOf(before, fn.id, -1), expected);
  // A worker that lost the program replays it from either pack to the same request.
  for (const globals of [bytes, before]) {
    const replayed = createSteps(0).continue({
      token: null, bytecode: fn.bytecode, state: null, response: null, globals, functionId: fn.id, mappingIndex: -1, secretKeys: [], logsSoFar: 0,
    });
    assert.equal(replayed?.fetch?.options.body, o.slice.fetch.options.body);
  }
});

s('a function whose endpoint answers nothing for a second does not keep the consumer from preparing more', async () => {
  let clock = 1_000_000;
  const held: (() => void)[] = [];
  let answering = false;
  const fns = [webhook('slow')];
  const slow = fns[0];
  const ended = { logs: [], fetch: null, error: null, errorMessage: null, result: null, timings: [], ops: 0, maxMemoryBytes: 0, eventUrl: null, captured: [] };
  const d = createDeliveries({
    ds, functions: functionsOf(fns), pool: { run: async () => ended } as never,
    fetch: () => new Promise((resolve) => {
      const answer = () => resolve({ ok: true, status: 200, body: {} });
      if (answering) answer();
      else held.push(answer);
    }),
    now: () => clock, random: () => 0, onError: (err) => { throw err; },
    settings: { perFunction: 2, degradedPerFunction: 1, heldPerFunction: 20, maxInMemory: 20, watcher: WATCHER_DEFAULTS },
  });
  try {
    // Twelve invocations at their fetch: over half the bound.
    for (let n = 0; n < 12; n++) {
      const inv: QueuedInvocation = {
        functionId: slow.id, projectId: 1, eventUuid: `e${n}`, mappingIndex: -1, instanceId: `i${n}`, globals: pack({}), state: null, response: null,
        pendingFetch: { url: 'https://hooks.example.com/slow', options: { method: 'POST', headers: {}, body: '{"n":1}' }, attempts: 0 }, dueAt: 0, queuedAt: 0, failed: false,
      };
      await ds.root.transaction(() => { ds.queue.put(invocationKey(inv), inv); });
      d.add(invocationKey(inv), inv);
    }
    assert.is(held.length, 2);
    let room = false;
    void d.whenRoom().then(() => { room = true; });
    await new Promise((r) => setImmediate(r));
    assert.is(room, false);
    // A second on, with no answer: the function is stalled and does not count.
    clock += 1001;
    await d.whenRoom();
    assert.is(d.inMemory(), 12);
    answering = true;
    for (const answer of held.splice(0)) answer();
    await d.idle();
    assert.is(ds.done.getCount(), 12);
  } finally {
    await d.close();
  }
});

// What the store holds of an event's pack: once per pack, and how many queued invocations refer to it.
const packsHeld = () => [...ds.packRefs.getRange()].map(({ key, value }) => ({ uuid: key[1], refs: value, stored: ds.packs.doesExist(key) }));

for (const inThread of [true, false]) {
  s(`an event's pack is stored once for its invocations of a chunk (${inThread ? 'in the thread' : 'in the pool'}), each entry refers to it, and it goes with the last of them, across a restart`, async () => {
    const fns = [webhook('a'), webhook('b'), webhook('c')];
    // The first consumer's endpoint answers for 'a' only: the others stay in flight.
    const h = harness(fns, { perFunction: 128 }, (r) => (r.url.endsWith('/a') ? Promise.resolve({ ok: true, status: 200, body: {} }) : new Promise(() => {})), inThread);
    await applyBatch(h.deps, records(events(0, 10)), 1);
    const deadline = Date.now() + 10_000;
    while (ds.done.getCount() < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.is(ds.done.getCount(), 10);
    assert.is(h.requests.length, 30);
    await h.deliveries.close();
    const queued = [...queuedInvocations(ds)];
    assert.is(queued.length, 20);
    for (const { key, value } of queued) {
      assert.is(value.globals, null);
      // The pack's key is the event's first invocation's ('a', delivered), one of its own.
      assert.equal(value.pack, [fns[0].id, key[1], -1]);
      // The entry without the pack is a fraction of it.
      assert.ok(ds.queue.getBinary(key)!.length * 2 < ds.packs.get(value.pack!)!.length, 'the entry does not carry the pack');
    }
    assert.equal(packsHeld(), events(0, 10).map((e) => ({ uuid: e.uuid, refs: 2, stored: true })));
    // The 20 still queued are one count at their batch's position (docs/decisions/0062).
    assert.equal([...ds.pendingCounts.getRange()].map(({ key, value }) => [key, value]), [[0, 20]]);
    // A restart: the entries read back get their globals from the pack, through the pool's path.
    const again = harness(fns, {}, undefined, inThread);
    try {
      for (const { key, value } of ds.queue.getRange()) again.deliveries.add(key, value);
      await again.deliveries.idle();
      assert.equal(again.requests.map((r) => `${r.url.slice(-1)}${r.n}`).sort(), events(0, 10).flatMap((_, n) => [`b${n}`, `c${n}`]).sort());
      assert.is(ds.done.getCount(), 30);
      assert.is([...queuedInvocations(ds)].length, 0);
      assert.is(ds.pendingCounts.getCount(), 0);
      // Fewer time-index records than done marks: one per outcome transaction.
      assert.ok(ds.doneByTime.getCount() < 30, `${ds.doneByTime.getCount()} time-index records`);
      assert.equal(packsHeld(), []);
      assert.is(ds.packs.getCount(), 0);
    } finally {
      await again.deliveries.close();
    }
  });
}

s('a consumer taking over forgets the packs with the queue', async () => {
  const h = harness([webhook('a'), webhook('b')], { perFunction: 128 }, () => new Promise(() => {}), true);
  await applyBatch(h.deps, records(events(0, 5)), 1);
  await h.deliveries.close();
  assert.is(ds.packs.getCount(), 5);
  assert.is(await takeOver(ds, 'lmdb', 0), 10);
  assert.is(ds.packs.getCount(), 0);
  assert.is(ds.packRefs.getCount(), 0);
});

s.run();
