// The insights consumer's memo of the persons it loaded (src/insights/from-store.ts): a
// person whose fingerprint did not change is not sent again, and the memo holds at most
// its bound in characters, forgetting everything (a resend, never a missed change) past it.
// A person read from a row that held it whole is known by the row's bytes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { BatchBuilder, LoadedPersons } from '../../src/insights/from-store.js';
import { openStore } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { writePerson } from '../../src/persons/person-rows.js';
import type { PersonRecord } from '../../src/persons/index.js';
import type { StoredEventValue } from '../../src/events/tables.js';
import { tempDir } from '../helpers/temp-dir.js';
import { stagedEvents } from '../helpers/staged-events.js';

const s = suite('loaded persons');

s('a person is unchanged only with the fingerprint last committed', () => {
  const memo = new LoadedPersons();
  assert.is(memo.unchanged('1\u0000a', 'v1'), false);
  memo.commit(new Map([['1\u0000a', 'v1']]));
  assert.is(memo.unchanged('1\u0000a', 'v1'), true);
  assert.is(memo.unchanged('1\u0000a', 'v2'), false);
  memo.commit(new Map([['1\u0000a', 'v2']]));
  assert.is(memo.unchanged('1\u0000a', 'v2'), true);
});

s('past its bound in characters the memo forgets what it held and keeps the batch just committed', () => {
  // Each entry: a 3-character key and a 7-character fingerprint.
  const memo = new LoadedPersons(30);
  memo.commit(new Map([['1:a', 'aaaaaaa'], ['1:b', 'bbbbbbb']]));
  // Replacing a fingerprint counts it once: 20 characters still.
  memo.commit(new Map([['1:a', 'AAAAAAA']]));
  assert.is(memo.unchanged('1:a', 'AAAAAAA'), true);
  assert.is(memo.unchanged('1:b', 'bbbbbbb'), true);
  // 20 + 20 > 30: the earlier persons are forgotten (sent again when next seen).
  memo.commit(new Map([['1:c', 'ccccccc'], ['1:d', 'ddddddd']]));
  assert.is(memo.unchanged('1:a', 'AAAAAAA'), false);
  assert.is(memo.unchanged('1:b', 'bbbbbbb'), false);
  assert.is(memo.unchanged('1:c', 'ccccccc'), true);
  assert.is(memo.unchanged('1:d', 'ddddddd'), true);
});

s('a person loaded from a row that held it whole is known again by any of its ids\' rows without decoding; a change, or rows that refer, read it again', () => {
  const dir = tempDir('hedgerow-loaded-persons-');
  const store = openStore(dir, tables);
  try {
    const person = (ids: string[], plan: string): PersonRecord => ({
      id: 1, uuid: '0193a7a0-0000-5000-8000-000000000001', created_at: '2026-11-27T10:00:00.000Z', properties: { plan }, is_identified: false, distinct_ids: ids,
    });
    const row = (distinctId: string, n: number): StoredEventValue => ({
      uuid: `0193a7a0-0000-7000-8000-${String(n).padStart(12, '0')}`, event: 'e', distinct_id: distinctId, properties: {},
      timestamp: '2026-11-27T10:00:00.000Z', person_id: null, elements_chain: '',
    });
    const memo = new LoadedPersons();
    const decoder = (store.personDistinctIds as unknown as { decoder: { decode(b: Uint8Array): unknown } }).decoder;
    const decode = decoder.decode;
    let decoded = 0;
    decoder.decode = (b) => { decoded++; return decode.call(decoder, b); };
    const batch = (distinctId: string, n: number) => {
      const builder = new BatchBuilder(store, memo);
      builder.addStored(1, row(distinctId, n));
      const taken = builder.take();
      memo.commit(builder.fingerprints, builder.wholes);
      return { persons: taken.persons.map((p) => p.properties.plan), ids: taken.distinctIds.map((d) => d.distinct_id), personId: stagedEvents(taken.eventText)[0].person_id };
    };
    store.root.transactionSync(() => writePerson(store, 1, person(['a', 'b'], 'free'), 0));
    assert.equal(batch('a', 1), { persons: ['free'], ids: ['a', 'b'], personId: person([], '').uuid });
    let before = decoded;
    // Through the other id's row, unchanged: nothing sent, nothing decoded.
    assert.equal(batch('b', 2), { persons: [], ids: [], personId: person([], '').uuid });
    assert.is(decoded, before);
    store.root.transactionSync(() => writePerson(store, 1, person(['a', 'b'], 'pro'), 2));
    assert.equal(batch('b', 3), { persons: ['pro'], ids: ['a', 'b'], personId: person([], '').uuid });
    assert.equal(batch('a', 4).persons, []);
    // Past eight ids its rows refer to it: read again each time, sent only when it changed.
    const many = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    store.root.transactionSync(() => writePerson(store, 1, person(many, 'pro'), 2));
    assert.equal(batch('i', 5), { persons: ['pro'], ids: many, personId: person([], '').uuid });
    before = decoded;
    assert.equal(batch('c', 6).persons, []);
    assert.ok(decoded > before, 'a row that refers is decoded');
    store.root.transactionSync(() => writePerson(store, 1, person(many, 'team'), 9));
    assert.equal(batch('a', 7).persons, ['team']);
  } finally {
    void store.close().then(() => rmSync(dir, { recursive: true, force: true }));
  }
});

s.run();
