// The log's record format: events frames, capture frames (a request's JSON text and a
// header; the reader normalizes), legacy JSON records. What matters most: reading a
// record again gives the same events, generated uuids and timestamps included.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeFrames, recordEntry } from '../../src/log/record.js';
import { captureFrame, decodeRecord, encodeRecord, eventsFrame, frameEvents, operationFrame, recordKeys, recordProjects } from '../../src/capture/frames.js';
import type { PlacedOperation, UnreadableEvent } from '../../src/log/types.js';
import { formatUuid } from '../../src/capture/uuid.js';
import { normalizeCapture } from '../../src/capture/scan.js';
import { logEvents } from '../helpers/log-events.js';
import { batchRequest, requestFrame } from '../helpers/capture-frames.js';

const s = suite('log record format');
const NOW = Date.parse('2026-01-10T12:00:00.000Z');
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

s('an events frame gives back its events', () => {
  const events = logEvents(3);
  assert.equal(decodeRecord(encodeRecord(events)), events);
  assert.equal(frameEvents(eventsFrame(events)), events);
  assert.is(eventsFrame(events).events, 3);
});

s('a log entry decodes its record on every read and keeps nothing between reads', () => {
  const events = logEvents(3);
  const entry = recordEntry(7, encodeRecord(events), decodeRecord);
  assert.is(entry.seq, 7);
  const first = entry.events;
  assert.equal(first, events);
  first[0].event = 'changed by a consumer';
  assert.equal(entry.events, events);
  assert.is.not(entry.events, first);
});

s('an operation frame is read back in its place, only by a reader asking for operations; a capture request never makes one', () => {
  const op = { uuid: '00000000-0000-4000-a000-000000000001', project_id: 1, kind: 'persons.delete', payload: { uuid: 'x' } };
  const [a, b] = [logEvents(1), logEvents(2)];
  const record = encodeFrames([eventsFrame(a), operationFrame(op), eventsFrame(b)]);
  const ops: PlacedOperation[] = [];
  assert.equal(decodeRecord(record, [], ops), [...a, ...b]);
  assert.equal(ops, [{ at: 1, op }]);
  assert.equal(decodeRecord(record), [...a, ...b]);
  // A request whose events carry an operation frame's bytes, and the operation's fields:
  // they stay text inside the capture frame.
  const opBytes = Buffer.concat(operationFrame(op).chunks).toString('latin1');
  const request = requestFrame({ api_key: 'k', batch: [{ event: 'persons.delete', distinct_id: 'u', properties: { ...op, raw: opBytes } }] });
  const fromRequest: PlacedOperation[] = [];
  const events = decodeRecord(encodeFrames([request]), [], fromRequest);
  assert.equal([events.length, events[0].event, fromRequest], [1, 'persons.delete', []]);
});

s('a record\'s projects are read from its capture frames\' headers, without its text; frames that do not say make it unknown', () => {
  const op = { uuid: '00000000-0000-4000-a000-000000000002', project_id: 9, kind: 'persons.delete', payload: { uuid: 'x' } };
  const a = requestFrame(batchRequest(2), { projectId: 3 });
  const b = requestFrame(batchRequest(1), { projectId: 5 });
  const record = encodeFrames([a, operationFrame(op), b, requestFrame(batchRequest(1), { projectId: 3 })]);
  assert.equal(recordProjects(record), [3, 5]);
  // The text is not read: a request whose text no longer parses still says its project.
  const text = Buffer.concat(a.chunks);
  text[text.length - 1] = 0x7b;
  assert.equal(recordProjects(Buffer.concat([Buffer.from([1]), text])), [3]);
  assert.throws(() => decodeRecord(Buffer.concat([Buffer.from([1]), text])));
  assert.is(recordProjects(encodeRecord(logEvents(2))), null);
  assert.is(recordProjects(encodeFrames([a, eventsFrame(logEvents(1))])), null);
  assert.is(recordProjects(Buffer.from(JSON.stringify(logEvents(1)))), null);
  assert.is(recordProjects(record.subarray(0, record.length - 1)), null);
  assert.equal(recordProjects(encodeFrames([operationFrame(op)])), []);
});

s('a record written before frames existed (a JSON array) is still read', () => {
  const events = logEvents(2);
  assert.equal(decodeRecord(Buffer.from(JSON.stringify(events))), events);
});

