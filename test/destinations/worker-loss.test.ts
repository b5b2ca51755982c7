// A Hog worker stopped under the hot path (docs/decisions/0039; src/destinations/runtime/
// hog-pools.ts, steps.ts): real worker threads and their pool's deadline, with a continue
// step that never returns (test/fixtures/hog-exec-stuck-worker.ts). The invocation that held
// the worker fails alone with a logged HogWorkerError; the programs the stopped worker kept
// are replayed to their fetch and resumed with its answer, never fetched again; and the
// worker started in its place answers to none of the tokens of the one before (each
// invocation resumes its own event's program).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { initHog } from '../../src/hog/index.js';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { openDestinationsStore, type DestinationsStore } from '../../src/destinations/runtime/env.js';
import type { CapturedEvent } from '../../src/log/types.js';
import type { EventGroup } from '../../src/log/consumers/index.js';
import type { TenancyStore } from '../../src/access/index.js';
import { validateHogFunction } from '../../src/destinations/api/validate.js';
import { createDeliveries } from '../../src/destinations/runtime/deliveries.js';
import { activeFunction, type ActiveFunction, type FunctionCache } from '../../src/destinations/runtime/function-cache.js';
import { createHogPools } from '../../src/destinations/runtime/hog-pools.js';
import { applyBatch, type PipelineDeps } from '../../src/destinations/runtime/pipeline.js';
import { WATCHER_DEFAULTS } from '../../src/destinations/runtime/watcher.js';
import type { StoredHogFunction } from '../../src/destinations/types.js';
import type { FetchOutcome, FetchRequest } from '../../src/destinations/fetch/http-fetch.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('destinations: a Hog worker stopped under the hot path');
const WORKER = new URL('../fixtures/hog-exec-stuck-worker.js', import.meta.url);
const DEADLINE_MS = 1000;
let dir: string;
let store: Store;
let ds: DestinationsStore;

