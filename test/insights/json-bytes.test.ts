// JSON written straight from msgpack bytes (src/insights/columnar/json-bytes.ts) and the event
// rows staged from their bytes (src/insights/from-store.ts): on every msgpack type tag, odd
// strings, odd keys, numbers and huge values, the text is JSON.stringify's (after
// wellFormedJson) of what the store's decoder gives, or the value is left to that decoder.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { encode, ExtData } from '@msgpack/msgpack';
import { Packr, Unpackr } from 'msgpackr';
import { createSink, NOT_JSON, wellFormedUtf8, writeJsonString, writeMsgpackAsJson, writeUtf8String, writeUuidString } from '../../src/insights/columnar/json-bytes.js';
import { stageEvents, wellFormedJson } from '../../src/insights/columnar/stage.js';
import { rowValueRanges } from '../../src/events/row-fields.js';
import { BatchBuilder } from '../../src/insights/from-store.js';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import type { StoredEventValue } from '../../src/events/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('insights: JSON from msgpack bytes');

// The event store's table codec (src/store/table.ts plainMaps).
const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false });

// What the decoded path stages for the value in `b`; undefined where it throws.
function decodedJson(b: Uint8Array): string | undefined {
  try {
    const text = JSON.stringify(unpackr.unpack(b));
    return text === undefined ? undefined : wellFormedJson(text);
  } catch {
    return undefined;
  }
}

// 'read' with the text checked against the decoded path's, or 'decoded' (NOT_JSON).
function check(b: Uint8Array, label: string): 'read' | 'decoded' {
  const sink = createSink(8);
  sink.buf.fill(0x78);
  const end = writeMsgpackAsJson(sink, b, 0, b.length);
  if (end === NOT_JSON) {
    assert.is(sink.at, 0, `${label}: nothing kept`);
    return 'decoded';
  }
  assert.is(end, b.length, `${label}: ends where the value does`);
  assert.is(sink.buf.toString('utf8', 0, sink.at), decodedJson(b), label);
  return 'read';
}

// A msgpack map of these pairs in this order, each key and value as packr packs it
// (@msgpack/msgpack and msgpackr write a Map's entries otherwise, or not at all).
const mapOf = (pairs: [unknown, unknown][]) => Buffer.concat([Uint8Array.of(0x80 | pairs.length), ...pairs.flatMap(([k, v]) => [packr.pack(k), packr.pack(v)])]);
const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

// Every type tag (each length class of the variable ones), with whether the text is read
// from the bytes or left to the decoder.
type Options = { forceFloat32?: boolean; useBigInt64?: boolean };
const TAGGED: [number, unknown, 'read' | 'decoded', Options?][] = [
  [0x05, 5, 'read'], [0x00, 0, 'read'], [0x7f, 127, 'read'], [0xe0, -32, 'read'], [0xff, -1, 'read'],
  [0xa3, 'abc', 'read'], [0xa0, '', 'read'], [0xd9, 'x'.repeat(40), 'read'], [0xda, 'y'.repeat(300), 'read'], [0xdb, 'z'.repeat(70_000), 'read'],
  [0xc0, null, 'read'], [0xc2, false, 'read'], [0xc3, true, 'read'], [0xca, 1.5, 'read', { forceFloat32: true }], [0xca, 0.1, 'read', { forceFloat32: true }],
  [0xcb, 1.1, 'read'], [0xcb, 1e21, 'read'], [0xcb, 5e-324, 'read'], [0xcb, -1.7976931348623157e308, 'read'], [0xcb, 2 ** 53 + 2, 'read'],
  [0xcc, 200, 'read'], [0xcd, 60_000, 'read'], [0xce, 4_000_000_000, 'read'], [0xce, 4294967295, 'read'],
  [0xcf, 2n ** 63n, 'decoded', { useBigInt64: true }],
  [0xd0, -100, 'read'], [0xd0, -128, 'read'], [0xd1, -30_000, 'read'], [0xd2, -2_000_000_000, 'read'], [0xd2, -2147483648, 'read'],
  [0xd3, -(2n ** 40n), 'decoded', { useBigInt64: true }],
  [0xc4, bytes(10), 'decoded'], [0xc5, bytes(300), 'decoded'], [0xc6, bytes(70_000), 'decoded'],
  [0x93, [1, 'a', null], 'read'], [0x90, [], 'read'], [0xdc, Array.from({ length: 20 }, (_, i) => i), 'read'], [0xdd, Array.from({ length: 70_000 }, () => 1), 'read'],
  [0x82, { a: 1, b: [2] }, 'read'], [0x80, {}, 'read'], [0xde, keys(20), 'read'], [0xdf, keys(70_000), 'read'],
  [0xd4, new ExtData(7, bytes(1)), 'decoded'], [0xd5, new ExtData(7, bytes(2)), 'decoded'], [0xd6, new ExtData(7, bytes(4)), 'decoded'],
  [0xd7, new ExtData(7, bytes(8)), 'decoded'], [0xd8, new ExtData(7, bytes(16)), 'decoded'], [0xc7, new ExtData(7, bytes(5)), 'decoded'],
  [0xc8, new ExtData(7, bytes(300)), 'decoded'], [0xc9, new ExtData(7, bytes(70_000)), 'decoded'],
];

