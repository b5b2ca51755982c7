// The log-consumer mechanism (src/log/consumers/) in this thread, over a real LMDB store
// and the embedded log: where a consumer starts, what it may not pass, what it sets aside,
// and what retention keeps for it.
import { captureCodec } from '../../src/capture/frames.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { createLmdbLog, createLmdbLogReader } from '../../src/log/lmdb-log.js';
import { pruneAppliedRecords } from '../../src/log/retention.js';
import { eventsAfter } from '../../src/log/lag.js';
import { LMDB_LOG_ID, type CapturedEvent } from '../../src/log/types.js';
import {
  ConsumerStopped, defineConsumer, listDeadLetters, LogGapError, registerConsumers, registered, runConsumer, type ConsumerHandler, type StartAt,
} from '../../src/log/consumers/index.js';
import { storePerTest } from '../helpers/temp-store.js';
import { eventually } from '../helpers/wait.js';
import { logEvent } from '../helpers/log-events.js';

let store: Store;
const s = suite('log consumers');
storePerTest(s, 'hedgerow-log-consumers-', (opened) => { store = opened; });

// Appends one record per event; returns the events.
async function append(n: number): Promise<CapturedEvent[]> {
  const log = createLmdbLog(store, captureCodec);
  const events = Array.from({ length: n }, () => logEvent());
  for (const ev of events) await log.append([ev]);
  await log.close();
  return events;
}

// A consumer that keeps the uuids it applies in memory, with its position in LMDB.
function recorder(name: string, startsAt: StartAt, extra: Partial<ConsumerHandler> & { follows?: string } = {}) {
  const seen: string[] = [];
  const { follows, ...handler } = extra;
  const definition = defineConsumer({
    module: import.meta.url, name, startsAt, follows,
    open: ({ position }): ConsumerHandler => ({
      async apply(groups, through) {
        for (const g of groups) for (const e of g.events) seen.push(e.uuid);
        if (through !== null) await position.commit(through);
      },
      ...handler,
    }),
  });
  return { definition, seen };
}

// Runs the consumer until `done`, then stops it.
async function runUntil(definition: ReturnType<typeof recorder>['definition'], done: () => boolean): Promise<void> {
  const stop = new AbortController();
  const reader = createLmdbLogReader(store, captureCodec);
  const running = runConsumer(definition, { store, reader, signal: stop.signal, settings: undefined });
  try {
    await Promise.race([eventually(async () => done()), running.then(() => { throw new Error('the consumer stopped by itself'); })]);
  } finally {
    stop.abort();
    await running.catch(() => undefined);
    await reader.close();
  }
}

s('a consumer that starts at the beginning sees every event of a log with history, in order, and stores its position', async () => {
  const events = await append(5);
  const { definition, seen } = recorder('late', 'beginning');
  await runUntil(definition, () => seen.length === 5);
  assert.equal(seen, events.map((e) => e.uuid));
  assert.is(store.positions.get('late'), 5);
});

s('a consumer that starts at the end skips the history it was registered after, and applies what follows', async () => {
  const history = await append(3);
  const { definition, seen } = recorder('hooks', 'end');
  await registerConsumers(store, LMDB_LOG_ID, 3, [registered(definition)]);
  assert.is(store.positions.get('hooks'), 3);
  const later = await append(2);
  await runUntil(definition, () => seen.length === 2);
  assert.equal(seen, later.map((e) => e.uuid));
  assert.not.ok(seen.includes(history[0].uuid));
});

s('a consumer never applies a record the consumer it follows has not applied', async () => {
  const events = await append(5);
  await store.positions.put('leader', 2);
  // The follower reads the leader's position whenever it holds records back: counted, so
  // the test knows it held the rest back (looked twice more) instead of waiting a while.
  let looks = 0;
  const get = store.positions.get.bind(store.positions);
  store.positions.get = ((key: string) => { if (key === 'leader') looks++; return get(key); }) as typeof store.positions.get;
  const { definition, seen } = recorder('follower', 'beginning', { follows: 'leader' });
  const stop = new AbortController();
  const reader = createLmdbLogReader(store, captureCodec);
  const running = runConsumer(definition, { store, reader, signal: stop.signal, settings: undefined });
  await eventually(async () => seen.length === 2);
  const looked = looks;
  await eventually(async () => looks >= looked + 2);
  assert.equal(seen, events.slice(0, 2).map((e) => e.uuid));
  await store.positions.put('leader', 5);
  await eventually(async () => seen.length === 5);
  stop.abort();
  await running;
  await reader.close();
  assert.equal(seen, events.map((e) => e.uuid));
});

s('retention waits for every registered consumer, one that has stored no position yet included', async () => {
  await append(5);
  await store.positions.put('event_store', 5);
  assert.is(await pruneAppliedRecords(store, 10_000, ['event_store', 'late']), 0);
  await store.positions.put('late', 3);
  assert.is(await pruneAppliedRecords(store, 10_000, ['event_store', 'late']), 3);
  assert.equal([...store.log.getKeys()], [4, 5]);
});