s.before(() => initHog());
s.before.each(() => {
  dir = tempDir('hedgerow-worker-loss-');
  store = openStore(dir, tables);
  ds = openDestinationsStore(dir);
});
s.after.each(async () => {
  await ds.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ctxOfValidation = { projectId: 1, timeZone: 'UTC', now: Date.parse('2026-11-27T10:00:00Z'), siteUrl: 'http://localhost:8000', actions: {}, testAccountFilters: [], cohorts: {} };
// Sends the event's n, and prints it beside the n its answer carries.
function posting(id: string, projectId: number): StoredHogFunction {
  const fields = validateHogFunction({
    enabled: true,
    hog: "let res := fetch(inputs.url, {'method': 'POST', 'body': {'n': event.properties.n}}); print('answered', event.properties.n, res.body.n)",
    inputs_schema: [{ key: 'url', type: 'string' }], inputs: { url: { value: `https://hooks.example.com/${id}` } },
  }, null, { ...ctxOfValidation, projectId });
  return { ...fields, id, project_id: projectId, created_at: '2026-11-27T10:00:00Z', created_by: null, updated_at: '', watcher_epoch: 0 };
}

function event(n: number, projectId: number): CapturedEvent {
  return {
    uuid: `0193a7a0-0000-7000-8000-${String(n).padStart(12, '0')}`, event: 'order', distinct_id: `d${n}`,
    properties: { n, $process_person_profile: false }, timestamp: '2026-11-27T10:00:00.000Z', project_id: projectId,
    ip: null, now: '2026-11-27T10:00:00.000Z', sent_at: null, historical: false,
  };
}

// One log record of events, as the log hands it over (its sequence beside its events).
function record(seq: number, events: CapturedEvent[]): EventGroup[] {
  const entry = { seq, events };
  return [entry];
}

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

s('the stuck invocation fails alone, logged; the others are replayed, not fetched again, each with its own program', async () => {
  // `ok` runs on project 1's events, `stuck` on project 2's: one worker keeps them all.
  const ok = posting('ok', 1);
  const stuck = posting('stuck', 2);
  const active = new Map<number, ActiveFunction[]>([[1, [activeFunction(ok)]], [2, [activeFunction(stuck)]]]);
  const functions: FunctionCache = { active: (p) => active.get(p) ?? [], find: (_p, id) => [ok, stuck].find((f) => f.id === id), transforms: () => false };
  const pool = createHogPools({ worker: WORKER, threads: 1, heapMb: 256, deadlines: { start: 60_000, continue: DEADLINE_MS } });
  // `ok`'s answers wait until the test lets them go; `stuck`'s come at once.
  const requests: { fn: string; n: number }[] = [];
  const waiting: (() => void)[] = [];
  const fetch = (r: FetchRequest): Promise<FetchOutcome> => {
    const fn = r.url.slice(r.url.lastIndexOf('/') + 1);
    const n = (JSON.parse(r.body ?? '{}') as { n: number }).n;
    requests.push({ fn, n });
    const answer: FetchOutcome = { ok: true, status: 200, body: { n } };
    return fn === 'stuck' ? Promise.resolve(answer) : new Promise((resolve) => waiting.push(() => resolve(answer)));
  };
  const deliveries = createDeliveries({
    ds, functions, pool, fetch, now: Date.now, random: () => 0, onError: (err) => { throw err; },
    settings: { perFunction: 16, degradedPerFunction: 1, heldPerFunction: 64, maxInMemory: 128, watcher: WATCHER_DEFAULTS },
  });
  let position = 0;
  const ctx = {
    name: 'destinations', store, logId: 'lmdb', settings: undefined, now: Date.now,
    position: { key: 'destinations', read: () => position, write: (p: number) => { position = p; }, commit: async (p: number) => { position = p; } },
    rethrowUnlessWritable: async () => {},
    stopping: new AbortController().signal,
  } as unknown as PipelineDeps['ctx'];
  const tenancy = { project: () => ({ name: 'Default' }) } as unknown as TenancyStore;
  const deps: PipelineDeps = { ctx, ds, functions, pool, deliveries, watcher: WATCHER_DEFAULTS, tenancy, siteUrl: 'http://localhost:8000', closing: () => false };
  const okRequests = () => requests.filter((r) => r.fn === 'ok').map((r) => r.n).sort((a, b) => a - b);
  const logs = (id: string, level: string) => [...ds.logs.getRange({ start: [id], end: [id, Infinity] })].map(({ value }) => value).filter((l) => l.level === level).map((l) => l.message);
  try {
    // Four programs suspended at their fetch in the worker, their answers held.
    await applyBatch(deps, record(1, [1, 2, 3, 4].map((n) => event(n, 1))), 1);
    await until(() => okRequests().length === 4);
    // The stuck one: its continue step holds the worker past its deadline, twice (alone
    // the second time), and its invocation fails with what the pool said.
    await applyBatch(deps, record(2, [event(0, 2)]), 2);
    await until(() => ds.done.get(['stuck', event(0, 2).uuid, -1]) !== undefined);
    assert.equal(ds.done.get(['stuck', event(0, 2).uuid, -1])?.outcome, 'failed');
    await until(() => logs('stuck', 'ERROR').length > 0);
    assert.equal(logs('stuck', 'ERROR'), [
      `Error executing function on event ${event(0, 2).uuid}: HogWorkerError: the continue task ran longer than ${DEADLINE_MS} ms: its worker was stopped`,
    ]);
    // Four more, started in the worker that took the stopped one's place.
    await applyBatch(deps, record(3, [5, 6, 7, 8].map((n) => event(n, 1))), 3);
    await until(() => okRequests().length === 8);
    for (const answer of waiting.splice(0)) answer();
    await deliveries.idle();
    // Each event's request made once; each program resumed with its own event's answer.
    assert.equal(okRequests(), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(logs('ok', 'INFO').sort(), [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `answered ${n} ${n}`));
    assert.equal(logs('ok', 'ERROR'), []);
    for (let n = 1; n <= 8; n++) assert.equal(ds.done.get(['ok', event(n, 1).uuid, -1])?.outcome, 'succeeded');
    assert.equal(requests.filter((r) => r.fn === 'stuck').length, 1);
  } finally {
    await deliveries.close();
    await pool.close();
  }
});

s.run();
