// A delivery's Hog steps in the consumer's thread (src/destinations/runtime/in-thread.ts)
// against a Hog worker's steps (src/destinations/runtime/steps.ts) on the same functions and
// events: where the thread answers, its prepare step, first slice and resumed slice are the
// worker's (the same request, globals, ops, memory, result); where it does not (a filter or
// an input or a masking hash that needs the VM, Liquid, print, a throw, a text filter on a null), it answers null and the pool
// gives the answer; a program suspended in the thread and resumed by a worker from its state
// ends as the worker's own. The pipeline run both ways writes the same records.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { initHog } from '../../src/hog/index.js';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { openDestinationsStore, type DestinationsStore } from '../../src/destinations/runtime/env.js';
import type { CapturedEvent } from '../../src/log/types.js';
import type { TenancyStore } from '../../src/access/index.js';
import { validateHogFunction } from '../../src/destinations/api/validate.js';
import { createDeliveries } from '../../src/destinations/runtime/deliveries.js';
import { activeFunction, type FunctionCache } from '../../src/destinations/runtime/function-cache.js';
import { applyBatch, type PipelineDeps } from '../../src/destinations/runtime/pipeline.js';
import { runnable, type RunnableFunction } from '../../src/destinations/runtime/runnable.js';
import { createSteps, eventPack, globalsOf, ownKey, type ContinueTask, type StartTask, type StepOutcome } from '../../src/destinations/runtime/steps.js';
import type { EventContext } from '../../src/destinations/runtime/globals.js';
import { eventHere, resumeInThread, startInThread } from '../../src/destinations/runtime/in-thread.js';
import { WATCHER_DEFAULTS } from '../../src/destinations/runtime/watcher.js';
import type { StoredHogFunction } from '../../src/destinations/types.js';
import type { FetchOutcome } from '../../src/destinations/fetch/http-fetch.js';
import { pack } from '../../src/destinations/runtime/bytes.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('destinations in the consumer thread');
s.before(() => initHog());

const validation = { projectId: 1, timeZone: 'UTC', now: Date.parse('2026-11-27T10:00:00Z'), siteUrl: 'http://localhost:8000', actions: {}, testAccountFilters: [], cohorts: {} };
let made = 0;
function stored(body: Record<string, unknown>): StoredHogFunction {
  const fields = validateHogFunction({ enabled: true, ...body }, null, validation);
  made++;
  return { ...fields, id: `fn-${made}`, project_id: 1, created_at: `2026-11-27T10:00:0${made % 10}Z`, created_by: null, updated_at: '', watcher_epoch: 0 };
}
const webhook = (body: unknown, extra: Record<string, unknown> = {}) => stored({
  template_id: 'template-webhook', inputs: { url: { value: 'https://hooks.example.com/hook' }, body: { value: body }, ...(extra.inputs as object ?? {}) },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'inputs')),
});
const short = { event: '{event.event}', uuid: '{event.uuid}', url: '{event.properties.$current_url}', person: '{person.id}' };

// Functions the thread answers, and functions it leaves to the pool (and why).
const answered = (): StoredHogFunction[] => [
  webhook(short),
  webhook({ event: '{event}', person: '{person}' }),
  webhook(short, { filters: { events: [{ id: '$pageview', type: 'events' }] } }),
  webhook(short, { filters: { events: [{ id: '$pageview', type: 'events' }, { id: 'signed up', type: 'events' }] } }),
  webhook(short, { filters: { events: [{ id: '$pageview', type: 'events' }], properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] } }),
  webhook(short, { inputs: { method: { value: 'PUT' }, headers: { value: { 'X-Id': '{event.distinct_id}', 'Content-Type': 'application/json' } } } }),
  stored({ hog: "let r := fetch(inputs.url, {'body': {'e': event.event}}); if (r.status > 299 or r.status < 200) { return 0 }; return r.status", inputs_schema: [{ key: 'url', type: 'string' }], inputs: { url: { value: 'https://hooks.example.com/x' } } }),
];
// A filter that matches text (ILIKE of toString(…)): answered here on a string, left to the
// VM on a value it prints first (a null URL).
const textFilter = (): StoredHogFunction => webhook(short, { filters: { events: [{ id: '$pageview', type: 'events', properties: [{ key: '$current_url', value: '/PRICING', operator: 'icontains', type: 'event' }] }] } });
// Masking whose hash reads a global: prepared here, its program not run (as a worker does not).
const masked = (): StoredHogFunction[] => [
  webhook(short, { masking: { ttl: 3600, threshold: null, hash: '{event.distinct_id}' } }),
  webhook(short, { masking: { ttl: 3600, threshold: 2, hash: '{person.id}' } }),
];
const leftToPool = (): StoredHogFunction[] => [
  // print() in its first slice.
  webhook(short, { inputs: { debug: { value: true } } }),
  // An input that is a template string, not one read.
  webhook({ text: 'Hello {event.event} from {person.id}' }),
  // Masking whose hash the VM computes.
  webhook(short, { masking: { ttl: 3600, threshold: null, hash: '{lower(event.distinct_id)}' } }),
];