s('a log pruned past a consumer that declares no backfill stops it loudly, applying nothing', async () => {
  await append(5);
  await store.positions.put('event_store', 5);
  await pruneAppliedRecords(store);
  const { definition, seen } = recorder('late', 'beginning');
  const reader = createLmdbLogReader(store, captureCodec);
  const err = await runConsumer(definition, { store, reader, signal: new AbortController().signal, settings: undefined }).then(() => null, (e: Error) => e);
  await reader.close();
  assert.instance(err, LogGapError);
  assert.match(err!.message, /no longer holds records 1 to 4/);
  assert.equal(seen, []);
  assert.is(store.positions.get('late'), undefined);
});

s('a log pruned past a consumer goes to its backfill, and the consumer goes on from where the backfill stands', async () => {
  const history = await append(5);
  await store.positions.put('event_store', 5);
  await pruneAppliedRecords(store);
  const gaps: unknown[] = [];
  const { definition, seen } = recorder('insights', 'beginning', {
    async backfill(gap) {
      gaps.push(gap);
      seen.push(...history.map((e) => e.uuid));
      return 5;
    },
  });
  const later = await append(2);
  await runUntil(definition, () => seen.length === 7);
  assert.equal(gaps, [{ after: 0, firstHeld: 5 }]);
  assert.equal(seen, [...history, ...later].map((e) => e.uuid));
  assert.is(store.positions.get('insights'), 7);
});

s('an event a consumer cannot apply, with no fallback of its own, is set aside under its name; the rest are applied', async () => {
  const log = createLmdbLog(store, captureCodec);
  const [a, bad, b] = [logEvent(), logEvent(), logEvent()];
  await log.append([a, bad, b]);
  await log.close();
  const { definition, seen } = recorder('picky', 'beginning');
  const picky = defineConsumer({
    ...definition,
    async open(ctx) {
      const inner = await definition.open(ctx);
      return {
        apply: (groups, through) => {
          if (groups.some((g) => g.events.some((e) => e.uuid === bad.uuid))) throw new Error('cannot take this one');
          return inner.apply(groups, through);
        },
      };
    },
  });
  await runUntil(picky, () => store.positions.get('picky') === 1);
  assert.equal(seen, [a.uuid, b.uuid]);
  const [letter] = listDeadLetters(store);
  assert.equal({ ...letter, quarantined_at: '' }, {
    log: 'lmdb', seq: 1, consumer: 'picky', event: 1, error: 'cannot take this one', quarantined_at: '',
    bytes: Buffer.byteLength(JSON.stringify(bad)), record: Buffer.from(JSON.stringify(bad)).toString('base64'),
  });
});

s('a consumer told to stop part way through a batch ends the run as a stop: nothing split or set aside, its position where it was, the batch applied at the next start', async () => {
  const events = await append(3);
  const { definition, seen } = recorder('slow', 'beginning');
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => { entered = resolve; });
  let applies = 0;
  let first = true;
  const slow = defineConsumer({
    ...definition,
    async open(ctx) {
      const inner = await definition.open(ctx);
      return {
        async apply(groups, through) {
          applies++;
          if (ctx.stopping.aborted) throw new Error('a stopped consumer was given another batch');
          if (first) {
            first = false;
            // A long batch (the destinations wait for room between chunks): it looks at the stop between its steps.
            entered();
            await new Promise<void>((resolve) => ctx.stopping.addEventListener('abort', () => resolve()));
            throw new ConsumerStopped();
          }
          return inner.apply(groups, through);
        },
      };
    },
  });
  const stop = new AbortController();
  const reader = createLmdbLogReader(store, captureCodec);
  const running = runConsumer(slow, { store, reader, signal: stop.signal, settings: undefined });
  await inside;
  stop.abort();
  await running;
  await reader.close();
  assert.is(applies, 1, 'applied once: not split into entries');
  assert.equal(listDeadLetters(store), []);
  assert.is(store.positions.get('slow'), undefined);
  await runUntil(slow, () => store.positions.get('slow') === 3);
  assert.equal(seen, events.map((e) => e.uuid));
});

s('lag in events: the events of the records after a position, counted as they were appended', async () => {
  const log = createLmdbLog(store, captureCodec);
  await log.append([logEvent(), logEvent()]);
  await log.append([logEvent()]);
  await log.append([logEvent(), logEvent(), logEvent()]);
  await log.close();
  assert.equal([0, 1, 2, 3].map((p) => eventsAfter(store, p)), [6, 4, 3, 0]);
  await store.positions.put('only', 2);
  await pruneAppliedRecords(store);
  assert.equal([2, 3].map((p) => eventsAfter(store, p)), [3, 0]);
});

s.run();