s('every type tag: the decoded path\'s text, or left to the decoder', () => {
  for (const [tag, value, expected, options] of TAGGED) {
    const b = encode(value, options);
    const label = `0x${tag.toString(16)} ${String(value).slice(0, 20)}`;
    assert.is(b[0], tag, label);
    assert.is(check(b, label), expected, label);
    // Inside a map and an array, after other values: read or left whole alike.
    assert.is(check(encode({ before: 'x', v: value, after: [1] }, options), `${label} nested`), expected, `${label} nested`);
  }
  // A byte no value starts with, and values cut short.
  assert.is(writeMsgpackAsJson(createSink(), Uint8Array.of(0xc1), 0, 1), NOT_JSON);
  for (const value of ['x'.repeat(40), { a: 'bcd' }, [1, 2, 3], 1.5]) {
    const b = encode(value);
    assert.is(writeMsgpackAsJson(createSink(), b, 0, b.length - 1), NOT_JSON, `${JSON.stringify(value)} cut`);
  }
});

s('floats that are not finite are null, as JSON.stringify writes them', () => {
  for (const n of [NaN, Infinity, -Infinity]) {
    assert.is(check(encode(n), String(n)), 'read');
    assert.is(check(encode(n, { forceFloat32: true }), `${n} f32`), 'read');
  }
  assert.is(check(encode(-0), '-0'), 'read');
});

s('odd strings: escapes, control characters, every UTF-8 length, as the table encodes them', () => {
  const controls = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
  const odd = [
    controls, '"quoted" \\back\\slash\\', '\u007f del', '\u2028\u2029 separators', 'é ß ü', '€ 中文 ﷽', '😀 𝄞 surrogate pairs', '\ufffd replacement',
    '</script>', 'a'.repeat(100_000) + '"' + '\n'.repeat(1000), '\u0000', '',
  ];
  for (const text of odd) {
    assert.is(check(packr.pack(text), JSON.stringify(text).slice(0, 30)), 'read');
    assert.is(check(packr.pack({ [text]: text }), `key ${JSON.stringify(text).slice(0, 30)}`), 'read');
  }
});

s('bytes that are not well-formed UTF-8 are left to the decoder (lone surrogates among them)', () => {
  // msgpackr writes a short string's lone surrogate as its three WTF-8 bytes.
  for (const text of ['a\ud800b', '\udfff', 'x\udbff', 'emoji half \ud83d']) assert.is(check(packr.pack({ p: text }), JSON.stringify(text)), 'decoded');
  // A long one through Buffer's encoder, which writes U+FFFD for it: read.
  assert.is(check(packr.pack({ p: 'y'.repeat(5000) + '\ud800' }), 'long lone surrogate'), 'read');
  const bad = [[0x80], [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf0, 0x80, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xe2, 0x82], [0xff]];
  for (const seq of bad) {
    const b = Uint8Array.of(0xa0 | (seq.length + 2), 0x61, ...seq, 0x62);
    assert.is(writeMsgpackAsJson(createSink(), b, 0, b.length), NOT_JSON, seq.map((x) => x.toString(16)).join(' '));
    assert.not.ok(wellFormedUtf8(b, 1, b.length));
    assert.not.ok(writeUtf8String(createSink(), b, 1, b.length));
  }
  const good = Buffer.from('a€😀ß');
  assert.ok(wellFormedUtf8(good, 0, good.length));
});

