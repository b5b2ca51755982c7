// The consumer's person cache holds what a transaction changed until the flush writes
// it, however many persons that transaction touches: the cache turns over between
// transactions, never within one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { PersonBatch } from '../../src/persons/batch.js';
import { PersonCache } from '../../src/persons/person-cache.js';
import { processPersonEvent, type PersonEvent } from '../../src/persons/identity.js';
import { personRecordByDistinctId } from '../../src/persons/store.js';
import { storePerTest } from '../helpers/temp-store.js';

const P = 1;
const NOW = Date.parse('2026-01-10T12:00:00.000Z');
let n = 0;
const ev = (event: string, distinctId: string, properties: Record<string, unknown> = {}): PersonEvent => ({
  uuid: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, event, distinct_id: distinctId, properties,
  timestamp: new Date(NOW + n).toISOString(), project_id: P,
});

function send(batch: PersonBatch, e: PersonEvent): string {
  const outcome = processPersonEvent(e, (id) => batch.lookup(P, id));
  if (outcome.change) batch.apply(P, outcome.change);
  return outcome.personUuid;
}

const s = suite('person cache');
let store: Store;
storePerTest(s, 'hedgerow-person-cache-', (opened) => { store = opened; });

s('a merge early in a transaction holds after the transaction has touched more persons than half the cache', async () => {
  // Room for 4 entries a generation: the 20 new persons below would turn it over 5 times.
  const cache = new PersonCache(8);
  let user = '';
  await store.root.transaction(() => {
    const batch = new PersonBatch(store, cache, NOW);
    send(batch, ev('$pageview', 'anon'));
    user = send(batch, ev('$pageview', 'user'));
    send(batch, ev('$identify', 'user', { $anon_distinct_id: 'anon' }));
    for (let i = 0; i < 20; i++) send(batch, ev('$pageview', `visitor-${i}`));
    // Still the merged person, not a person of its own, nor none.
    assert.is(send(batch, ev('$pageview', 'anon', { $set: { back: true } })), user);
    batch.flush();
  });
  const merged = personRecordByDistinctId(store, P, 'anon');
  assert.is(merged?.uuid, user);
  assert.equal([...merged!.distinct_ids].sort(), ['anon', 'user']);
  assert.is(merged!.properties.back, true);
  assert.is(personRecordByDistinctId(store, P, 'visitor-19')?.distinct_ids[0], 'visitor-19');
});

s('persons dropped from a full cache are read back with every change the earlier transactions made', async () => {
  const cache = new PersonCache(4);
  for (let round = 0; round < 3; round++) {
    await store.root.transaction(() => {
      const batch = new PersonBatch(store, cache, NOW);
      for (let i = 0; i < 10; i++) send(batch, ev('$pageview', `visitor-${i}`, { $set: { [`round_${round}`]: i } }));
      batch.flush();
    });
  }
  for (let i = 0; i < 10; i++) {
    const { $creator_event_uuid: _, ...set } = personRecordByDistinctId(store, P, `visitor-${i}`)!.properties;
    assert.equal(set, { round_0: i, round_1: i, round_2: i });
  }
});

s('a person kept across sweeps is one copy, whichever of its ids an event names', async () => {
  // Room for 4 persons: each transaction brings 5 new ones, so every flush sweeps the cache.
  const cache = new PersonCache(4);
  let user = '';
  for (let round = 0; round < 6; round++) {
    await store.root.transaction(() => {
      const batch = new PersonBatch(store, cache, NOW);
      if (round === 0) {
        send(batch, ev('$pageview', 'anon'));
        user = send(batch, ev('$pageview', 'user'));
        send(batch, ev('$identify', 'user', { $anon_distinct_id: 'anon' }));
      }
      // Each round sets through the other id than the round before, over the sweeps.
      assert.is(send(batch, ev('$pageview', round % 2 ? 'anon' : 'user', { $set: { [`round_${round}`]: true } })), user);
      for (let i = 0; i < 5; i++) send(batch, ev('$pageview', `visitor-${round}-${i}`));
      batch.flush();
    });
  }
  const person = personRecordByDistinctId(store, P, 'anon')!;
  assert.is(person.uuid, user);
  assert.is(personRecordByDistinctId(store, P, 'user')?.uuid, user);
  const { $creator_event_uuid: _, ...set } = person.properties;
  assert.equal(set, { round_0: true, round_1: true, round_2: true, round_3: true, round_4: true, round_5: true });
});

s.run();