function contexts(): EventContext[] {
  const event = (n: number, name: string, properties: Record<string, unknown>) => ({
    uuid: `0193a7a0-0000-7000-8000-${String(n).padStart(12, '0')}`, event: name, distinct_id: `d${n}`, properties,
    timestamp: '2026-11-27T10:00:00.000Z', elements_chain: '',
  });
  const project = { id: 1, name: 'Default', url: 'http://localhost:8000/project/1' };
  return [
    { project, event: event(1, '$pageview', { $current_url: 'https://example.com/pricing', plan: 'pro', n: 1, list: [1, { a: null }] }), person: { id: 'p1', properties: { email: 'a@b.c' } }, groups: {} },
    { project, event: event(2, 'signed up', {}), person: null, groups: {} },
    { project, event: event(3, '$pageview', { $current_url: null, nested: { a: { b: 'é ✓ 𝄞'.repeat(50) } } }), person: { id: 'p3', properties: {} }, groups: { company: { index: 0, key: 'acme', properties: { size: 3 } } } },
  ];
}

// A slice without what differs by run: its timings' durations and where a worker keeps it.
const comparable = (o: StepOutcome) => ({ ...o, timings: o.timings.map((t) => t.kind), fetch: o.fetch === null ? null : { ...o.fetch, token: null } });

async function workerStart(fn: RunnableFunction, ctx: EventContext) {
  const steps = createSteps(0);
  const task: StartTask = { functions: [fn], events: [{ uuid: ctx.event.uuid, ctx: pack(ctx), functions: [0] }], start: [true], forget: [] };
  return { steps, started: await steps.start(task) };
}

const continueTask = (fn: RunnableFunction, token: string | null, globals: Uint8Array | null, response: ContinueTask['response'], state: unknown = null): ContinueTask => ({
  token, bytecode: state === null && token !== null ? null : fn.bytecode, state, response, globals, functionId: fn.id, mappingIndex: -1, secretKeys: fn.secretKeys, logsSoFar: 0,
});

s('where the thread answers, its prepare step, first slice and resumed slice are the worker\'s', async () => {
  let resumedHere = 0;
  for (const fn of answered().map(runnable)) {
    for (const ctx of contexts()) {
      const here = startInThread(fn, eventHere(ctx), true);
      const { started } = await workerStart(fn, ctx);
      const where = `${fn.id} on ${ctx.event.event}`;
      // An event without a person has no `person` global: a read of it is the VM's (its lookup of functions).
      if (here === null && ctx.person === null && JSON.stringify(fn.inputs).includes('"person"')) continue;
      assert.ok(here !== null, where);
      const theirs = started.outcomes[0];
      if (here.kind === 'filtered') {
        assert.is(theirs.kind, 'filtered', where);
        continue;
      }
      if (theirs.kind !== 'invocation' || theirs.slice === null || here.slice === null) return assert.unreachable(where);
      assert.is(theirs.mappingIndex, -1);
      assert.is(theirs.maskKey, null);
      assert.is(here.maskKey, null);
      assert.equal(comparable(here.slice), comparable(theirs.slice), where);
      // The invocation's globals: what the worker packs for the queue.
      assert.equal(here.globals, globalsOf(started.packs[0]!, fn.id, -1), where);
      // The pack the thread makes for the queue reads as the same globals.
      const ours = eventPack(pack(ctx), { [ownKey(fn.id, -1)]: { source: here.globals.source, inputs: here.globals.inputs } }, here.globals);
      assert.equal(globalsOf(ours, fn.id, -1), globalsOf(started.packs[0]!, fn.id, -1), where);
      for (const response of [{ status: 200, body: { ok: true } }, { status: 201, body: 'created' }, { status: 204, body: null }, { status: 500, body: { error: 'down' } }, { status: 404, body: [1, 2] }]) {
        const program = { state: structuredClone(here.program!.state), globals: here.globals };
        const resumed = resumeInThread(program, response);
        const worker = await workerStart(fn, ctx);
        const first = worker.started.outcomes[0];
        if (first.kind !== 'invocation' || first.slice?.fetch == null) return assert.unreachable(where);
        const theirResume = worker.steps.continue(continueTask(fn, first.slice.fetch.token, null, response))!;
        // Resumed by a worker from the state the thread kept (the pool's path when the thread does not answer).
        const fromState = createSteps(0).continue(continueTask(fn, null, worker.started.packs[0], response, pack(here.program!.state)))!;
        assert.equal(comparable(fromState), comparable(theirResume), `${where}, ${response.status}, resumed from the thread's state`);
        if (resumed === null) {
          // The webhook's throw on a failing status is the VM's.
          assert.ok(response.status >= 300 || theirResume.logs.length > 0, `${where}: ${response.status} left to the pool`);
          continue;
        }
        resumedHere++;
        assert.equal(comparable(resumed), comparable(theirResume), `${where}, ${response.status}`);
        // The state kept is not changed by a resume (a fallback resumes it again).
        assert.equal(program.state, here.program!.state);
      }
    }
  }
  assert.ok(resumedHere >= 20, `resumed in the thread ${resumedHere} times`);
});