s('a capture frame reads as the normalized events of its request: project, clock, address, drops, generated uuids', () => {
  const payload = {
    api_key: 'phc_x', sent_at: '2026-01-10T12:00:10.000Z', historical_migration: true,
    batch: [
      { event: 'a', distinct_id: 'u1', timestamp: '2026-01-10T12:00:05.000Z', properties: { x: 1 } },
      { event: '', distinct_id: 'u1' },
      { event: 'b', distinct_id: 'u2', uuid: '0190A0E4-1C4E-7B1A-9E5B-1D2C3B4A5F60', $set: { plan: 'pro' } },
      'not an event',
      { event: 'c', properties: { distinct_id: 42, $ip: '9.9.9.9' } },
    ],
  };
  const frame = requestFrame(payload, { projectId: 7, nowMs: NOW, ip: '10.0.0.1' });
  assert.is(frame.events, 3);
  const events = decodeRecord(encodeFrames([frame]));
  assert.equal(events.map((e) => e.event), ['a', 'b', 'c']);
  for (const e of events) {
    assert.is(e.project_id, 7);
    assert.is(e.now, '2026-01-10T12:00:00.000Z');
    assert.is(e.sent_at, '2026-01-10T12:00:10.000Z');
    assert.is(e.historical, true);
    assert.is(e.ip, '10.0.0.1');
  }
  // Generated: UUIDv7 stamped with the request's clock. Given: kept, lowercased.
  assert.match(events[0].uuid, V7);
  assert.is(parseInt(events[0].uuid.slice(0, 8) + events[0].uuid.slice(9, 13), 16), NOW);
  assert.is(events[1].uuid, '0190a0e4-1c4e-7b1a-9e5b-1d2c3b4a5f60');
  assert.match(events[2].uuid, V7);
  assert.is.not(events[0].uuid, events[2].uuid);
  // Client clock 10 s ahead: corrected against the server's clock from the header.
  assert.is(events[0].timestamp, '2026-01-10T11:59:55.000Z');
  assert.equal(events[0].properties, { x: 1, $ip: '10.0.0.1' });
  assert.equal(events[1].properties.$set, { plan: 'pro' });
  assert.is(events[2].distinct_id, '42');
  assert.is(events[2].properties.$ip, '9.9.9.9');
});

s('reading a capture frame again gives the same events, uuids and timestamps included', () => {
  const frame = requestFrame({ api_key: 'phc_x', batch: [{ event: 'a', distinct_id: 'u' }, { event: 'b', distinct_id: 'u', offset: 1500 }] },
    { nowMs: NOW, query: `_=${NOW + 3000}` });
  const record = encodeFrames([frame]);
  const first = decodeRecord(record);
  const again = decodeRecord(Buffer.from(record));
  assert.equal(again, first);
  assert.equal(frameEvents(frame), first);
  assert.is(first[0].timestamp, '2026-01-10T12:00:00.000Z');
  assert.is(first[1].timestamp, '2026-01-10T11:59:58.500Z');
  assert.is(first[0].sent_at, new Date(NOW + 3000).toISOString());
});

s('the reader builds exactly what normalizing the request in one go builds', () => {
  const payload = { token: 'phc_x', batch: [
    { event: '$identify', distinct_id: 'u', $set: { a: 1 }, $set_once: { b: 2 }, properties: { $set: { a: 3 } } },
    { event: 'e', $distinct_id: 'x'.repeat(300), timestamp: '2027-06-01T00:00:00Z' },
    { event: 'e', distinct_id: 'u', properties: 'not properties' },
    { event: 'e', distinct_id: { id: 1 }, timestamp: 'garbage', uuid: null },
  ] };
  const read = decodeRecord(encodeFrames([requestFrame(payload, { projectId: 3, nowMs: NOW, ip: null })]));
  // None of the kept events has a uuid: the frame's generated ones, in order.
  const generated = read.map((e) => e.uuid);
  let n = 0;
  const direct = normalizeCapture(structuredClone(payload), { now: new Date(NOW), ip: null, query: new URLSearchParams(), newUuid: () => generated[n++] });
  assert.equal(read.map((e) => ({ ...e, project_id: 0 })), direct.events);
  assert.equal(direct.dropped, { invalid_event: 1 });
  assert.is(read.length, 3);
});

s('frames of one record come back in order, whatever their kind', () => {
  const a = logEvents(2);
  const b = logEvents(1);
  const record = encodeFrames([
    eventsFrame(a),
    requestFrame({ api_key: 'k', event: 'middle', distinct_id: 'u' }),
    eventsFrame(b),
    requestFrame([{ event: 'last', distinct_id: 'u', token: 'k' }]),
  ]);
  assert.equal(decodeRecord(record).map((e) => e.event), [...a.map((e) => e.event), 'middle', ...b.map((e) => e.event), 'last']);
  assert.equal(decodeRecord(record).slice(0, 2), a);
});

s('an event a capture frame cannot rebuild is left out and listed when asked, the other events and frames are read; without a list it throws', () => {
  const text = Buffer.from(JSON.stringify([{ event: 'first', distinct_id: 'a', token: 'k' }, null, { event: 'third', distinct_id: 'c', token: 'k' }]));
  const frame = captureFrame({ projectId: 4, nowMs: NOW, ip: null, sentAtMs: null, historical: false, droppedAt: null, kept: 3, missingUuids: 3 }, text);
  const record = encodeFrames([frame, requestFrame({ api_key: 'k', event: 'next', distinct_id: 'd' })]);
  const unreadable: UnreadableEvent[] = [];
  const events = decodeRecord(record, unreadable);
  assert.equal(events.map((e) => e.event), ['first', 'third', 'next']);
  // The uuids stay with their events: the frame's header holds the generated ones in order.
  const generated = [0, 1, 2].map((n) => formatUuid(frame.chunks[0], 44 + 16 * n));
  assert.equal([events[0].uuid, unreadable[0]?.uuid, events[1].uuid], generated);
  assert.is(unreadable.length, 1);
  assert.equal({ ...unreadable[0], error: '' }, { project_id: 4, uuid: generated[1], event: null, distinct_id: null, error: '' });
  assert.throws(() => decodeRecord(record));
});

