// An event row's person read from its bytes (src/events/row-person.ts): the walk over
// msgpack's framing against @msgpack/msgpack's encoder and decoder on every type tag, and
// rows written by the event store's own table against what the table decodes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { decode, encode, ExtData } from '@msgpack/msgpack';
import { NOT_READ, rowPerson } from '../../src/events/row-person.js';
import { skipValue } from '../../src/events/row-fields.js';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import type { StoredEventValue } from '../../src/events/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('events: a row\'s person read from its bytes');

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
// One value per msgpack type tag (and each length class of the variable ones), with the tag
// @msgpack/msgpack gives it.
type Options = { forceFloat32?: boolean; useBigInt64?: boolean };
const TAGGED: [number, unknown, Options?][] = [
  [0x05, 5], [0xe0, -32], [0xa3, 'abc'], [0xd9, 'x'.repeat(40)], [0xda, 'y'.repeat(300)], [0xdb, 'z'.repeat(70_000)],
  [0xc0, null], [0xc2, false], [0xc3, true], [0xca, 1.5, { forceFloat32: true }], [0xcb, 1.1],
  [0xcc, 200], [0xcd, 60_000], [0xce, 4_000_000_000], [0xcf, 2n ** 63n, { useBigInt64: true }],
  [0xd0, -100], [0xd1, -30_000], [0xd2, -2_000_000_000], [0xd3, -(2n ** 40n), { useBigInt64: true }],
  [0xc4, bytes(10)], [0xc5, bytes(300)], [0xc6, bytes(70_000)],
  [0x93, [1, 'a', null]], [0xdc, Array.from({ length: 20 }, (_, i) => i)], [0xdd, Array.from({ length: 70_000 }, () => 1)],
  [0x82, { a: 1, b: [2] }], [0xde, keys(20)], [0xdf, keys(70_000)],
  [0xd4, new ExtData(7, bytes(1))], [0xd5, new ExtData(7, bytes(2))], [0xd6, new ExtData(7, bytes(4))], [0xd7, new ExtData(7, bytes(8))],
  [0xd8, new ExtData(7, bytes(16))], [0xc7, new ExtData(7, bytes(5))], [0xc8, new ExtData(7, bytes(300))], [0xc9, new ExtData(7, bytes(70_000))],
];

s('each value, of every tag, is skipped to its end', () => {
  for (const [tag, value, options] of TAGGED) {
    const b = encode(value, options);
    assert.is(b[0], tag, `tag of ${String(value).slice(0, 20)}`);
    assert.is(skipValue(b, 0), b.length, `0x${tag.toString(16)}`);
    // Nested, after a prefix: the offset is the framing's, not the buffer's.
    const nested = encode([value, { after: value }, 'end'], options);
    assert.is(skipValue(nested, 1), 1 + b.length, `nested 0x${tag.toString(16)}`);
    assert.is(skipValue(nested, 0), nested.length);
  }
  assert.is(skipValue(Uint8Array.of(0xc1), 0), -1);
});

// A row as the event store writes it: the event's fields, then its person last.
const row = (properties: Record<string, unknown>, person: Record<string, unknown> | undefined, personId: string | null = 'p-1') => ({
  uuid: '0193a7a0-0000-7000-8000-000000000001', event: '$pageview', distinct_id: 'd', properties, timestamp: '2026-11-28T00:00:00.000Z',
  person_id: personId, elements_chain: '', ...(person === undefined ? {} : { person_properties: person }),
});

s('the person after properties holding every tag reads as @msgpack/msgpack decodes the row', () => {
  const everything = Object.fromEntries(TAGGED.map(([tag, value], i) => [`t${i}_${tag.toString(16)}`, value]));
  const person = { email: 'a@b.c', n: 3, f: 2.5, neg: -7, big: 4_000_000_000, no: null, yes: true, list: [1, 'x', { y: [] }], nested: { deep: { deeper: 'é€😀' } }, long: 'w'.repeat(300), many: keys(20) };
  const cases = [
    row(everything, person), row({}, person), row({ a: 1 }, {}), row(everything, undefined), row({ a: 1 }, person, null),
    row(keys(70_000), person),
  ];
  for (const value of cases) {
    const b = encode(value, { useBigInt64: true });
    const decoded = decode(b, { useBigInt64: true }) as StoredEventValue;
    const read = rowPerson(b);
    if (read === NOT_READ) return assert.unreachable('a plain map is read');
    assert.is(read.personId, decoded.person_id);
    assert.equal(read.properties, decoded.person_properties);
  }
  // Keys in another order: the person is found wherever it lies.
  const first = encode({ person_properties: person, person_id: 'p-2', properties: everything }, { useBigInt64: true });
  assert.equal(rowPerson(first), { personId: 'p-2', properties: person });
});

s('what is not a plain map of string keys is left to the whole decode', () => {
  assert.is(rowPerson(encode(null)), NOT_READ);
  assert.is(rowPerson(encode([1, 2])), NOT_READ);
  assert.is(rowPerson(encode(new Map<unknown, unknown>([[1, 'a'], ['person_id', 'p']]))), NOT_READ);
  // No person_id key at all, or one that is not a string.
  assert.is(rowPerson(encode({ a: 1 })), NOT_READ);
  assert.is(rowPerson(encode({ person_id: 5 })), NOT_READ);
  // Cut short.
  const b = encode(row({ a: 'x'.repeat(100) }, { e: 1 }));
  assert.is(rowPerson(b.subarray(0, 60)), NOT_READ);
});

s('rows the event store\'s table wrote read as the table decodes them', async () => {
  const dir = tempDir('row-person');
  const store: Store = openStore(dir, tables);
  try {
    const rows: StoredEventValue[] = [
      row({ $browser: 'Firefox', n: 1.25, big: 2 ** 40, list: [1, [2, [3]]], at: { x: null } }, { email: 'a@b.c', plan: 'pro', n: -3 }),
      row({}, undefined), row({ a: true }, { many: keys(70) }, null), row(keys(70_000), { only: 'one' }),
    ];
    await store.root.transaction(() => {
      rows.forEach((r, i) => store.eventRows.put([1, `u${i}`], r));
    });
    for (let i = 0; i < rows.length; i++) {
      const stored = store.eventRows.get([1, `u${i}`])!;
      const read = rowPerson(store.eventRows.getBinaryFast([1, `u${i}`])!);
      if (read === NOT_READ) return assert.unreachable('the table writes plain maps');
      assert.equal(read, { personId: stored.person_id, properties: stored.person_properties });
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

s.run();