s('what needs the VM (print, a template string, a masking hash computed) is left to the pool', async () => {
  for (const fn of leftToPool().map(runnable)) {
    for (const ctx of contexts()) {
      // A property filter that fails on the event's name still needs no VM.
      const here = startInThread(fn, eventHere(ctx), true);
      if (here !== null) {
        assert.is(here.kind, 'filtered', fn.id);
        assert.is((await workerStart(fn, ctx)).started.outcomes[0].kind, 'filtered');
        continue;
      }
      assert.is(here, null);
    }
  }
  // Without room to run it, the invocation is prepared here and its program not run.
  const fn = runnable(answered()[0]);
  const ctx = contexts()[0];
  const waiting = startInThread(fn, eventHere(ctx), false);
  if (waiting === null || waiting.kind !== 'invocation') return assert.unreachable('an invocation');
  assert.is(waiting.slice, null);
  assert.is(waiting.program, null);
});

s('a text-matching filter is answered here on a string (as the worker: passes or filtered), and left to the pool on a null', async () => {
  const fn = runnable(textFilter());
  const kinds: string[] = [];
  for (const ctx of contexts()) {
    const here = startInThread(fn, eventHere(ctx), true);
    const theirs = (await workerStart(fn, ctx)).started.outcomes[0];
    kinds.push(`${here === null ? 'pool' : here.kind}/${theirs.kind}`);
    if (here !== null && here.kind === 'invocation' && theirs.kind === 'invocation') assert.equal(comparable(here.slice!), comparable(theirs.slice!));
  }
  // /pricing matches /PRICING case-insensitively; 'signed up' fails the event name first; a null URL is the VM's.
  assert.equal(kinds, ['invocation/invocation', 'filtered/filtered', 'pool/filtered']);
});

s('a masking hash that reads a global is computed here: the invocation, its globals and hash are the worker\'s, and neither runs its program', async () => {
  let here = 0;
  for (const fn of masked().map(runnable)) {
    for (const ctx of contexts()) {
      const started = startInThread(fn, eventHere(ctx), true);
      const where = `${fn.id} on ${ctx.event.event}`;
      // An event without a person (the inputs read `person.id`): the VM's read, of a global that is not there.
      if (started === null) {
        assert.is(ctx.person, null, where);
        continue;
      }
      here++;
      const theirs = (await workerStart(fn, ctx)).started;
      const outcome = theirs.outcomes[0];
      if (started.kind !== 'invocation' || outcome.kind !== 'invocation') return assert.unreachable(where);
      assert.match(String(started.maskKey), /^[0-9a-f]{32}$/, where);
      assert.is(started.maskKey, outcome.maskKey, where);
      assert.equal(started.globals, globalsOf(theirs.packs[0]!, fn.id, -1), where);
      assert.equal([started.slice, started.program, outcome.slice], [null, null, null], where);
    }
  }
  assert.is(here, 4);
});