s('a request whose text cannot be parsed again costs that request: the frames after it are read', () => {
  const broken = captureFrame({ projectId: 4, nowMs: NOW, ip: null, sentAtMs: null, historical: false, droppedAt: null, kept: 1, missingUuids: 1 }, Buffer.from('{"event":'));
  const unreadable: UnreadableEvent[] = [];
  const events = decodeRecord(encodeFrames([broken, requestFrame({ api_key: 'k', event: 'after', distinct_id: 'd' })]), unreadable);
  assert.equal(events.map((e) => e.event), ['after']);
  assert.equal(unreadable.map((u) => [u.project_id, u.uuid]), [[4, null]]);
});

s('a sent_at no date can hold (`_` of twenty digits, in a record from before capture checked it) is read as absent', () => {
  const frame = captureFrame({ projectId: 1, nowMs: NOW, ip: null, sentAtMs: 99999999999999999999, historical: false, droppedAt: null, kept: 1, missingUuids: 1 },
    Buffer.from(JSON.stringify({ event: 'e', distinct_id: 'u', timestamp: '2026-01-10T11:00:00.000Z' })));
  const [ev] = frameEvents(frame);
  assert.is(ev.sent_at, null);
  assert.is(ev.timestamp, '2026-01-10T11:00:00.000Z');
  const scan = normalizeCapture({ api_key: 'k', event: 'e', distinct_id: 'u' }, {
    now: new Date(NOW), ip: null, query: new URLSearchParams('_=99999999999999999999'), newUuid: () => '0190a0e4-1c4e-7b1a-9e5b-00000000a002',
  });
  assert.is(scan.events[0].sent_at, null);
});

s('a record\'s keys are the project and uuid of each event it decodes to, in order (dropped events skipped, generated uuids in their places); an event it cannot rebuild may be listed', () => {
  const keys = (record: Buffer) => decodeRecord(record).map((e) => ({ project_id: e.project_id, uuid: e.uuid }));
  const op = { uuid: '00000000-0000-4000-a000-000000000003', project_id: 9, kind: 'persons.delete', payload: { uuid: 'x' } };
  const record = encodeFrames([
    requestFrame({ api_key: 'k', batch: [
      { event: 'a', distinct_id: 'u' },
      { event: '', distinct_id: 'u' },
      { event: 'b', distinct_id: 'u', uuid: '0190A0E4-1C4E-7B1A-9E5B-1D2C3B4A5F61' },
      'not an event',
      { event: 'c', distinct_id: 'u', uuid: 7 },
    ] }, { projectId: 7, nowMs: NOW }),
    eventsFrame(logEvents(2)),
    operationFrame(op),
    requestFrame({ api_key: 'k', event: 'single', distinct_id: 'u' }, { projectId: 8 }),
  ]);
  assert.is(recordKeys(record).length, 5);
  assert.equal(recordKeys(record), keys(record));
  assert.equal(recordKeys(record)[1], { project_id: 7, uuid: '0190a0e4-1c4e-7b1a-9e5b-1d2c3b4a5f61' });
  const legacy = Buffer.from(JSON.stringify(logEvents(2)));
  assert.equal(recordKeys(legacy), keys(legacy));
  const entry = recordEntry(3, record, decodeRecord, recordProjects, recordKeys);
  assert.equal(entry.keys?.(), keys(record));

  // A null among the events takes a generated uuid and cannot be rebuilt: listed with it, the uuids after it in their places.
  const text = Buffer.from(JSON.stringify([{ event: 'first', distinct_id: 'a', token: 'k' }, null, { event: 'third', distinct_id: 'c', token: 'k' }]));
  const frame = captureFrame({ projectId: 4, nowMs: NOW, ip: null, sentAtMs: null, historical: false, droppedAt: null, kept: 3, missingUuids: 3 }, text);
  const generated = [0, 1, 2].map((n) => ({ project_id: 4, uuid: formatUuid(frame.chunks[0], 44 + 16 * n) }));
  assert.equal(recordKeys(encodeFrames([frame])), generated);
  assert.equal(decodeRecord(encodeFrames([frame]), []).map((e) => e.uuid), [generated[0].uuid, generated[2].uuid]);
  assert.throws(() => recordKeys(Buffer.from([0x09, 0x00])), /unknown format/);
});

s('an unknown record format or frame kind is an error, never a silent skip', () => {
  assert.throws(() => decodeRecord(Buffer.from([0x09, 0x00])), /unknown format/);
  assert.throws(() => decodeRecord(Buffer.from([0x01, 0x7f])), /unknown frame kind/);
  const record = encodeRecord(logEvents(1));
  assert.throws(() => decodeRecord(record.subarray(0, record.length - 3)), /past the end/);
});

s.run();