s('odd keys: __proto__, keys that are not strings, integer-like keys out of an object\'s order', () => {
  assert.is(check(packr.pack(JSON.parse('{"a":1,"__proto__":{"x":1}}')), '__proto__'), 'decoded');
  assert.is(check(mapOf([['a', 1], [1, 'a']]), 'number key'), 'decoded');
  assert.is(check(mapOf([[null, 'a']]), 'nil key'), 'decoded');
  // As an object orders them (indices first, ascending): read.
  assert.is(check(packr.pack({ b: 1, 10: 'ten', 2: 'two', 0: 'zero', '01': 'not an index', 4294967295: 'not an index', 4294967294: 'the last index' }), 'object order'), 'read');
  // Not as an object would order them: left to the decoder, which reorders them.
  assert.is(check(mapOf([['b', 1], ['2', 'two']]), 'index after a name'), 'decoded');
  assert.is(check(mapOf([['3', 1], ['2', 'two']]), 'indices descending'), 'decoded');
  assert.is(check(mapOf([['b', 1], ['02', 'x'], ['4294967295', 'y']]), 'index-like names'), 'read');
  assert.is(check(mapOf([['0', 1], ['7', 'x'], ['b', 'y']]), 'indices first'), 'read');
});

s('huge and deep values', () => {
  assert.is(check(packr.pack({ big: 'w'.repeat(5_000_000), many: keys(70_000), list: Array.from({ length: 70_000 }, (_, i) => ({ i })) }), 'huge'), 'read');
  let deep: unknown = 'bottom';
  for (let i = 0; i < 500; i++) deep = i % 2 ? { d: deep } : [deep];
  assert.is(check(packr.pack(deep), 'deep'), 'read');
  // Deeper than a stack: left to the decoder, not thrown.
  const depth = 200_000;
  const b = new Uint8Array(depth + 1).fill(0x91);
  b[depth] = 0xc0;
  assert.is(writeMsgpackAsJson(createSink(), b, 0, b.length), NOT_JSON);
});

s('a person\'s uuid is written as writeJsonString writes it, and so is anything of its length that is not a uuid\'s text', () => {
  const texts = ['0193a7a0-0000-7000-8000-000000000001', '0193A7A0-0000-7000-8000-00000000000F', 'x'.repeat(36), '0193a7a0-0000-7000-8000-00000000000"',
    '0193a7a0-0000-7000-8000-0000000000\u00e9', '0193a7a0-0000-7000-8000-00000000\ud800', 'short', ''];
  for (const text of texts) {
    const a = createSink(4);
    const b = createSink(4);
    a.at = b.at = 1;
    writeUuidString(a, text);
    writeJsonString(b, text);
    assert.is(a.buf.toString('utf8', 1, a.at), b.buf.toString('utf8', 1, b.at), text);
  }
});

s('a row\'s values found by key, wherever they lie', () => {
  const names = ['uuid', 'properties', 'absent'].map((k) => Buffer.from(k));
  const ranges = new Int32Array(6);
  const b = packr.pack({ event: 'e', properties: { a: [1, { b: 'c' }] }, elements_chain: 'x'.repeat(300), uuid: 'u-1' });
  assert.ok(rowValueRanges(b, names, ranges));
  assert.equal(unpackr.unpack(b.subarray(ranges[0], ranges[1])), 'u-1');
  assert.equal(unpackr.unpack(b.subarray(ranges[2], ranges[3])), { a: [1, { b: 'c' }] });
  assert.equal([ranges[4], ranges[5]], [-1, -1]);
  assert.not.ok(rowValueRanges(encode([1]), names, ranges));
  assert.not.ok(rowValueRanges(mapOf([['uuid', 'u'], [1, 'a']]), names, ranges));
  assert.not.ok(rowValueRanges(b.subarray(0, 20), names, ranges));
});

