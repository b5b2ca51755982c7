// The events time index: chunks cut by count and by span, and reads newest first that
// merge overlapping chunks into exactly the order a sort of every event gives, below any
// cursor and above any lower bound.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { CHUNK_EVENTS, CHUNK_SPAN_MS, createTimeIndexWriter, newestFirst, type IndexedEvent } from '../../src/events/time-index.js';
import { storePerTest } from '../helpers/temp-store.js';

const s = suite('events time index');
let store: Store;
storePerTest(s, 'hedgerow-time-index-', (opened) => { store = opened; });

const T0 = Date.parse('2026-01-10T12:00:00.000Z');
const newestFirstSort = (xs: IndexedEvent[]) => [...xs].sort((a, b) => (b.ts - a.ts) || (a.uuid < b.uuid ? 1 : -1));

s('chunks list their events newest first, and close at the count limit and past the span', async () => {
  const id = (i: number) => `u-${String(i).padStart(4, '0')}`;
  await store.root.transaction(() => {
    const writer = createTimeIndexWriter(store);
    for (let i = 0; i < CHUNK_EVENTS + 3; i++) writer.add(1, T0 + i, id(i), 'e', 'd');
    for (const [ts, uuid] of [[T0, 'a'], [T0 - CHUNK_SPAN_MS, 'b'], [T0 - CHUNK_SPAN_MS - 1, 'c'], [T0, 'e'], [T0, 'd']] as const) writer.add(2, ts, uuid, `event ${uuid}`, `user ${uuid}`);
    writer.write();
  });
  const chunks = (projectId: number) => [...store.eventTimes.getRange({ start: [projectId], end: [projectId + 1] })].map(({ key, value }) => ({ key, value }));
  const first = chunks(1);
  assert.equal(first.map((c) => c.value.ts.length), [CHUNK_EVENTS, 3]);
  assert.equal(first[1].key, [1, T0 + CHUNK_EVENTS + 2, id(CHUNK_EVENTS + 2)]);
  assert.equal(first[1].value.uuids, [id(CHUNK_EVENTS + 2), id(CHUNK_EVENTS + 1), id(CHUNK_EVENTS)]);
  // b fits the hour below a; c does not, and opens a chunk d and e cannot join.
  assert.equal(chunks(2).map((c) => c.value.uuids), [['c'], ['a', 'b'], ['e', 'd']]);
  // Each event's name and distinct id ride along in the same order.
  assert.equal(chunks(2)[2].value.names, ['event e', 'event d']);
  assert.equal(chunks(2)[2].value.distinctIds, ['user e', 'user d']);
});

s('reads merge overlapping chunks from many transactions into the order of a full sort, below every cursor', async () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const all: IndexedEvent[] = [];
  for (let txn = 0; txn < 12; txn++) {
    await store.root.transaction(() => {
      const writer = createTimeIndexWriter(store);
      for (let i = 0; i < 300; i++) {
        // Live traffic, late arrivals, a historical import and ties on one millisecond.
        const r = random();
        const ts = r < 0.6 ? T0 + txn * 60_000 + Math.floor(random() * 90_000)
          : r < 0.8 ? T0 - Math.floor(random() * 3 * CHUNK_SPAN_MS)
            : r < 0.95 ? T0 - 400 * 24 * CHUNK_SPAN_MS + Math.floor(random() * 1000 * CHUNK_SPAN_MS) : T0;
        const e = { ts, uuid: `u-${txn}-${String(i).padStart(3, '0')}`, event: `e${i % 3}`, distinct_id: `d${i % 7}` };
        all.push(e);
        writer.add(1, e.ts, e.uuid, e.event, e.distinct_id);
      }
      writer.add(2, T0, 'other-project', 'x', 'y');
      writer.write();
    });
  }
  const sorted = newestFirstSort(all);
  assert.equal([...newestFirst(store, 1, null)], sorted);
  for (let k = 0; k < 25; k++) {
    const cursor = sorted[Math.floor(random() * sorted.length)];
    const after = random() < 0.5 ? undefined : sorted[Math.floor(random() * sorted.length)].ts;
    const want = sorted.filter((e) => (e.ts < cursor.ts || (e.ts === cursor.ts && e.uuid < cursor.uuid)) && (after === undefined || e.ts > after));
    assert.equal([...newestFirst(store, 1, cursor, after)], want, `below ${cursor.ts}/${cursor.uuid}, after ${after}`);
  }
  assert.equal([...newestFirst(store, 2, null)], [{ ts: T0, uuid: 'other-project', event: 'x', distinct_id: 'y' }]);
});

s('events of one millisecond written by different transactions come out in uuid order', async () => {
  for (const uuids of [['b', 'd'], ['a', 'c', 'e']]) {
    await store.root.transaction(() => {
      const writer = createTimeIndexWriter(store);
      for (const uuid of uuids) writer.add(1, T0, uuid, 'e', 'd');
      writer.write();
    });
  }
  assert.equal([...newestFirst(store, 1, null)].map((e) => e.uuid), ['e', 'd', 'c', 'b', 'a']);
  assert.equal([...newestFirst(store, 1, { ts: T0, uuid: 'd' })].map((e) => e.uuid), ['c', 'b', 'a']);
});

s.run();