// The pipeline over the same events, with the thread's steps and with the pool's alone.
async function records(inThread: boolean, respond: () => Promise<FetchOutcome>, only?: () => StoredHogFunction[]) {
  const dir = tempDir('hedgerow-in-thread-');
  const store: Store = openStore(dir, tables);
  const ds: DestinationsStore = openDestinationsStore(dir);
  made = 100;
  const fns = only?.() ?? [...answered(), textFilter(), ...masked(), ...leftToPool()];
  const active = fns.map(activeFunction);
  const functions: FunctionCache = { active: () => active, find: (_p, id) => fns.find((f) => f.id === id), transforms: () => false };
  const worker = createSteps(0);
  let poolSteps = 0;
  const pool = {
    async run(kind: string, input: unknown) {
      poolSteps++;
      await new Promise((r) => setImmediate(r));
      return kind === 'start' ? worker.start(input as StartTask) : worker.continue(input as ContinueTask);
    },
    forget() {},
  } as unknown as PipelineDeps['pool'];
  const requests: string[] = [];
  const deliveries = createDeliveries({
    ds, functions, pool, fetch: (r) => { requests.push(`${r.method} ${r.url} ${JSON.stringify(r.headers)} ${r.body}`); return respond(); },
    now: () => 1_000_000, random: () => 0, onError: (err) => { throw err; },
    settings: { perFunction: 8, degradedPerFunction: 1, heldPerFunction: 256, maxInMemory: 1024, watcher: WATCHER_DEFAULTS },
  });
  let position = 0;
  const ctx = {
    name: 'destinations', store, logId: 'lmdb', settings: undefined, now: () => 1_000_000,
    position: { key: 'destinations', read: () => position, write: (p: number) => { position = p; }, commit: async (p: number) => { position = p; } },
    rethrowUnlessWritable: async () => {}, stopping: new AbortController().signal,
  } as unknown as PipelineDeps['ctx'];
  const tenancy = { project: () => ({ name: 'Default' }) } as unknown as TenancyStore;
  const evs: CapturedEvent[] = contexts().flatMap((c, i) => [0, 1, 2].map((k) => ({
    uuid: `${c.event.uuid.slice(0, -2)}${i}${k}`, event: c.event.event, distinct_id: c.event.distinct_id, properties: { ...c.event.properties, $process_person_profile: false },
    timestamp: c.event.timestamp, project_id: 1, ip: null, now: '2026-11-27T10:00:00.000Z', sent_at: null, historical: false,
  })));
  try {
    await applyBatch({ ctx, ds, functions, pool, deliveries, watcher: WATCHER_DEFAULTS, tenancy, siteUrl: 'http://localhost:8000', closing: () => false, inThread }, [{ seq: 1, events: evs }] as never, 1);
    await deliveries.idle();
    // Log lines without their durations (wall clock) or keys' times.
    const logs = [...ds.logs.getRange()].map(({ key, value }) => `${key[0]} ${value.instance_id} ${value.level} ${value.message.replace(/\d+\.\d+ms/g, 'Nms')}`).sort();
    return {
      poolSteps, requests: requests.sort(), logs,
      metrics: [...ds.metrics.getRange()].map(({ key, value }) => `${key.join(' ')} ${value}`),
      done: [...ds.done.getRange()].map(({ key, value }) => `${key.join(' ')} ${JSON.stringify(value)}`),
      queued: [...ds.queue.getRange()].length,
    };
  } finally {
    await deliveries.close();
    await ds.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

s('the pipeline writes the same records with the thread\'s steps as with the pool\'s alone, answers that succeed or fail', async () => {
  for (const status of [200, 404]) {
    const respond = () => Promise.resolve<FetchOutcome>({ ok: true, status, body: { ok: status < 300 } });
    const pool = await records(false, respond);
    const here = await records(true, respond);
    assert.ok(here.poolSteps < pool.poolSteps, `fewer pool steps in the thread (${here.poolSteps} against ${pool.poolSteps})`);
    assert.ok(pool.requests.length > 0);
    assert.equal(here.requests, pool.requests);
    assert.equal(here.logs, pool.logs);
    assert.equal(here.metrics, pool.metrics);
    assert.equal(here.done, pool.done);
    assert.is(here.queued, 0);
    assert.is(pool.queued, 0);
  }
});

s('a masked function\'s invocations that pass masking are started in the thread too: no pool step, the same records', async () => {
  const respond = () => Promise.resolve<FetchOutcome>({ ok: true, status: 200, body: { ok: true } });
  const only = () => [webhook({ event: '{event.event}', uuid: '{event.uuid}' }, { masking: { ttl: 3600, threshold: null, hash: '{event.distinct_id}' } })];
  const pool = await records(false, respond, only);
  const here = await records(true, respond, only);
  // Three distinct ids, three events each: one delivery per id, the rest masked.
  assert.is(pool.requests.length, 3);
  assert.equal(here.requests, pool.requests);
  assert.equal(here.logs, pool.logs);
  assert.equal(here.metrics, pool.metrics);
  assert.equal(here.done, pool.done);
  assert.ok(pool.poolSteps > 0);
  assert.is(here.poolSteps, 0);
});

s.run();