s('rows the event store\'s table wrote stage as their decoded rows do, with the same person', async () => {
  const dir = tempDir('json-bytes');
  const store: Store = openStore(dir, tables);
  try {
    const base = { event: '$pageview', distinct_id: 'd-1', timestamp: '2026-11-28T00:00:00.000Z', person_id: null, elements_chain: '' };
    const everything = Object.fromEntries(TAGGED.filter(([, , e]) => e === 'read').map(([tag, value], i) => [`t${i}_${tag.toString(16)}`, value]));
    const rows: StoredEventValue[] = [
      { ...base, uuid: 'u0', properties: { $browser: 'Firefox', n: 1.25, big: 2 ** 40, list: [1, [2, [3]]], at: { x: null } } },
      { ...base, uuid: 'u1', properties: everything },
      { ...base, uuid: 'u2', properties: {}, person_id: '0193a7a0-0000-7000-8000-000000000001' },
      { ...base, uuid: 'u3', properties: { lone: 'a\ud800b' }, distinct_id: 'd-\u2028"quoted"\\' },
      { ...base, uuid: 'u4', properties: JSON.parse('{"__proto__":{"x":1},"y":2}') },
      { ...base, uuid: 'u5', properties: { bin: bytes(4) } as Record<string, unknown> },
      { ...base, uuid: 'u6', properties: { $group_type: 'company', $group_key: 'acme' }, event: '$groupidentify' },
      { ...base, uuid: 'u7', properties: { huge: 'h'.repeat(2_000_000), many: keys(70_000) }, event: 'e\u0001\u00e9', distinct_id: '😀' },
      { ...base, uuid: 'u8', properties: { lone: '\udc00' }, distinct_id: 'bad \ud800 id' },
    ];
    await store.root.transaction(() => {
      rows.forEach((r) => store.eventRows.put([1, r.uuid], r));
      store.eventRows.put([1, 'dropped'], null);
    });
    const fromBytes = new BatchBuilder(store);
    // Each row twice (a uuid redelivered in the batch: the first one only), and a dropped event.
    fromBytes.addGroups([{ events: [...rows, ...rows, { uuid: 'dropped' }].map((r) => ({ project_id: 1, uuid: r.uuid })) as never }]);
    const fromRows = new BatchBuilder(store);
    for (const r of rows) fromRows.addStored(1, store.eventRows.get([1, r.uuid])!);
    const a = fromBytes.take();
    const b = fromRows.take();
    assert.is(a.eventText!.count, rows.length);
    assert.is(a.eventText!.bytes.toString(), b.eventText!.bytes.toString());
    assert.equal(a.eventText!.ranges, b.eventText!.ranges);
    assert.is(a.eventText!.longest, b.eventText!.longest);
    // And what the decoded events stage (the loader's path for events given whole).
    const decoded = stageEvents(rows.map((r) => ({ ...store.eventRows.get([1, r.uuid])!, project_id: 1, person_id: JSON.parse(a.eventText!.bytes.toString().split('\n')[0]).person_id })));
    assert.is(decoded!.bytes.toString().split('\n')[0], a.eventText!.bytes.toString().split('\n')[0]);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

s('an event\'s instant read from its row\'s bytes is Date.parse\'s of its timestamp, odd timestamps included', async () => {
  const dir = tempDir('json-bytes');
  const store: Store = openStore(dir, tables);
  try {
    const stamps = ['2026-11-28T10:00:00.123Z', '2026-02-29T10:00:00.000Z', '2026-01-31T23:59:59.999Z', '1969-12-31T23:59:59.999Z',
      '2026-11-28T24:00:00.000Z', '2026-11-28T10:00:00Z', '2026-11-28T10:00:00.987654Z', '0099-01-01T00:00:00.000Z'];
    const rows: StoredEventValue[] = stamps.map((timestamp, i) => ({ uuid: `t${i}`, event: 'e', distinct_id: 'd', timestamp, person_id: null, elements_chain: '', properties: {} }));
    await store.root.transaction(() => rows.forEach((r) => store.eventRows.put([1, r.uuid], r)));
    const builder = new BatchBuilder(store);
    builder.addGroups([{ events: rows.map((r) => ({ project_id: 1, uuid: r.uuid })) as never }]);
    // Eight instants, eight ranges: each its own, from and to.
    const ranges = builder.take().eventText!.ranges;
    assert.equal(ranges.map((r) => r.from), stamps.map((t) => Date.parse(t)).sort((a, b) => a - b));
    assert.equal(ranges.map((r) => r.to), ranges.map((r) => r.from));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

s.run();
